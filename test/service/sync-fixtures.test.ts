// Fidelity: every syncable fixture syncs into a fresh project whose base language matches it, and the project
// rendered back in the file's format parses to an equivalent catalog (same keys in the file's spelling, same
// values, plural forms, substitutions). Files that are not syncable as a whole are refused with
// format_not_syncable, while their format's parser still reads them.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import type { Catalog } from '../../packages/core/src/catalog.js';
import { detectFormat, getFormat } from '../../packages/core/src/formats/index.js';
import { liveCatalog } from '../../server/domain/catalog/live.js';
import { normalizeLanguage } from '../../server/domain/project/languages.js';
import { createTestProject, startTestService, type TestService } from '../helpers/service.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/catalogs');
const files = readdirSync(FIXTURES)
  .filter((d) => !d.endsWith('.md'))
  .flatMap((d) => readdirSync(path.join(FIXTURES, d)).map((f) => path.join(d, f)));

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

/** What must survive a round trip: keys, values per language, plural forms, comments. */
function essence(c: Catalog) {
  return Object.fromEntries(
    c.entries.map((e) => [
      e.fileKey,
      {
        comment: e.comment ?? null,
        values: Object.fromEntries(Object.entries(e.values).map(([l, v]) => [l, v.kind === 'text' ? v.text : v.forms])),
        substitutions: e.meta?.substitutions ?? null,
      },
    ]),
  );
}

for (const rel of files) {
  const text = readFileSync(path.join(FIXTURES, rel), 'utf8');
  const format = detectFormat(text, rel)!;
  const syncable = ['xcstrings', 'json', 'nested_json', 'angular_json'].includes(format);
  const empties = /"\s*:\s*""/.test(text) && format !== 'xcstrings';
  test.serial(
    `${rel}: ${syncable ? (empties ? 'refused for its empty values' : 'syncs and comes back equivalent') : 'is not syncable; its parser reads it'}`,
    async (t) => {
      if (!syncable) {
        t.notThrows(() => getFormat(format).parse(text));
        const p = await createTestProject(svc);
        const r = await p.client.POST('/projects/{projectId}/sync', {
          params: { path: { projectId: p.projectId } },
          body: { contentBase64: Buffer.from(text).toString('base64'), fileName: path.basename(rel) },
        });
        t.is(r.error?.error, 'format_not_syncable');
        return;
      }
      const parsed = getFormat(format).parse.bind(getFormat(format));
      if (empties) {
        const p = await createTestProject(svc, { baseLang: 'de', languages: [{ code: 'en' }] });
        const r = await p.client.POST('/projects/{projectId}/sync', {
          params: { path: { projectId: p.projectId } },
          body: { contentBase64: Buffer.from(text).toString('base64'), fileName: path.basename(rel) },
        });
        t.is(r.error?.error, 'invalid_argument');
        return;
      }
      const original = parsed(text);
      const base = original.sourceLanguage ?? (rel.includes('-de') ? 'de' : 'en');
      const langs = new Set(original.entries.flatMap((e) => Object.keys(e.values)).map((l) => normalizeLanguage(l)));
      langs.delete(normalizeLanguage(base));
      const p = await createTestProject(svc, { baseLang: base, languages: [...langs].map((code) => ({ code })) });
      const r = await p.client.POST('/projects/{projectId}/sync', {
        params: { path: { projectId: p.projectId } },
        body: { contentBase64: Buffer.from(text).toString('base64'), fileName: path.basename(rel) },
      });
      t.is(r.response.status, 200, JSON.stringify(r.error));
      t.is(r.data!.created, original.entries.length);
      const live = await liveCatalog(svc.service.app.db, p.projectId, format);
      const rendered = getFormat(format).render(live, { languages: [base, ...langs], baseLanguage: base });
      const back = parsed(rendered);
      t.deepEqual(essence(back), essence(original));
      t.deepEqual(
        back.entries.map((e) => e.fileKey),
        original.entries.map((e) => e.fileKey),
        'same keys in the same order',
      );
      // And out of a publish, pulled in its own format: the same catalog again.
      const v = await p.client.POST('/projects/{projectId}/publish', {
        params: { path: { projectId: p.projectId } },
        body: { incompleteMode: 'skip' },
      });
      t.is(v.response.status, 201, JSON.stringify(v.error));
      const query = new URLSearchParams({
        version: v.data!.versionId,
        format,
        ...(format === 'xcstrings' ? {} : { lang: normalizeLanguage(base) }),
      });
      const pulled = await fetch(`${svc.baseUrl}/projects/${p.projectId}/translations?${query}`, {
        headers: { authorization: `Bearer ${p.apiKey}` },
      });
      t.is(pulled.status, 200);
      const published = parsed(await pulled.text());
      t.deepEqual(essence(published), essence(original));
    },
  );
}
