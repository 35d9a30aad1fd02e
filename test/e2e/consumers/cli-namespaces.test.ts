// The CLI with several files in one project (packages/cli/src/config.ts `mappingNamespaces`): each mapping is the
// whole catalog of its own namespace, so CI runs with nothing changed change nothing, and each file is pulled with its
// own keys only (docs/decisions/0016-namespaces.md).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import i18next from 'i18next';
import { createTestProject, startTestService, type TestProject, type TestService } from '../../helpers/service.js';
import { loadConfig } from '../../../packages/cli/src/config.js';
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

function project(files: Record<string, string | object>) {
  const d = repo(files);
  dirs.push(d);
  return d;
}

const db = () => svc.service.app.db;
const workspace = async (p: TestProject) => (await db()('workspaces').where({ id: p.workspaceId }).first())!;
const keyRows = (p: TestProject) =>
  db()('keys').where({ project_id: p.projectId }).orderBy(['namespace', 'name']).select('namespace', 'name', 'enabled');

/** Every file under `dir` but the CLI's state, relative to it, with its bytes. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (e.isFile()) {
      const rel = path.relative(dir, path.join(e.parentPath, e.name));
      if (!rel.startsWith('.glossa')) out[rel] = readFileSync(path.join(dir, rel), 'utf8');
    }
  return out;
}

/** One CI run as docs/guides/cli.md gives it: push, wait, status, publish, pull. */
async function ciRun(t: { is: (a: unknown, b: unknown, m?: string) => void }, p: TestProject, cwd: string) {
  const env = { GLOSSA_API_KEY: p.apiKey };
  const pushed = await glossa(['push'], { cwd, env });
  t.is(pushed.code, 0, pushed.stderr);
  await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  const waited = await glossa(['wait'], { cwd, env });
  t.is(waited.code, 0, waited.stderr);
  const status = await glossa(['status', '--fail-if-incomplete'], { cwd, env });
  t.is(status.code, 0, status.stdout + status.stderr);
  const published = await glossa(['publish', '--skip-if-identical'], { cwd, env });
  t.is(published.code, 0, published.stderr);
  const pulled = await glossa(['pull'], { cwd, env });
  t.is(pulled.code, 0, pulled.stderr);
  return { pushed: pushed.stdout, status: status.stdout };
}

const APP = { title: 'My app', nav: { home: 'Home', settings: 'Settings' }, welcome: 'Welcome, {name}!' };
const COMMON = { save: 'Save', cancel: 'Cancel', title: 'Common title' };

test.serial(
  'two i18next namespaces over ten CI runs with nothing changed: nothing disabled, held or rewritten',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
    const cwd = project({
      'glossa.config.json': {
        baseUrl: svc.baseUrl,
        projectId: p.projectId,
        files: [
          { source: 'public/locales/en/app.json', format: 'nested_json', template: 'public/locales/{locale}/app.json' },
          {
            source: 'public/locales/en/common.json',
            format: 'nested_json',
            template: 'public/locales/{locale}/common.json',
          },
        ],
      },
      'public/locales/en/app.json': APP,
      'public/locales/en/common.json': COMMON,
    });
    await ciRun(t, p, cwd);
    const files = tree(cwd);
    const keys = await keyRows(p);
    const ws = await workspace(p);
    t.deepEqual(
      keys.map((k) => `${k.namespace}:${k.name}`),
      ['app:nav.home', 'app:nav.settings', 'app:title', 'app:welcome', 'common:cancel', 'common:save', 'common:title'],
    );
    // Each file holds its own namespace's keys, in its own shape.
    const deApp = JSON.parse(files['public/locales/de/app.json']) as typeof APP;
    const deCommon = JSON.parse(files['public/locales/de/common.json']) as typeof COMMON;
    t.deepEqual(Object.keys(deApp).sort(), ['nav', 'title', 'welcome']);
    t.deepEqual(Object.keys(deCommon).sort(), ['cancel', 'save', 'title']);
    t.not(files['public/locales/de/app.json'], files['public/locales/de/common.json']);
    // i18next reads the two namespaces as it reads any app's.
    const i18n = i18next.createInstance();
    await i18n.init({
      lng: 'de',
      ns: ['app', 'common'],
      resources: { de: { app: deApp, common: deCommon } },
      interpolation: { prefix: '{', suffix: '}' },
    });
    t.is(i18n.t('nav.home', { ns: 'app' }), deApp.nav.home);
    t.is(i18n.t('save', { ns: 'common' }), deCommon.save);
    for (let run = 2; run <= 10; run++) {
      const { pushed, status } = await ciRun(t, p, cwd);
      t.notRegex(pushed, /orphans disabled, [^0]|[1-9]\d* orphans disabled|disabled \(not in/, `run ${run}`);
      t.regex(status, /de +100%/);
      t.deepEqual(tree(cwd), files, `run ${run}: the same files`);
      t.deepEqual(await keyRows(p), keys, `run ${run}: the same keys, all enabled`);
      const now = await workspace(p);
      t.is(Number(now.held_mc), 0, `run ${run}: no credit held`);
      t.is(Number(now.balance_mc), Number(ws.balance_mc), `run ${run}: nothing charged`);
    }
    t.true(keys.every((k) => Boolean(k.enabled)));
  },
);

const ANDROID = `<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="app_name">Notes</string>
    <string name="welcome">Welcome back, %1$s!</string>
    <plurals name="files_count">
        <item quantity="one">%d file</item>
        <item quantity="other">%d files</item>
    </plurals>
</resources>
`;

test.serial(
  "the CLI guide's Android + JSON config over two runs keeps both files' strings, each in its own file",
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'pt-BR' }] });
    const cwd = project({
      // docs/guides/cli.md's example configuration.
      'glossa.config.json': {
        baseUrl: svc.baseUrl,
        projectId: p.projectId,
        files: [
          {
            source: 'app/src/main/res/values/strings.xml',
            format: 'android_xml',
            template: 'app/src/main/res/values-{android}/strings.xml',
          },
          { source: 'web/locales/en.json', format: 'json', template: 'web/locales/{locale}.json' },
        ],
        languageMap: { 'pt-br': 'pt-PT' },
      },
      'app/src/main/res/values/strings.xml': ANDROID,
      'web/locales/en.json': { 'checkout.pay': 'Pay now', greeting: 'Hello, {name}!' },
    });
    await ciRun(t, p, cwd);
    const first = tree(cwd);
    const second = await ciRun(t, p, cwd);
    t.deepEqual(tree(cwd), first, 'the second run rewrites nothing');
    t.notRegex(second.pushed, /disabled \(not in/);
    const keys = await keyRows(p);
    t.deepEqual(
      keys.map((k) => `${k.namespace}:${k.name}:${k.enabled ? 'on' : 'off'}`),
      [
        'locales:checkout.pay:on',
        'locales:greeting:on',
        'strings:app_name:on',
        'strings:files_count:on',
        'strings:welcome:on',
      ],
    );
    const de = first['app/src/main/res/values-de/strings.xml'];
    t.regex(de, /name="app_name"/);
    t.regex(de, /<plurals name="files_count">/);
    t.notRegex(de, /checkout|greeting/, 'the Android file holds the Android strings only');
    const web = JSON.parse(first['web/locales/de.json']) as Record<string, string>;
    t.deepEqual(Object.keys(web).sort(), ['checkout.pay', 'greeting'], 'the web JSON holds the web strings only');
    t.truthy(first['web/locales/pt-PT.json']);
    t.truthy(first['app/src/main/res/values-pt-rPT/strings.xml']);
    // aapt2 compiles and links the Android resources the sync-in-a-namespace path pulled.
    writeFileSync(
      path.join(cwd, 'AndroidManifest.xml'),
      '<?xml version="1.0" encoding="utf-8"?>\n<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="com.example.glossa" />\n',
    );
    const res = path.join(cwd, 'app/src/main/res');
    const compile = spawnSync('aapt2', ['compile', '--dir', res, '-o', path.join(cwd, 'compiled.zip')], {
      encoding: 'utf8',
    });
    t.is(compile.status, 0, compile.stderr);
    const link = spawnSync(
      'aapt2',
      [
        'link',
        '-I',
        '/usr/share/android-framework-res/framework-res.apk',
        '--manifest',
        'AndroidManifest.xml',
        '-o',
        'out.apk',
        'compiled.zip',
      ],
      { cwd, encoding: 'utf8' },
    );
    t.is(link.status, 0, link.stderr);
    const dump = spawnSync('aapt2', ['dump', 'resources', 'out.apk'], { cwd, encoding: 'utf8' }).stdout;
    t.regex(dump, /\(de\)/);
    t.regex(dump, /plurals\/files_count/);
  },
);

test.serial('a project with one default-namespace file that moves to two namespaces pays nothing', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
  const config = (files: object[]) => ({ baseUrl: svc.baseUrl, projectId: p.projectId, files });
  const cwd = project({
    'glossa.config.json': config([
      { source: 'locales/en/translation.json', format: 'nested_json', template: 'locales/{locale}/translation.json' },
    ]),
    'locales/en/translation.json': { ...APP, ...{ save: 'Save', cancel: 'Cancel' } },
  });
  await ciRun(t, p, cwd);
  const paid = await workspace(p);
  const deBefore = JSON.parse(tree(cwd)['locales/de/translation.json']) as Record<string, unknown>;
  // The app splits its one file into two namespaces.
  rmSync(path.join(cwd, 'locales/en/translation.json'));
  const split = project({
    'glossa.config.json': config([
      { source: 'locales/en/app.json', format: 'nested_json', template: 'locales/{locale}/app.json' },
      { source: 'locales/en/common.json', format: 'nested_json', template: 'locales/{locale}/common.json' },
    ]),
    'locales/en/app.json': APP,
    'locales/en/common.json': { save: 'Save', cancel: 'Cancel' },
  });
  // A pull before the first push of the new config: the version has no namespace app or common yet, so each file
  // reads the default namespace, as before namespaces, and says so.
  const early = await glossa(['pull'], { cwd: split, env: { GLOSSA_API_KEY: p.apiKey } });
  t.is(early.code, 0, early.stderr);
  t.regex(
    early.stderr,
    /has no namespace app yet \(the next push moves its keys there\); pulling the default namespace/,
  );
  t.deepEqual(JSON.parse(tree(split)['locales/de/app.json']), deBefore);
  const { pushed } = await ciRun(t, p, split);
  t.regex(pushed, /4 keys moved into namespace app/);
  t.regex(pushed, /2 keys moved into namespace common/);
  t.regex(pushed, /0 created.*; 0 mc/);
  const now = await workspace(p);
  t.is(Number(now.balance_mc), Number(paid.balance_mc), 'nothing translated or charged again');
  t.is(Number(now.held_mc), 0);
  const files = tree(split);
  const deApp = JSON.parse(files['locales/de/app.json']) as Record<string, unknown>;
  const deCommon = JSON.parse(files['locales/de/common.json']) as Record<string, unknown>;
  // The same translations, now in two files.
  t.deepEqual({ ...deApp, ...deCommon }, deBefore);
});

test('each mapping of a config of several files gets a namespace; two the config itself puts in one are refused', (t) => {
  const env = { GLOSSA_API_KEY: 'glk_x' };
  const load = (files: object[]) => {
    const cwd = project({ 'glossa.config.json': { baseUrl: svc.baseUrl, projectId: 'p_x', files } });
    return loadConfig({ cwd, env });
  };
  const one = load([{ source: 'locales/en.json', format: 'json', template: 'locales/{locale}.json' }]);
  t.is(one.files[0].namespace, undefined, 'one file: the default namespace, as before');
  const several = load([
    { source: 'public/locales/en/app.json', format: 'json', template: 'public/locales/{locale}/app.json' },
    { source: 'web/locales/en.json', format: 'json', template: 'web/locales/{locale}.json' },
    { source: 'Localizable.xcstrings', format: 'xcstrings' },
    { source: 'en.json', format: 'json', template: '{locale}.json' },
    {
      source: 'app/src/main/res/values/strings.xml',
      format: 'android_xml',
      template: 'app/src/main/res/values-{android}/strings.xml',
    },
    {
      source: 'lib/src/main/res/values/strings.xml',
      format: 'android_xml',
      template: 'lib/src/main/res/values-{android}/strings.xml',
    },
    { source: 'legacy/en.json', format: 'json', template: 'legacy/{locale}.json', namespace: '' },
  ]);
  t.deepEqual(
    several.files.map((m) => m.namespace),
    [
      'app',
      'locales',
      'Localizable',
      'json',
      'app.src.main.res.values.strings',
      'lib.src.main.res.values.strings',
      undefined,
    ],
  );
  const clash = () =>
    load([
      { source: 'a/en.json', format: 'json', template: 'a/{locale}.json', namespace: 'web' },
      { source: 'b/en.json', format: 'json', template: 'b/{locale}.json', namespace: 'web' },
    ]);
  t.throws(clash, { message: /both in namespace "web"/ });
});
