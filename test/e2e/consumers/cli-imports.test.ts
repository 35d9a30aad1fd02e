// The translations a team already has (packages/cli/src/imports.ts): an Android app with human `values-pl` and
// `values-fr` files whose first `glossa push` uploads them through POST /imports before anything is queued (no pair of
// pl or fr is sent to the engine), and whose first `glossa pull` changes no line of them. The real CLI in-process
// against a real service.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { glossa, glossaConfig, repo } from '../../helpers/cli.js';
import { createTestProject, startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const BASE = `<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="app_name">Glossa demo</string>
    <string name="welcome">Welcome back, %1$s!</string>
    <string name="save">Save</string>
    <plurals name="files_count">
        <item quantity="one">%d file</item>
        <item quantity="other">%d files</item>
    </plurals>
</resources>
`;

const POLISH = `<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="app_name">Glossa demo</string>
    <string name="welcome">Witaj ponownie, %1$s!</string>
    <string name="save">Zapisz</string>
    <plurals name="files_count">
        <item quantity="one">%d plik</item>
        <item quantity="few">%d pliki</item>
        <item quantity="many">%d plików</item>
        <item quantity="other">%d pliku</item>
    </plurals>
</resources>
`;

const FRENCH = `<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="app_name">Glossa démo</string>
    <string name="welcome">Bon retour, %1$s !</string>
    <string name="save">Enregistrer</string>
    <plurals name="files_count">
        <item quantity="one">%d fichier</item>
        <item quantity="many">%d de fichiers</item>
        <item quantity="other">%d fichiers</item>
    </plurals>
</resources>
`;

const ANDROID = {
  source: 'res/values/strings.xml',
  format: 'android_xml',
  template: 'res/values-{android}/strings.xml',
};

test('Android: the first push uploads the human values-pl and values-fr, pays nothing for them, and the first pull keeps every line', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'pl' }, { code: 'fr' }, { code: 'de' }] });
  const cwd = repo({
    'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId, [ANDROID]),
    'res/values/strings.xml': BASE,
    'res/values-pl/strings.xml': POLISH,
    'res/values-fr/strings.xml': FRENCH,
  });
  const env = { GLOSSA_API_KEY: p.apiKey };
  const db = svc.service.app.db;

  // A dry run before anything exists: the keys are not there yet, so every entry is unknown; nothing is written.
  const dry = await glossa(['push', '--dry-run'], { cwd, env });
  t.is(dry.code, 0, dry.stderr);
  t.regex(
    dry.stdout,
    /res\/values-pl\/strings\.xml: would import 0 new, 0 updated, 0 unchanged, 0 kept over the file, 4 unknown keys/,
  );
  t.is((await db('keys').where({ project_id: p.projectId })).length, 0);

  const pushed = await glossa(['push'], { cwd, env });
  t.is(pushed.code, 0, pushed.stderr);
  t.regex(
    pushed.stdout,
    /res\/values-pl\/strings\.xml: imported 4 new, 0 updated, 0 unchanged, 0 kept over the file, 0 unknown keys/,
  );
  t.regex(pushed.stdout, /res\/values-fr\/strings\.xml: imported 4 new/);

  // Nothing of pl or fr went to the engine: every pair queued is German.
  const queued = await db('fill_pairs')
    .join('fill_jobs', 'fill_jobs.id', 'fill_pairs.job_id')
    .where('fill_jobs.project_id', p.projectId)
    .select('fill_pairs.lang');
  t.deepEqual([...new Set(queued.map((r: { lang: string }) => r.lang))], ['de']);
  t.is(queued.length, 4);
  const cells = await db('translations')
    .where({ project_id: p.projectId })
    .whereIn('lang', ['pl', 'fr'])
    .select<Array<{ origin: string; status: string }>>('origin', 'status');
  t.is(cells.length, 8);
  t.true(cells.every((c) => c.origin === 'import' && c.status === 'translated'));

  await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  t.is((await glossa(['wait'], { cwd, env })).code, 0);
  t.is((await glossa(['publish'], { cwd, env })).code, 0);
  const pulled = await glossa(['pull'], { cwd, env });
  t.is(pulled.code, 0, pulled.stderr);
  t.is(readFileSync(path.join(cwd, 'res/values-pl/strings.xml'), 'utf8'), POLISH);
  t.is(readFileSync(path.join(cwd, 'res/values-fr/strings.xml'), 'utf8'), FRENCH);
  t.regex(readFileSync(path.join(cwd, 'res/values-de/strings.xml'), 'utf8'), /<string name="save">/);

  // The next push has state: it imports nothing and queues nothing; --import-translations uploads again, unchanged.
  const again = await glossa(['push'], { cwd, env });
  t.is(again.code, 0, again.stderr);
  t.notRegex(again.stdout, /imported/);
  t.regex(again.stdout, /0 mc/);
  const asked = await glossa(['push', '--import-translations'], { cwd, env });
  t.is(asked.code, 0, asked.stderr);
  t.regex(asked.stdout, /res\/values-pl\/strings\.xml: imported 0 new, 0 updated, 4 unchanged/);
});

test('a person edits values-pl and pushes with --import-translations: the newer import replaces the old one; an AI value is kept', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'pl' }] });
  const cwd = repo({
    'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId, [ANDROID]),
    'res/values/strings.xml': BASE,
    'res/values-pl/strings.xml': POLISH.replace(/\n {4}<string name="save">Zapisz<\/string>/, ''),
  });
  const env = { GLOSSA_API_KEY: p.apiKey };
  // Polish is the only language and it has a file: the first batches name no language (keys only), then Polish.
  const first = await glossa(['push'], { cwd, env });
  t.is(first.code, 0, first.stderr);
  t.regex(first.stdout, /pl after the import: \d+ mc/);
  await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  t.is((await glossa(['wait', '--timeout', '30'], { cwd, env })).code, 0, 'the engine filled `save`');
  // `save` had no Polish: the engine filled it. The team now writes its own, and edits another.
  const edited = POLISH.replace('Zapisz', 'Zachowaj').replace('Witaj ponownie', 'Cześć');
  writeFileSync(path.join(cwd, 'res/values-pl/strings.xml'), edited);
  const r = await glossa(['push', '--import-translations'], { cwd, env });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /imported 0 new, 1 updated, 2 unchanged, 1 kept over the file/);
  t.regex(r.stdout, /save \[pl\]: the project's translated value kept/);
});

test('i18next JSON: the first push holds de out of the sync, imports locales/de.json, then queues only what it lacks', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
  const de = `${JSON.stringify({ title: 'Willkommen', save: 'Speichern' }, null, 2)}\n`;
  const cwd = repo({
    'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId, [
      { source: 'locales/en.json', format: 'json', template: 'locales/{locale}.json' },
    ]),
    'locales/en.json': { title: 'Welcome', save: 'Save', cancel: 'Cancel' },
    'locales/de.json': de,
  });
  const env = { GLOSSA_API_KEY: p.apiKey };
  const pushed = await glossa(['push'], { cwd, env });
  t.is(pushed.code, 0, pushed.stderr);
  t.regex(pushed.stdout, /locales\/de\.json: imported 2 new/);
  const queued = await svc.service.app
    .db('fill_pairs')
    .join('fill_jobs', 'fill_jobs.id', 'fill_pairs.job_id')
    .where('fill_jobs.project_id', p.projectId)
    .select<Array<{ lang: string; key_id: number }>>('fill_pairs.lang', 'fill_pairs.key_id');
  // fr: every key; de: only `cancel`, which the team's file lacks.
  t.is(queued.filter((q) => q.lang === 'fr').length, 3);
  t.is(queued.filter((q) => q.lang === 'de').length, 1);
  await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  t.is((await glossa(['wait'], { cwd, env })).code, 0);
  t.is((await glossa(['publish'], { cwd, env })).code, 0);
  t.is((await glossa(['pull'], { cwd, env })).code, 0);
  const pulled = JSON.parse(readFileSync(path.join(cwd, 'locales/de.json'), 'utf8')) as Record<string, string>;
  t.like(pulled, { title: 'Willkommen', save: 'Speichern' });
  t.truthy(pulled.cancel);
});

test('an Android app set up by glossa init: its file is the whole catalog of its namespace, its human translations go there, a deleted string is disabled', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'pl' }, { code: 'fr' }, { code: 'de' }] });
  const cwd = repo({
    'res/values/strings.xml': BASE,
    'res/values-pl/strings.xml': POLISH,
    'res/values-fr/strings.xml': FRENCH,
  });
  const init = await glossa(['init', '--base-url', svc.baseUrl, '--project', p.projectId], { cwd });
  t.is(init.code, 0, init.stderr);
  const config = JSON.parse(readFileSync(path.join(cwd, 'glossa.config.json'), 'utf8')) as { files: object[] };
  t.deepEqual(config.files, [{ ...ANDROID, namespace: 'strings' }]);
  const env = { GLOSSA_API_KEY: p.apiKey };
  const db = svc.service.app.db;

  const pushed = await glossa(['push'], { cwd, env });
  t.is(pushed.code, 0, pushed.stderr);
  t.regex(pushed.stdout, /res\/values-pl\/strings\.xml: imported 4 new/);
  const keys = () =>
    db('keys').where({ project_id: p.projectId }).orderBy('name').select('namespace', 'name', 'enabled');
  t.true((await keys()).every((k) => k.namespace === 'strings'));
  const queued = await db('fill_pairs')
    .join('fill_jobs', 'fill_jobs.id', 'fill_pairs.job_id')
    .where('fill_jobs.project_id', p.projectId)
    .distinct('fill_pairs.lang');
  t.deepEqual(
    queued.map((r) => r.lang),
    ['de'],
    'the human pl and fr are not paid for again',
  );
  await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  t.is((await glossa(['wait'], { cwd, env })).code, 0);
  t.is((await glossa(['publish'], { cwd, env })).code, 0);
  const pulled = await glossa(['pull'], { cwd, env });
  t.is(pulled.code, 0, pulled.stderr);
  t.is(readFileSync(path.join(cwd, 'res/values-pl/strings.xml'), 'utf8'), POLISH);

  // A string deleted from the base file is disabled on the next push (the file is its namespace's whole catalog).
  writeFileSync(path.join(cwd, 'res/values/strings.xml'), BASE.replace(/ *<string name="save">[^<]*<\/string>\n/, ''));
  const pruned = await glossa(['push'], { cwd, env });
  t.is(pruned.code, 0, pruned.stderr);
  t.regex(pruned.stdout, /1 orphans disabled/);
  const save = (await keys()).find((k) => k.name === 'save');
  t.is(Number(save?.enabled), 0);
});
