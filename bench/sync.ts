// Sync of a 1,000-entry xcstrings catalog with 20 languages (20,000 cells) into an empty project, and
// again with 10% of the values changed, against JSON.parse plus a Knex bulk insert of the same cells into the
// same database. Targets: the first sync at most 3x the baseline; the re-sync faster than the first.
import type { Scenario } from './lib/compare.js';
import { openDb } from '../server/infra/db.js';
import type { components } from '../generated/openapi.js';
import { json } from './lib/http.js';
import { TARGETS_19 } from './lib/languages.js';
import { startService, stop } from './lib/servers.js';

const TARGETS = TARGETS_19;
const ENTRIES = 1000;

type SyncResult = components['schemas']['SyncResult'];
/** The catalog below, as JSON.parse reads it back. */
interface Catalog {
  strings: Record<string, { comment: string; localizations: Record<string, { stringUnit: { value: string } }> }>;
}

function catalog(changed: number) {
  const strings: Record<string, unknown> = {};
  for (let i = 0; i < ENTRIES; i++) {
    const localizations: Record<string, unknown> = {
      en: { stringUnit: { state: 'translated', value: `Entry ${i}: open the settings for %@` } },
    };
    TARGETS.forEach((lang, l) => {
      const edited = (i * TARGETS.length + l) % 100 < changed ? ' (edited)' : '';
      localizations[lang] = { stringUnit: { state: 'translated', value: `${lang} ${i}: öffnen %@${edited}` } };
    });
    strings[`entry.${i}`] = { comment: `Entry number ${i}`, localizations };
  }
  // Compact, so 20,000 cells fit the 2 MiB limit of a decoded file.
  return JSON.stringify({ sourceLanguage: 'en', strings, version: '1.0' });
}

export const scenario: Scenario = {
  name: 'POST /sync, 1,000 xcstrings entries x 20 languages, vs JSON.parse + Knex bulk insert (ms)',
  async run() {
    const svc = await startService({
      BENCH_LANGS: TARGETS.join(','),
      BENCH_SCOPES: 'admin',
    });
    const { projectId, apiKey } = svc.info.projects[0];
    const send = async (text: string) => {
      const t0 = performance.now();
      const res = await fetch(`${svc.info.base}/projects/${projectId}/sync`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          contentBase64: Buffer.from(text).toString('base64'),
          fileName: 'Localizable.xcstrings',
        }),
      });
      const body = await json<SyncResult>(res);
      if (res.status !== 200) throw new Error(`sync failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      return { ms: performance.now() - t0, body };
    };
    let first: { ms: number; body: SyncResult };
    let second: { ms: number; body: SyncResult };
    const original = catalog(0);
    try {
      first = await send(original);
      second = await send(catalog(10));
    } finally {
      await stop(svc);
    }
    if (first.body.created !== ENTRIES || first.body.updatedTranslations !== ENTRIES * TARGETS.length)
      throw new Error(`unexpected first sync: ${JSON.stringify(first.body).slice(0, 300)}`);
    if (second.body.updatedTranslations !== (ENTRIES * TARGETS.length) / 10)
      throw new Error(`unexpected re-sync: ${JSON.stringify(second.body).slice(0, 300)}`);

    // Baseline: parse the same file and bulk-insert the same cells into the same database.
    const db = openDb(svc.info.databaseUrl);
    const t0 = performance.now();
    const parsed = JSON.parse(original) as Catalog;
    const now = Date.now();
    await db.transaction(async (trx) => {
      const keys = Object.entries(parsed.strings).map(([k, e], i) => ({
        project_id: projectId,
        name: `base.${k}`,
        token: `base${i}`.padEnd(32, 'x'),
        source: e.localizations.en.stringUnit.value,
        forms: null,
        ctx: null,
        enabled: true,
        source_verified: false,
        captured: false,
        created_by: 'bench',
        source_updated_at: now,
        created_at: now,
        updated_at: now,
        file_key: k,
        comment: e.comment,
        meta: null,
      }));
      for (let i = 0; i < keys.length; i += 400) await trx('keys').insert(keys.slice(i, i + 400));
      const ids = new Map(
        (await trx('keys').where({ project_id: projectId, created_by: 'bench' }).select('id', 'file_key')).map((r) => [
          r.file_key,
          Number(r.id),
        ]),
      );
      const cells = Object.entries(parsed.strings).flatMap(([k, e]) =>
        TARGETS.map((lang) => ({
          key_id: ids.get(k),
          lang,
          project_id: projectId,
          value: e.localizations[lang].stringUnit.value,
          status: 'translated',
          origin: 'import',
          job_id: null,
          updated_at: now,
        })),
      );
      for (let i = 0; i < cells.length; i += 400) await trx('translations').insert(cells.slice(i, i + 400));
    });
    const baseMs = performance.now() - t0;
    await db.destroy();
    const reRatio = second.ms / first.ms;
    return {
      figure: `first sync ${first.ms.toFixed(0)} ms; re-sync with 10% changed ${second.ms.toFixed(0)} ms (${reRatio.toFixed(2)} of the first)`,
      baseline: `${baseMs.toFixed(0)} ms for JSON.parse + bulk insert of 1,000 keys and 19,000 cells`,
      ratio: first.ms / baseMs,
      target: '<= 3',
      met: first.ms / baseMs <= 3 && second.ms < first.ms,
    };
  },
};
