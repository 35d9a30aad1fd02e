// Real repositories through the `glossa` CLI against a running service: what an existing app's files hold is taken
// as its platform means it (react-i18next's numbered tags, Android's `translatable="false"`, gettext templates),
// and a pull never destroys local work (an xcstrings file's other languages, translations the project never saw).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { createTestProject, startTestService, type TestService } from '../../helpers/service.js';
import { glossa, repo } from '../../helpers/cli.js';

let svc: TestService;
const dirs: string[] = [];
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const runDue = (projectId: string) => svc.admin.POST('/jobs/run-due', { body: { projectId } });
const balance = async (projectId: string) =>
  (await svc.admin.GET('/projects/{projectId}/overview', { params: { path: { projectId } } })).data!.workspace;

function project(files: Record<string, string | object>) {
  const d = repo(files);
  dirs.push(d);
  return d;
}

const read = (cwd: string, f: string) => readFileSync(path.join(cwd, f), 'utf8');

test('react-i18next: numbered tags <1>…</1> and <0/> are markup; the app reaches 100% and the tags survive', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const cwd = project({
    'glossa.config.json': {
      baseUrl: svc.baseUrl,
      projectId: p.projectId,
      files: [{ source: 'public/locales/en.json', format: 'json', template: 'public/locales/{locale}.json' }],
    },
    'public/locales/en.json': {
      intro: 'Hello <1>{{name}}</1>, you have <3>{{count}} new</3> messages.<5/>',
      terms: 'Read the <1>terms</1>.',
    },
  });
  const env = { GLOSSA_API_KEY: p.apiKey };
  const pushed = await glossa(['push'], { cwd, env });
  t.is(pushed.code, 0, pushed.stderr);
  await runDue(p.projectId);
  const waited = await glossa(['wait', '--strict'], { cwd, env });
  t.is(waited.code, 0, waited.stdout + waited.stderr);
  const st = await glossa(['status', '--fail-if-incomplete', '--gates'], { cwd, env });
  t.is(st.code, 0, st.stdout + st.stderr);
  t.regex(st.stdout, /de\s+100%/);
  t.is((await glossa(['publish', '--require-complete', '--strict'], { cwd, env })).code, 0);
  t.is((await glossa(['pull'], { cwd, env })).code, 0);
  const de = JSON.parse(read(cwd, 'public/locales/de.json')) as Record<string, string>;
  t.regex(de.intro, /<1>\{\{name\}\}<\/1>.*<3>.*\{\{count\}\}.*<\/3>.*<5\/>/);
  t.regex(de.terms, /<1>.+<\/1>/);
});

const ANDROID_BASE = `<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="app_name" translatable="false">Glossa</string>
    <string name="welcome">Welcome back, %1$s!</string>
    <string name="save">Save</string>
    <string name="support_url" translatable="false">https://example.com/support</string>
</resources>
`;

test('Android translatable="false": not pushed, not charged, and a pull writes it only in the base file', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'pl' }] });
  const cwd = project({
    'glossa.config.json': {
      baseUrl: svc.baseUrl,
      projectId: p.projectId,
      files: [
        { source: 'res/values/strings.xml', format: 'android_xml', template: 'res/values-{android}/strings.xml' },
      ],
    },
    'res/values/strings.xml': ANDROID_BASE,
  });
  const env = { GLOSSA_API_KEY: p.apiKey };
  const dry = await glossa(['--json', 'push', '--dry-run'], { cwd, env });
  t.is(dry.code, 0, dry.stderr);
  const estimate = (
    JSON.parse(dry.stdout) as { report: Array<{ units: number; preview: { estimatedCredits: number } }> }
  ).report[0];
  t.is(estimate.units, 2, 'welcome and save only');
  const before = await balance(p.projectId);
  const pushed = await glossa(['--json', 'push'], { cwd, env });
  t.is(pushed.code, 0, pushed.stderr);
  t.is((JSON.parse(pushed.stdout) as { report: Array<{ units: number }> }).report[0].units, 2);
  await runDue(p.projectId);
  t.is((await glossa(['wait', '--strict'], { cwd, env })).code, 0);
  const after = await balance(p.projectId);
  t.true(after.balanceMc < before.balanceMc, 'the two strings were paid for');
  t.true(before.balanceMc - after.balanceMc <= estimate.preview.estimatedCredits, 'and nothing more');
  const keys = await svc.admin.GET('/projects/{projectId}/keys', { params: { path: { projectId: p.projectId } } });
  t.deepEqual(keys.data!.keys.map((k) => k.key).sort(), ['save', 'welcome']);
  t.is((await glossa(['publish', '--require-complete'], { cwd, env })).code, 0);
  t.is((await glossa(['pull'], { cwd, env })).code, 0);
  for (const lang of ['de', 'pl']) {
    const xml = read(cwd, `res/values-${lang}/strings.xml`);
    t.regex(xml, /name="welcome"/);
    t.notRegex(xml, /app_name|support_url/, `values-${lang} leaves the untranslatable strings to the base file`);
  }
  t.is(read(cwd, 'res/values/strings.xml'), ANDROID_BASE, 'the base file keeps them');
});

test('Android translatable="false" pushed before: a pull still writes it only in the base file', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  // What an earlier CLI did: every string of the base file pushed as a unit, app_name included.
  const before = await p.client.POST('/projects/{projectId}/translate', {
    params: { path: { projectId: p.projectId } },
    body: { units: [{ key: 'app_name', source: 'Glossa' }] },
  });
  t.truthy(before.data, JSON.stringify(before.error));
  const cwd = project({
    'glossa.config.json': {
      baseUrl: svc.baseUrl,
      projectId: p.projectId,
      files: [
        { source: 'res/values/strings.xml', format: 'android_xml', template: 'res/values-{android}/strings.xml' },
      ],
    },
    'res/values/strings.xml': ANDROID_BASE,
  });
  const env = { GLOSSA_API_KEY: p.apiKey };
  t.is((await glossa(['push'], { cwd, env })).code, 0);
  await runDue(p.projectId);
  t.is((await glossa(['wait'], { cwd, env })).code, 0);
  t.is((await glossa(['publish'], { cwd, env })).code, 0);
  const served = await svc.admin.GET('/projects/{projectId}/keys', { params: { path: { projectId: p.projectId } } });
  t.true(
    served.data!.keys.some((k) => k.key === 'app_name'),
    'the project still holds it',
  );
  t.is((await glossa(['pull'], { cwd, env })).code, 0);
  const de = read(cwd, 'res/values-de/strings.xml');
  t.regex(de, /<string name="welcome">/);
  t.regex(de, /<string name="save">/);
  t.notRegex(de, /app_name/);
});

const POT = `# Translations template for app.
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n"

#: app.py:10
msgid "Save changes"
msgstr ""

#: app.py:12
msgctxt "menu"
msgid "Open"
msgstr ""

#: app.py:20
#, python-brace-format
msgid "{n} file deleted"
msgid_plural "{n} files deleted"
msgstr[0] ""
msgstr[1] ""
`;

test('gettext: init finds a .pot; it and a base .po with empty msgstr push their msgids; msgfmt takes the pull', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'pl' }] });
  const cwd = project({
    'po/app.pot': POT,
    'web/locale/messages.pot': POT,
    'web/locale/en/LC_MESSAGES/messages.po': POT,
  });
  const made = await glossa(['init', '--base-url', svc.baseUrl, '--project', p.projectId], { cwd });
  t.is(made.code, 0, made.stderr);
  const config = JSON.parse(read(cwd, 'glossa.config.json')) as { files: object[] };
  t.deepEqual(config.files, [
    {
      source: 'web/locale/en/LC_MESSAGES/messages.po',
      format: 'po',
      template: 'web/locale/{posix}/LC_MESSAGES/messages.po',
    },
    { source: 'po/app.pot', format: 'po', template: 'po/{posix}.po' },
  ]);
  const env = { GLOSSA_API_KEY: p.apiKey };
  const dry = await glossa(['--json', 'push', '--dry-run'], { cwd, env });
  t.is(dry.code, 0, dry.stderr);
  // Two files: each the whole catalog of its namespace (packages/cli/src/config.ts), synced.
  t.deepEqual(
    (JSON.parse(dry.stdout) as { report: Array<{ sync?: { created: number } }> }).report.map((r) => r.sync?.created),
    [3, 3],
    'three msgids from each file',
  );
  // The template alone: its three msgids, the plural as a plural.
  config.files.shift();
  const gnu = project({ 'glossa.config.json': config, 'po/app.pot': POT });
  const pushed = await glossa(['--json', 'push'], { cwd: gnu, env });
  t.is(pushed.code, 0, pushed.stderr);
  t.regex(pushed.stdout, /"units":3/);
  await runDue(p.projectId);
  t.is((await glossa(['wait', '--strict'], { cwd: gnu, env })).code, 0);
  const st = await glossa(['status', '--fail-if-incomplete'], { cwd: gnu, env });
  t.is(st.code, 0, st.stdout);
  t.regex(st.stdout, /de\s+100%/);
  t.is((await glossa(['publish', '--require-complete'], { cwd: gnu, env })).code, 0);
  const pulled = await glossa(['pull'], { cwd: gnu, env });
  t.is(pulled.code, 0, pulled.stderr);
  for (const lang of ['de', 'pl']) {
    const po = read(gnu, `po/${lang}.po`);
    t.regex(po, /msgid "Save changes"\nmsgstr "[^"]+"/);
    t.regex(po, /msgctxt "menu"\nmsgid "Open"\nmsgstr "[^"]+"/);
    t.regex(po, /msgid_plural "\{n\} files deleted"/);
    const check = spawnSync('msgfmt', ['--check', '-o', '/dev/null', path.join(gnu, `po/${lang}.po`)], {
      encoding: 'utf8',
    });
    t.is(check.status, 0, check.stderr);
  }
  t.is(read(gnu, 'po/app.pot'), POT, 'the template is left as it is');
});

const COUNT = readFileSync(
  path.resolve(import.meta.dirname, '../../fixtures/catalogs/xcstrings/coteditor-Count.xcstrings'),
  'utf8',
);
const languagesOf = (text: string) => {
  const j = JSON.parse(text) as { strings: Record<string, { localizations?: Record<string, unknown> }> };
  return Object.fromEntries(Object.entries(j.strings).map(([k, e]) => [k, Object.keys(e.localizations ?? {}).sort()]));
};

test("xcstrings: CotEditor's 11-language Count.xcstrings pulled into a 4-language project keeps all 11, with a warning", async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }, { code: 'ja' }] });
  const cwd = project({
    'glossa.config.json': {
      baseUrl: svc.baseUrl,
      projectId: p.projectId,
      files: [{ source: 'CotEditor/Count.xcstrings', format: 'xcstrings' }],
    },
    'CotEditor/Count.xcstrings': COUNT,
  });
  const env = { GLOSSA_API_KEY: p.apiKey };
  const outside =
    /CotEditor\/Count\.xcstrings: en-GB, es, it, pt, tr, zh-Hans, zh-Hant are not languages of the project: the push leaves them out and a pull keeps them/;
  const dry = await glossa(['push', '--dry-run'], { cwd, env });
  t.is(dry.code, 0, dry.stderr);
  t.regex(dry.stderr, outside, 'said at the dry run');
  const pushed = await glossa(['push'], { cwd, env });
  t.is(pushed.code, 0, pushed.stderr);
  t.regex(pushed.stderr, outside, 'and at the push');
  await runDue(p.projectId);
  t.is((await glossa(['wait'], { cwd, env })).code, 0);
  t.is((await glossa(['publish'], { cwd, env })).code, 0);
  const pulled = await glossa(['--json', 'pull'], { cwd, env });
  t.is(pulled.code, 0, pulled.stderr);
  t.regex(
    pulled.stderr,
    /CotEditor\/Count\.xcstrings: kept en-GB, es, it, pt, tr, zh-Hans, zh-Hant from the local file/,
  );
  const after = read(cwd, 'CotEditor/Count.xcstrings');
  const langs = languagesOf(after);
  t.is(Object.keys(langs).length, 4);
  for (const l of Object.values(langs)) t.is(l.length, 11, l.join(','));
  t.deepEqual(langs, languagesOf(COUNT));
  t.is(after, COUNT, 'the project kept its values as the file had them, so the file is as it was');
  // A second pull: the same merge, nothing written.
  const again = await glossa(['--json', 'pull'], { cwd, env });
  t.is(again.code, 0, again.stderr);
  t.deepEqual((JSON.parse(again.stdout) as { written: string[] }).written, []);
});

const ANDROID_APP = `<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="save">Save</string>
    <string name="cancel">Cancel</string>
    <string name="open">Open</string>
</resources>
`;
const HUMAN_DE = `<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="save">Sichern</string>
    <string name="cancel">Abbrechen</string>
    <string name="gone">Weg</string>
</resources>
`;

test('pull refuses to overwrite local translations the project has never seen, naming them; --force replaces them', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
  const cwd = project({
    'glossa.config.json': {
      baseUrl: svc.baseUrl,
      projectId: p.projectId,
      files: [
        { source: 'res/values/strings.xml', format: 'android_xml', template: 'res/values-{android}/strings.xml' },
      ],
    },
    'res/values/strings.xml': ANDROID_APP,
  });
  const env = { GLOSSA_API_KEY: p.apiKey };
  t.is((await glossa(['push'], { cwd, env })).code, 0);
  // Written after the first push (which would have imported it: packages/cli/src/imports.ts), never pushed since.
  mkdirSync(path.join(cwd, 'res/values-de'));
  writeFileSync(path.join(cwd, 'res/values-de/strings.xml'), HUMAN_DE);
  await runDue(p.projectId);
  t.is((await glossa(['wait'], { cwd, env })).code, 0);
  t.is((await glossa(['publish'], { cwd, env })).code, 0);
  const refused = await glossa(['--json', 'pull'], { cwd, env });
  t.is(refused.code, 1, refused.stderr);
  t.regex(refused.stderr, /never seen \(nothing was written\)/);
  t.regex(
    refused.stderr,
    /res\/values-de\/strings\.xml: save, cancel\n/,
    'the human values, not the key gone from the project',
  );
  t.regex(refused.stderr, /--force/);
  t.like(JSON.parse(refused.stdout), { ok: false, exitCode: 1 });
  t.is(read(cwd, 'res/values-de/strings.xml'), HUMAN_DE, 'the human file is untouched');
  t.throws(() => read(cwd, 'res/values-fr/strings.xml'), undefined, 'nothing else was written either');
  // --force: the version's files.
  const forced = await glossa(['pull', '--force'], { cwd, env });
  t.is(forced.code, 0, forced.stderr);
  const machine = read(cwd, 'res/values-de/strings.xml');
  t.notRegex(machine, /Sichern|Weg/);
  // A value the project replaced since the last pull is the project's to replace: the next pull goes through.
  const edited = await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key: 'save', lang: 'de' } },
    body: { value: 'Speichern', status: 'reviewed' },
  });
  t.truthy(edited.data, JSON.stringify(edited.error));
  t.is((await glossa(['publish'], { cwd, env })).code, 0);
  const next = await glossa(['pull'], { cwd, env });
  t.is(next.code, 0, next.stderr);
  t.regex(read(cwd, 'res/values-de/strings.xml'), /<string name="save">Speichern<\/string>/);
  // A person's edit in the repository after that pull is refused again.
  writeFileSync(
    path.join(cwd, 'res/values-de/strings.xml'),
    read(cwd, 'res/values-de/strings.xml').replace('Speichern', 'Sichern'),
  );
  const edit = await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key: 'open', lang: 'de' } },
    body: { value: 'Öffnen', status: 'reviewed' },
  });
  t.truthy(edit.data);
  t.is((await glossa(['publish'], { cwd, env })).code, 0);
  const again = await glossa(['pull'], { cwd, env });
  t.is(again.code, 1);
  t.regex(again.stderr, /res\/values-de\/strings\.xml: save\n/);
});

test('a CI sync never disables a captured key awaiting review; capture keeps the key the app asked for', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const cwd = project({
    'glossa.config.json': {
      baseUrl: svc.baseUrl,
      projectId: p.projectId,
      files: [{ source: 'public/locales/en.json', format: 'json', template: 'public/locales/{locale}.json' }],
    },
    'public/locales/en.json': { 'checkout.title': 'Checkout' },
  });
  const env = { GLOSSA_API_KEY: p.apiKey };
  t.is((await glossa(['push'], { cwd, env })).code, 0);
  const captured = await p.client.POST('/projects/{projectId}/capture', {
    params: { path: { projectId: p.projectId } },
    body: { units: [{ source: 'Pay now', key: 'checkout.new_button' }, { source: 'Shown without a key' }] },
  });
  t.deepEqual(captured.data, { captured: 2, skipped: 0 });
  // The next CI run: the file changed (a new key), so the sync runs again as the whole catalog.
  writeFileSync(
    path.join(cwd, 'public/locales/en.json'),
    JSON.stringify({ 'checkout.title': 'Checkout', 'checkout.total': 'Total' }),
  );
  const dry = await glossa(['push', '--dry-run'], { cwd, env });
  t.regex(dry.stdout, /disable 0 orphans/);
  const pushed = await glossa(['--json', 'push'], { cwd, env });
  t.is(pushed.code, 0, pushed.stderr);
  t.like((JSON.parse(pushed.stdout) as { report: Array<{ sync: object }> }).report[0].sync, { disabledOrphans: 0 });
  const awaiting = await svc.admin.GET('/projects/{projectId}/keys', {
    params: { path: { projectId: p.projectId }, query: { captured: true } },
  });
  t.deepEqual(awaiting.data!.keys.map((k) => [k.key, k.source, k.enabled]).sort(), [
    ['checkout.new_button', 'Pay now', true],
    ['shown_without_a_key', 'Shown without a key', true],
  ]);
  // Still awaiting review, so reported again it is known, not lost.
  const again = await p.client.POST('/projects/{projectId}/capture', {
    params: { path: { projectId: p.projectId } },
    body: { units: [{ source: 'Pay now', key: 'checkout.new_button' }] },
  });
  t.deepEqual(again.data, { captured: 0, skipped: 1 });
});
