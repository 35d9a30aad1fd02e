// Real repositories through the `glossa` CLI against a running service: what an existing app's files hold is taken
// as its platform means it (react-i18next's numbered tags, Android's `translatable="false"`, gettext templates),
// and a pull never destroys local work (an xcstrings file's other languages, translations the project never saw).
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { createTestProject, startTestService, type TestService } from '../helpers/service.js';
import { glossa, repo } from '../helpers/cli.js';

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
  t.is(
    (JSON.parse(dry.stdout) as { report: Array<{ units: number }> }).report[0].units,
    6,
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
