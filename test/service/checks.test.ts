// Stored quality-check results (docs/guides/checks.md, docs/decisions/0025-stored-check-results.md), through the
// HTTP API: the sources' warnings in the translate and sync answers, each cell's results on the key read and the key
// list (and the list's check filters), the public list for CI with its filters, pages and refusals, the results
// every writer stores (an edit, an import, the fill, a changed source), approval refused on an error.
import test from 'ava';
import { previewSync, previewTranslate, sync, translate } from '../../packages/client/src/index.js';
import { openDb } from '../../server/infra/db.js';
import { migrationSource } from '../../server/infra/migrations/index.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  testDatabase,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { errorOf, hostile, readKey as readPlain, type Schemas } from '../helpers/typed.js';
import type { XcString, XcStrings } from '../helpers/xcstrings.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
/** The live translations of a key with their check results (`GET /translations?ref=&checks=true`). */
async function readKey(client: TestProject['client'], projectId: string, ref: string, lang?: string) {
  const r = await client.GET('/projects/{projectId}/translations', {
    params: { path: { projectId }, query: { ref, checks: 'true', ...(lang ? { lang } : {}) } },
  });
  return { data: r.data as Schemas['KeyTranslations'] | undefined, response: r.response };
}

const runDue = (p: TestProject) => svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
const path = (p: { projectId: string }) => ({ path: { projectId: p.projectId } });
const detail = async (p: TestProject, key: string) =>
  (await svc.admin.GET('/projects/{projectId}/keys/{key}', { params: { path: { projectId: p.projectId, key } } }))
    .data!;
const list = async (
  p: TestProject,
  query: { check?: string; severity?: 'error' | 'warning' | 'info'; lang?: string },
) => (await svc.admin.GET('/projects/{projectId}/keys', { params: { ...path(p), query } })).data!;
const edit = (
  p: TestProject,
  key: string,
  lang: string,
  body: { value?: string; status?: 'translated' | 'approved' },
) =>
  svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key, lang } },
    body,
  });
/** GET /checks; the query as given, even one that breaks its types (the refusals below). */
const checks = (p: TestProject, query: object = {}) =>
  p.client.GET('/projects/{projectId}/checks', { params: { ...path(p), query: hostile<{ limit?: number }>(query) } });
const ids = (results: Array<{ check: string }> | undefined) => (results ?? []).map((r) => r.check).sort();

/** A project of de and fr (manual: nothing is filled) with `units` pushed. */
async function project(units: Array<{ key: string; source: string }>, langs = ['de', 'fr']) {
  const p = await createTestProject(svc, { languages: langs.map((code) => ({ code, fillMode: 'manual' as const })) });
  if (units.length) {
    const r = await translate(p.client, p.projectId, { units, langs: [] });
    if (!r.data) throw new Error(JSON.stringify(r.error));
  }
  return p;
}

test('translate and sync answers name the sources that are not ICU, with unbalanced tags or a lone form argument', async (t) => {
  const p = await project([]);
  const units = [
    { key: 'lang.switch', source: 'Change to {{lang}}' },
    { key: 'files.left', forms: { one: '{count} file left', other: '{cuont} files left' } },
    { key: 'tap', source: 'Tap <b>Save to continue' },
    { key: 'fine', source: 'Save' },
  ];
  const preview = await previewTranslate(p.client, p.projectId, { units });
  const real = await translate(p.client, p.projectId, { units });
  for (const r of [preview.data!, real.data!]) {
    t.is(r.sourceWarningsTotal, 3);
    t.deepEqual(
      r.sourceWarnings!.map((w) => [w.key, w.check, w.severity]),
      [
        ['lang.switch', 'source-icu', 'error'],
        ['files.left', 'source-branch-arguments', 'warning'],
        ['tap', 'source-tags', 'warning'],
      ],
    );
    t.regex(r.sourceWarnings![0].message, /\{\{lang\}\} is i18next interpolation; ICU writes \{lang\}/);
    // The forms are stored as one plural message; the span is the lone `{cuont}` in it.
    const icu = '{count, plural, one {{count} file left} other {{cuont} files left}}';
    const at = icu.indexOf('{cuont}');
    t.deepEqual(r.sourceWarnings![1].spans, [{ start: at, end: at + 7 }]);
  }
  // A push of clean sources answers as before: no field at all.
  const clean = await translate(p.client, p.projectId, { units: [{ key: 'ok', source: 'Open' }] });
  t.false('sourceWarnings' in clean.data!);
  t.false('sourceWarningsTotal' in clean.data!);

  // A sync takes ICU values only (an i18next `{{name}}` is refused whole); what it takes is checked further.
  const catalog = {
    menu: 'Open <b>Settings',
    files: '{count, plural, one {{count} file} other {{cuont} files}}',
    plain: 'Fine',
  };
  const file = { contentBase64: b64(JSON.stringify(catalog)), fileName: 'en.json' };
  const dry = await previewSync(p.client, p.projectId, file);
  const done = await sync(p.client, p.projectId, file);
  for (const r of [dry.data!, done.data!]) {
    t.deepEqual(
      r.sourceWarnings!.map((w) => [w.key, w.check]),
      [
        ['menu', 'source-tags'],
        ['files', 'source-branch-arguments'],
      ],
    );
    t.regex(r.sourceWarnings![0].message, /unbalanced tags: <b>/);
  }
  // The sources are stored with their results: the key list shows them, and filters by them.
  const d = await detail(p, 'menu');
  t.deepEqual(ids(d.sourceChecks), ['source-tags']);
  t.deepEqual(
    (await list(p, { check: 'source-icu' })).keys.map((k) => k.key),
    ['lang.switch'],
  );
  t.deepEqual((await list(p, { check: 'source-tags' })).keys.map((k) => k.key).sort(), ['menu', 'tap']);
  t.false('sourceChecks' in (await detail(p, 'plain')));
});

test('each cell carries its results on the key read, the key list and the editor; the list filters by check and severity', async (t) => {
  const p = await project([
    { key: 'greeting', source: 'Hello {name}!' },
    { key: 'delete', source: 'Delete this file?' },
  ]);
  t.is((await edit(p, 'greeting', 'de', { value: 'Hallo!' })).response.status, 200);
  t.is((await edit(p, 'delete', 'fr', { value: 'Supprimer ce fichier?' })).response.status, 200);
  t.is((await edit(p, 'delete', 'de', { value: 'Diese Datei löschen?' })).response.status, 200);

  const read = (await readKey(p.client, p.projectId, 'greeting')).data!.translations;
  t.deepEqual(ids(read.de.checks), ['icu-placeholders']);
  t.like(read.de.checks![0], { severity: 'error', field: 'target' });
  t.regex(read.de.checks![0].message, /name/);
  t.false('checks' in read.fr, 'a cell without a value has no results');
  const plain = (await readPlain(p.client, p.projectId, 'greeting', 'de')).data!.translations.de;
  t.deepEqual(plain, { status: 'translated', value: 'Hallo!' }, 'a read that does not ask reads as before');
  const fr = (await readKey(p.client, p.projectId, 'delete', 'fr')).data!.translations.fr;
  t.deepEqual(ids(fr.checks), ['french-spacing']);
  t.deepEqual(fr.checks![0].spans, [{ start: 20, end: 21 }], 'the question mark without its no-break space');
  t.deepEqual((await readKey(p.client, p.projectId, 'delete', 'de')).data!.translations.de, {
    status: 'translated',
    value: 'Diese Datei löschen?',
  });

  const all = await list(p, {});
  const cell = (key: string, lang: string) => all.keys.find((k) => k.key === key)!.cells.find((c) => c.lang === lang)!;
  t.deepEqual(ids(cell('greeting', 'de').checks), ['icu-placeholders']);
  t.false('checks' in cell('delete', 'de'));
  t.deepEqual(ids((await detail(p, 'delete')).cells.find((c) => c.lang === 'fr')!.checks), ['french-spacing']);

  t.deepEqual(
    (await list(p, { severity: 'error' })).keys.map((k) => k.key),
    ['greeting'],
  );
  t.deepEqual(
    (await list(p, { check: 'french-spacing' })).keys.map((k) => k.key),
    ['delete'],
  );
  t.is((await list(p, { check: 'french-spacing', lang: 'de' })).total, 0);
  t.is((await list(p, { check: 'french-spacing', severity: 'error' })).total, 0);
  t.is((await list(p, { check: 'french-spacing', severity: 'warning' })).total, 1);
  // The filter takes a check id's shape only.
  const bad = await svc.admin.GET('/projects/{projectId}/keys', {
    params: { ...path(p), query: { check: 'Not An Id' } },
  });
  t.is(bad.response.status, 400);
});

test('every writer stores the results: a fill, an import, and a source change checks the key again', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'ja' }, { code: 'de', fillMode: 'manual' }] });
  await translate(p.client, p.projectId, { units: [{ key: 'open', source: 'Open settings' }] });
  await runDue(p);
  // The pseudo engine writes Latin letters into Japanese: the fill stored the result.
  const ja = (await readKey(p.client, p.projectId, 'open', 'ja')).data!.translations.ja;
  t.is(ja.status, 'translated');
  t.deepEqual(ids(ja.checks), ['target-script']);

  const imported = await p.client.POST('/projects/{projectId}/imports', {
    params: path(p),
    body: { contentBase64: b64(JSON.stringify({ open: 'Einstellungen  öffnen' })), lang: 'de', fileName: 'de.json' },
  });
  t.is(imported.response.status, 200);
  t.deepEqual(ids((await readKey(p.client, p.projectId, 'open', 'de')).data!.translations.de.checks), ['double-space']);

  // A new source with an argument the stored values lack: the key's cells are checked again.
  await translate(p.client, p.projectId, { units: [{ key: 'open', source: 'Open {app} settings' }], langs: [] });
  const after = (await readKey(p.client, p.projectId, 'open')).data!.translations;
  t.true(ids(after.de.checks).includes('icu-placeholders'));
  t.true(ids(after.ja.checks).includes('icu-placeholders'));
  // A person's edit replaces them.
  await edit(p, 'open', 'de', { value: 'Einstellungen von {app} öffnen' });
  t.false('checks' in (await readKey(p.client, p.projectId, 'open', 'de')).data!.translations.de);
});

test('GET /checks lists the failures for CI: filters, pages and totals', async (t) => {
  const p = await project([
    { key: 'a.greeting', source: 'Hello {name}!' },
    { key: 'b.delete', source: 'Delete this file?' },
    { key: 'c.switch', source: 'Change to {{lang}}' },
    { key: 'd.fine', source: 'Fine' },
  ]);
  await edit(p, 'a.greeting', 'de', { value: 'Hallo!' });
  await edit(p, 'a.greeting', 'fr', { value: 'Bonjour  {name}\u00a0!' });
  await edit(p, 'b.delete', 'fr', { value: 'Supprimer ce fichier?' });
  await edit(p, 'd.fine', 'de', { value: 'Gut' });

  const whole = (await checks(p)).data!;
  t.is(whole.nextCursor, null);
  t.false(whole.checking);
  t.deepEqual(
    whole.results.map((r) => `${r.key} ${r.lang} ${r.check} ${r.severity}`),
    [
      'a.greeting de icu-placeholders error',
      'a.greeting fr double-space warning',
      'b.delete fr french-spacing warning',
      'c.switch en source-icu error',
    ],
  );
  t.deepEqual(whole.totals, { error: 2, warning: 2, info: 0 });
  t.like(whole.results[1], { field: 'target', text: 'Bonjour  {name}\u00a0!', spans: [{ start: 7, end: 9 }] });
  t.like(whole.results[3], { field: 'source', text: 'Change to {{lang}}' });

  // One row a page: the same rows, in the same order, and the last page says so.
  const paged: string[] = [];
  let cursor: string | null | undefined;
  do {
    const page = (await checks(p, { limit: 1, ...(cursor ? { cursor } : {}) })).data!;
    t.true(page.results.length <= 1);
    paged.push(...page.results.map((r) => `${r.key} ${r.lang} ${r.check}`));
    cursor = page.nextCursor;
  } while (cursor);
  t.deepEqual(
    paged,
    whole.results.map((r) => `${r.key} ${r.lang} ${r.check}`),
  );

  const errors = (await checks(p, { severity: 'error' })).data!;
  t.deepEqual(
    errors.results.map((r) => r.key),
    ['a.greeting', 'c.switch'],
  );
  t.deepEqual(errors.totals, whole.totals, 'totals do not depend on the severity asked for');
  const fr = (await checks(p, { lang: 'fr' })).data!;
  t.deepEqual(
    fr.results.map((r) => r.check),
    ['double-space', 'french-spacing'],
  );
  t.deepEqual(fr.totals, { error: 0, warning: 2, info: 0 });
  const one = (await checks(p, { check: 'french-spacing' })).data!;
  t.deepEqual(
    one.results.map((r) => r.key),
    ['b.delete'],
  );
  t.deepEqual(one.totals, { error: 0, warning: 1, info: 0 });
  t.deepEqual((await checks(p, { lang: 'en', severity: 'error' })).data!.results.length, 1, 'the sources');

  // Refusals: documented 400s, nothing listed.
  for (const query of [
    { lang: 'ja' },
    { lang: 'not a language!' },
    { cursor: 'bm90IGEgY3Vyc29y' },
    { cursor: '!!' },
    { severity: 'fatal' },
    { check: 'Not An Id' },
    { limit: 0 },
    { limit: 501 },
  ]) {
    const r = await checks(p, query);
    t.is(r.response.status, 400, JSON.stringify(query));
    t.is(errorOf(r)!.error, 'invalid_argument');
  }
  // A key switched off is not published, and not listed.
  await svc.admin.PATCH('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key: 'c.switch' } },
    body: { enabled: false },
  });
  t.deepEqual((await checks(p, { severity: 'error' })).data!.totals.error, 1);
  // A read key may list; a key without `read` may not.
  const reader = svc.client(await createTestKey(svc, p.projectId, ['read']));
  t.is((await reader.GET('/projects/{projectId}/checks', { params: path(p) })).response.status, 200);
  const pusher = svc.client(await createTestKey(svc, p.projectId, ['translate']));
  t.is((await pusher.GET('/projects/{projectId}/checks', { params: path(p) })).response.status, 403);
});

test('an error blocks approving the cell: the single save and the bulk approval refuse it, naming the checks', async (t) => {
  const p = await project([
    { key: 'greeting', source: 'Hello {name}!' },
    { key: 'bye', source: 'Goodbye' },
  ]);
  const refused = await edit(p, 'greeting', 'de', { value: 'Hallo!', status: 'approved' });
  t.is(refused.response.status, 409);
  const e = errorOf(refused)!;
  t.is(e.error, 'checks_failed');
  t.regex(e.message, /icu-placeholders/);
  t.deepEqual(ids(e.checks as Schemas['CheckResult'][]), ['icu-placeholders']);
  t.is((await readKey(p.client, p.projectId, 'greeting', 'de')).data!.translations.de.status, 'pending');

  // Saved as a draft it is stored with its results; approving it alone is refused too.
  t.is((await edit(p, 'greeting', 'de', { value: 'Hallo!' })).response.status, 200);
  t.is((await edit(p, 'greeting', 'de', { status: 'approved' })).response.status, 409);
  await edit(p, 'bye', 'de', { value: 'Tschüss' });
  await edit(p, 'bye', 'fr', { value: 'Au revoir' });
  const bulk = await svc.admin.POST('/projects/{projectId}/keys/bulk-review', {
    params: path(p),
    body: { filter: {}, action: 'approve' },
  });
  t.deepEqual(bulk.data, {
    affected: 2,
    refused: [{ key: 'greeting', lang: 'de', checks: ['icu-placeholders'] }],
    refusedTotal: 1,
  });
  t.is((await readKey(p.client, p.projectId, 'greeting', 'de')).data!.translations.de.status, 'translated');
  t.is((await readKey(p.client, p.projectId, 'bye', 'fr')).data!.translations.fr.status, 'approved');
  // Fixed, it is approved like any other; a review (not an approval) never was refused.
  t.is((await edit(p, 'greeting', 'de', { value: 'Hallo {name}!', status: 'approved' })).response.status, 200);
  const again = await svc.admin.POST('/projects/{projectId}/keys/bulk-review', {
    params: path(p),
    body: { filter: {}, action: 'approve' },
  });
  t.deepEqual(again.data, { affected: 0 });
});

test('the migration queues a re-check of every project there is, which stores their results', async (t) => {
  const target = await testDatabase({ empty: true });
  const old = openDb(target.url);
  let upgraded: TestService | undefined;
  let closed = false;
  try {
    // Every migration before 028, as a database of the release before it holds them.
    for (;;) {
      const [, pending] = (await old.migrate.list({ migrationSource })) as [unknown, Array<{ file?: string } | string>];
      const next = pending.map((m) => (typeof m === 'string' ? m : (m.file ?? '')))[0];
      if (!next || next >= '028') break;
      await old.migrate.up({ migrationSource });
    }
    const now = Date.now();
    await old('workspaces').insert({ id: 'w_old', name: 'old', balance_mc: 0, created_at: now, updated_at: now });
    await old('projects').insert({
      id: 'p_old',
      workspace_id: 'w_old',
      name: 'old',
      handle: 'old-1',
      slug: 'old',
      base_lang: 'en',
      output_formats: '[]',
      created_at: now,
      updated_at: now,
    });
    await old('project_content').insert({ project_id: 'p_old', content_rev: 0 });
    await old('project_languages').insert({
      project_id: 'p_old',
      code: 'de',
      fill_mode: 'manual',
      created_at: now,
      updated_at: now,
    });
    const [keyId] = await old('keys').insert({
      project_id: 'p_old',
      name: 'greeting',
      token: 't'.repeat(32),
      source: 'Hello {name}!',
      enabled: true,
      source_verified: false,
      captured: false,
      source_updated_at: now,
      created_at: now,
      updated_at: now,
    });
    await old('translations').insert({
      key_id: keyId,
      lang: 'de',
      project_id: 'p_old',
      value: 'Hallo!',
      status: 'translated',
      origin: 'edit',
      updated_at: now,
    });
    await old.destroy();
    closed = true;
    upgraded = await startTestService({}, target.url);
    const p = { projectId: 'p_old', client: upgraded.client() };
    const settings = await upgraded.admin.GET('/projects/{projectId}/checks/settings', { params: path(p) });
    t.deepEqual(settings.data, { settings: {}, checking: true });
    await upgraded.admin.POST('/jobs/run-due', { body: { projectId: 'p_old' } });
    const d = await upgraded.admin.GET('/projects/{projectId}/keys/{key}', {
      params: { path: { projectId: 'p_old', key: 'greeting' } },
    });
    t.deepEqual(ids(d.data!.cells[0].checks), ['icu-placeholders']);
    t.false((await upgraded.admin.GET('/projects/{projectId}/checks/settings', { params: path(p) })).data!.checking);
  } finally {
    if (!closed) await old.destroy();
    await upgraded?.stop();
    await target.drop();
  }
});

test('a write of more cells than a writer checks itself leaves them to a job, which checks them at once', async (t) => {
  const p = await project([], ['de', 'fr', 'it']);
  const strings: Record<string, XcString> = {};
  for (let i = 0; i < 700; i++)
    strings[`item.${i}`] = {
      localizations: {
        en: { stringUnit: { state: 'translated', value: `Item ${i}.` } },
        de: { stringUnit: { state: 'translated', value: `Artikel ${i}` } },
        fr: { stringUnit: { state: 'translated', value: `Article ${i}.` } },
        it: { stringUnit: { state: 'translated', value: `Articolo ${i}.` } },
      },
    };
  const catalog: XcStrings = { sourceLanguage: 'en', version: '1.0', strings };
  const r = await sync(p.client, p.projectId, {
    contentBase64: b64(JSON.stringify(catalog)),
    fileName: 'Localizable.xcstrings',
  });
  t.is(r.response.status, 200, JSON.stringify(r.error));
  t.is(r.data!.created, 700);
  // 2,100 values: more than a writer checks itself. A job queued with them checks them.
  t.false('checks' in (await readKey(p.client, p.projectId, 'item.7', 'de')).data!.translations.de);
  await runDue(p);
  t.deepEqual(ids((await readKey(p.client, p.projectId, 'item.7', 'de')).data!.translations.de.checks), ['end-stop']);
  t.false('checks' in (await readKey(p.client, p.projectId, 'item.7', 'fr')).data!.translations.fr);
  t.is((await checks(p, { check: 'end-stop', lang: 'de' })).data!.totals.warning, 700);
});
