// Server time of a push of 500 new units into 10 target languages, against a Knex bulk insert of
// the same rows (keys, pending markers, job and pairs) into the same database. Target: at most 3x.
import { median, type Scenario } from './lib/compare.js';
import { openDb } from '../server/infra/db.js';
import type { components } from '../generated/openapi.js';
import { json } from './lib/http.js';
import { TARGETS_10 } from './lib/languages.js';
import { startService, stop } from './lib/servers.js';

const LANGS = TARGETS_10;
const ROUNDS = 6;

export const scenario: Scenario = {
  name: 'POST /translate, 500 new units x 10 languages, vs Knex bulk insert of the same rows (ms)',
  async run() {
    const svc = await startService({
      BENCH_LANGS: LANGS.join(','),
      BENCH_SCOPES: 'admin',
    });
    const { projectId, apiKey } = svc.info.projects[0];
    const ours: number[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const units = Array.from({ length: 500 }, (_, i) => ({
          source: `Round ${round} string ${i}: open the {item} settings`,
        }));
        const t0 = performance.now();
        const res = await fetch(`${svc.info.base}/projects/${projectId}/translate`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ units }),
        });
        const body = await json<components['schemas']['TranslateResult']>(res);
        ours.push(performance.now() - t0);
        if (res.status !== 200 || body.units.length !== 500)
          throw new Error(`push failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      }
    } finally {
      await stop(svc);
    }

    // Baseline: the same rows, bulk-inserted by Knex into the same database file.
    const db = openDb(svc.info.databaseUrl);
    const base: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const now = Date.now();
      const t0 = performance.now();
      await db.transaction(async (trx) => {
        const keys = Array.from({ length: 500 }, (_, i) => ({
          project_id: projectId,
          name: `baseline_${round}_${i}`,
          token: `b${round}x${i}`.padEnd(32, 'x'),
          source: `Round ${round} string ${i}: open the {item} settings`,
          forms: null,
          ctx: null,
          enabled: true,
          source_verified: false,
          captured: false,
          created_by: 'bench',
          source_updated_at: now,
          created_at: now,
          updated_at: now,
        }));
        for (let i = 0; i < keys.length; i += 400) await trx('keys').insert(keys.slice(i, i + 400));
        const ids = (
          await trx('keys')
            .where({ project_id: projectId, created_by: 'bench' })
            .whereIn(
              'name',
              keys.map((k) => k.name),
            )
            .select('id')
        ).map((r) => Number(r.id));
        const [jobId] = await trx('fill_jobs').insert({
          tracking_token: `trk_bench_${round}_${now}`,
          project_id: projectId,
          workspace_id: 'x',
          status: 'done',
          estimated_mc: 0,
          held_mc: 0,
          total: 0,
          created_at: now,
          updated_at: now,
        });
        const markers = ids.flatMap((id) =>
          LANGS.map((lang) => ({
            key_id: id,
            lang,
            project_id: projectId,
            value: null,
            status: 'pending',
            origin: null,
            job_id: jobId,
            updated_at: now,
          })),
        );
        for (let i = 0; i < markers.length; i += 400) await trx('translations').insert(markers.slice(i, i + 400));
        const pairs = ids.flatMap((id) =>
          LANGS.map((lang) => ({ job_id: jobId, key_id: id, lang, state: 'pending', cost_mc: 40 })),
        );
        for (let i = 0; i < pairs.length; i += 400) await trx('fill_pairs').insert(pairs.slice(i, i + 400));
      });
      base.push(performance.now() - t0);
    }
    await db.destroy();
    const a = median(ours);
    const b = median(base);
    return {
      figure: `${a.toFixed(1)} ms per push (median of ${ROUNDS})`,
      baseline: `${b.toFixed(1)} ms per bulk insert`,
      ratio: a / b,
      target: '<= 3',
    };
  },
};
