// The `glossa` CLI end to end against a running service on SQLite: an Android and a web project each
// push, wait, publish and pull, and the files pass their platform's tools (aapt2, i18next); a CI rerun of push
// changes and charges nothing; every exit code; 429 and 503 retried and announced; no escape codes off a terminal.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import i18next from 'i18next';
import { createTestKey, createTestProject, startTestService, type TestService } from '../../helpers/service.js';
import { ANDROID_FILE, BIN_ARGS, glossa, glossaConfig, repo } from '../../helpers/cli.js';
import { awayFromWindowEdge } from '../../helpers/rate-window.js';

/** The escape character that starts every terminal control sequence (a progress bar's redraw). */
const ESC = new RegExp(String.fromCharCode(27));
const FRAMEWORK = '/usr/share/android-framework-res/framework-res.apk';
let svc: TestService;
const dirs: string[] = [];
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const runDue = () => svc.admin.POST('/jobs/run-due', { body: {} });
const balance = async (projectId: string) =>
  (await svc.admin.GET('/projects/{projectId}/overview', { params: { path: { projectId } } })).data!.workspace;

function project(files: Record<string, string | object>) {
  const d = repo(files);
  dirs.push(d);
  return d;
}

const ANDROID_SOURCE = `<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="app_name">Glossa demo</string>
    <string name="welcome">Welcome back, %1$s!</string>
    <plurals name="files_count">
        <item quantity="one">%d file</item>
        <item quantity="other">%d files</item>
    </plurals>
</resources>
`;

test.serial(
  'Android: push, wait, publish, pull; aapt2 links the pulled resources; a rerun changes and charges nothing',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'pt-BR' }] });
    const cwd = project({
      'glossa.config.json': {
        $schema: './node_modules/@glossa/cli/glossa.schema.json',
        baseUrl: svc.baseUrl,
        projectId: p.projectId,
        files: [
          {
            source: 'app/src/main/res/values/strings.xml',
            format: 'android_xml',
            template: 'app/src/main/res/values-{android}/strings.xml',
          },
        ],
      },
      'app/src/main/res/values/strings.xml': ANDROID_SOURCE,
    });
    const env = { GLOSSA_API_KEY: p.apiKey };
    // From a subfolder: the config is found upward.
    const sub = path.join(cwd, 'app/src');
    const pushed = await glossa(['--json', 'push'], { cwd: sub, env });
    t.is(pushed.code, 0, pushed.stderr);
    const result = JSON.parse(pushed.stdout) as { trackingTokens: string[] };
    t.is(result.trackingTokens.length, 1);
    await runDue();
    const waited = await glossa(['wait'], { cwd, env });
    t.is(waited.code, 0, waited.stderr);
    t.regex(waited.stdout, /done, \d+\/\d+ translated, 0 failed/);
    t.false(ESC.test(waited.stdout + waited.stderr), 'no escape codes off a terminal');
    const published = await glossa(['publish', '--label', 'ci', '--require-complete'], { cwd, env });
    t.is(published.code, 0, published.stderr);
    const pulled = await glossa(['--json', 'pull'], { cwd, env });
    t.is(pulled.code, 0, pulled.stderr);
    const pr = JSON.parse(pulled.stdout) as { written: string[]; snapshotAt: string };
    t.deepEqual(pr.written.sort(), [
      'app/src/main/res/values-de/strings.xml',
      'app/src/main/res/values-pt-rBR/strings.xml',
    ]);
    t.is(
      readFileSync(path.join(cwd, 'app/src/main/res/values/strings.xml'), 'utf8'),
      ANDROID_SOURCE,
      'source untouched',
    );
    const state = JSON.parse(readFileSync(path.join(cwd, '.glossa/state.json'), 'utf8')) as { snapshotAt: string };
    t.is(state.snapshotAt, pr.snapshotAt);
    // aapt2 compiles and links what was pulled.
    const res = path.join(cwd, 'app/src/main/res');
    writeFileSync(
      path.join(cwd, 'AndroidManifest.xml'),
      '<?xml version="1.0" encoding="utf-8"?>\n<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="com.example.glossa" />\n',
    );
    const compile = spawnSync('aapt2', ['compile', '--dir', res, '-o', path.join(cwd, 'compiled.zip')], {
      encoding: 'utf8',
    });
    t.is(compile.status, 0, compile.stderr);
    const link = spawnSync(
      'aapt2',
      ['link', '-I', FRAMEWORK, '--manifest', 'AndroidManifest.xml', '-o', 'out.apk', 'compiled.zip'],
      { cwd, encoding: 'utf8' },
    );
    t.is(link.status, 0, link.stderr);
    const dump = spawnSync('aapt2', ['dump', 'resources', 'out.apk'], { cwd, encoding: 'utf8' }).stdout;
    t.regex(dump, /\(de\)/);
    t.regex(dump, /\(pt-rBR\)/);
    // A second pull writes nothing: the files are unchanged.
    const mtime = statSync(path.join(res, 'values-de/strings.xml')).mtimeMs;
    const again = await glossa(['--json', 'pull'], { cwd, env });
    t.is(again.code, 0);
    t.deepEqual((JSON.parse(again.stdout) as { written: string[] }).written, []);
    t.is(statSync(path.join(res, 'values-de/strings.xml')).mtimeMs, mtime);
    // A CI rerun of push: the same content sends the same requestIds, so the service answers the first push's
    // response again (its tracking token included) and writes and charges nothing.
    const before = await balance(p.projectId);
    const rerun = await glossa(['--json', 'push'], { cwd, env });
    t.is(rerun.code, 0, rerun.stderr);
    const rr = JSON.parse(rerun.stdout) as { trackingTokens: string[] };
    t.deepEqual(rr.trackingTokens, result.trackingTokens);
    t.deepEqual(await balance(p.projectId), before);
    // Status: complete.
    const st = await glossa(['status', '--fail-if-incomplete'], { cwd, env });
    t.is(st.code, 0, st.stderr);
    t.regex(st.stdout, /de\s+100%/);
  },
);

test.serial(
  'web (JSON catalog): push syncs, wait, publish, pull; i18next reads the pulled files; pulledAt sent',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'fr' }, { code: 'pt-BR' }] });
    const cwd = project({
      '.glossarc.json': {
        baseUrl: svc.baseUrl,
        files: [{ source: 'public/locales/en.json', format: 'json', template: 'public/locales/{locale}.json' }],
        languageMap: { 'pt-br': 'pt' },
      },
      'public/locales/en.json': { greeting: 'Hello, {name}!', save: 'Save' },
    });
    const env = { GLOSSA_API_KEY: p.apiKey, GLOSSA_PROJECT_ID: p.projectId };
    const dry = await glossa(['push', '--dry-run'], { cwd, env });
    t.is(dry.code, 0, dry.stderr);
    t.regex(dry.stdout, /would create 2/);
    t.false(existsSync(path.join(cwd, '.glossa/state.json')), 'a dry run records nothing');
    const pushed = await glossa(['push'], { cwd, env });
    t.is(pushed.code, 0, pushed.stderr);
    t.regex(pushed.stdout, /2 created/);
    const incomplete = await glossa(['status', '--fail-if-incomplete'], { cwd, env });
    t.is(incomplete.code, 4, 'pending translations: exit 4 with --fail-if-incomplete');
    t.regex(incomplete.stdout, /INCOMPLETE/);
    t.is((await glossa(['status'], { cwd, env })).code, 0, 'without the flag, status is only a report');
    await runDue();
    t.is((await glossa(['wait'], { cwd, env })).code, 0);
    t.is((await glossa(['publish', '--skip-if-identical'], { cwd, env })).code, 0);
    const pulled = await glossa(['pull'], { cwd, env });
    t.is(pulled.code, 0, pulled.stderr);
    const fr = JSON.parse(readFileSync(path.join(cwd, 'public/locales/fr.json'), 'utf8')) as Record<string, string>;
    const pt = JSON.parse(readFileSync(path.join(cwd, 'public/locales/pt.json'), 'utf8')) as Record<string, string>;
    const i18n = i18next.createInstance();
    await i18n.init({
      lng: 'fr',
      resources: { fr: { translation: fr }, pt: { translation: pt } },
      interpolation: { prefix: '{', suffix: '}' },
    });
    t.is(typeof i18n.t('save'), 'string');
    t.not(i18n.t('save'), 'save', 'i18next finds the key in the pulled file');
    t.true(i18n.t('greeting', { name: 'Ana' }).includes('Ana'));
    // The next push sends the pulled snapshotAt as pulledAt, and a rerun changes nothing.
    const bodies: Array<{ pulledAt?: string }> = [];
    const spy: typeof fetch = async (input, init) => {
      const req = new Request(input, init);
      if (req.method === 'POST') bodies.push((await req.clone().json()) as { pulledAt?: string });
      return fetch(req);
    };
    const verbose = await glossa(['--verbose', '--json', 'push'], { cwd, env, fetch: spy });
    const { snapshotAt } = JSON.parse(readFileSync(path.join(cwd, '.glossa/state.json'), 'utf8')) as {
      snapshotAt: string;
    };
    t.is(bodies[0].pulledAt, snapshotAt, 'the sync carries the pulled snapshotAt as pulledAt');
    t.is(verbose.code, 0, verbose.stderr);
    const vr = JSON.parse(verbose.stdout) as {
      trackingTokens: string[];
      report: Array<{ sync: { created: number; updatedSources: number } }>;
    };
    t.deepEqual(vr.trackingTokens, []);
    t.like(vr.report[0].sync, { created: 0, updatedSources: 0 });
    t.regex(verbose.stderr, /POST \/v1\/projects\/[^ ]+\/sync -> 200/);
    t.false(verbose.stderr.includes(p.apiKey), '--verbose never shows the key');
    // versions list and restore.
    const list = await glossa(['versions', 'list'], { cwd, env });
    t.is(list.code, 0);
    t.regex(list.stdout, /^\* \d{4}\.\d{2}\.\d{2}\.\d+/m);
  },
);

test.serial('exit codes: 2 for usage and configuration, 1 for a failed request', async (t) => {
  const p = await createTestProject(svc);
  const files = [{ source: 'en.json', format: 'json', template: '{locale}.json' }];
  const cwd = project({
    'glossa.config.json': { baseUrl: svc.baseUrl, projectId: p.projectId, files },
    'en.json': { a: 'A' },
  });
  t.is((await glossa(['status'], { cwd, env: {} })).code, 2, 'no GLOSSA_API_KEY');
  t.is((await glossa(['nonsense'], { cwd, env: { GLOSSA_API_KEY: p.apiKey } })).code, 2, 'unknown command');
  t.is((await glossa(['push', '--on-conflict', 'mine'], { cwd, env: { GLOSSA_API_KEY: p.apiKey } })).code, 2);
  const empty = project({});
  t.is((await glossa(['status'], { cwd: empty, env: { GLOSSA_API_KEY: p.apiKey } })).code, 2, 'no config file');
  const keyInFile = project({
    'glossa.config.json': { baseUrl: svc.baseUrl, projectId: p.projectId, apiKey: p.apiKey, files },
  });
  const refused = await glossa(['status'], { cwd: keyInFile, env: { GLOSSA_API_KEY: p.apiKey } });
  t.is(refused.code, 2);
  t.regex(refused.stderr, /GLOSSA_API_KEY/);
  const badSchema = project({
    'glossa.config.json': { baseUrl: svc.baseUrl, files: [{ source: 'x', format: 'yaml' }] },
  });
  t.is((await glossa(['status'], { cwd: badSchema, env: { GLOSSA_API_KEY: p.apiKey } })).code, 2);
  t.is((await glossa(['status'], { cwd, env: { GLOSSA_API_KEY: 'glk_wrong' } })).code, 1, '401');
  const noVersion = await glossa(['pull', '--version', '2001.01.01.1'], { cwd, env: { GLOSSA_API_KEY: p.apiKey } });
  t.is(noVersion.code, 1);
  const unpublished = await glossa(['--json', 'publish', '--require-complete'], {
    cwd,
    env: { GLOSSA_API_KEY: p.apiKey },
  });
  t.is(unpublished.code, 0, 'nothing pushed: complete and publishable');
  t.is((await glossa(['--help'], { cwd, env: {} })).code, 0);
});

test.serial('exit 4: publish --require-complete refused (409 fill_incomplete)', async (t) => {
  const p = await createTestProject(svc);
  const cwd = project({
    'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId),
    'en.json': { a: 'Apple', b: 'Banana' },
  });
  const env = { GLOSSA_API_KEY: p.apiKey };
  t.is((await glossa(['push'], { cwd, env })).code, 0);
  const r = await glossa(['--json', 'publish', '--require-complete'], { cwd, env });
  t.is(r.code, 4, r.stderr);
  t.like(JSON.parse(r.stdout), { ok: false, exitCode: 4 });
});

test.serial(
  'agent key: 403 authorization_required, operation, approval through the internal API, exactly the approved batches; denial exits 3',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    const agentKey = await createTestKey(svc, p.projectId, ['translate', 'publish', 'read'], true);
    const cwd = project({
      'glossa.config.json': {
        baseUrl: svc.baseUrl,
        projectId: p.projectId,
        files: [
          { source: 'res/values/strings.xml', format: 'android_xml', template: 'res/values-{android}/strings.xml' },
        ],
      },
      'res/values/strings.xml': ANDROID_SOURCE,
    });
    const env = { GLOSSA_API_KEY: agentKey };
    // --approval-timeout 0: print the link and exit 3.
    const asked = await glossa(['push', '--approval-timeout', '0'], { cwd: cwd, env });
    t.is(asked.code, 3, asked.stderr);
    t.regex(asked.stderr, /Approval needed: .*\/approve\//);
    // A person approves while the CLI waits.
    const decide = async (how: 'approve' | 'deny') => {
      for (let i = 0; i < 200; i++) {
        const ops = await svc.admin.GET('/projects/{projectId}/operations', {
          params: { path: { projectId: p.projectId }, query: { state: 'pending_approval' } },
        });
        const op = ops.data?.operations[0];
        if (op) {
          await svc.admin.POST(`/operations/{operationId}/${how}`, {
            params: { path: { operationId: op.operation_id } },
          });
          return op.operation_id;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('no pending operation');
    };
    const [pushed, opId] = await Promise.all([
      glossa(['--json', '--poll', '0.05', 'push'], { cwd, env }),
      decide('approve'),
    ]);
    t.is(pushed.code, 0, pushed.stderr);
    const pr = JSON.parse(pushed.stdout) as { trackingTokens: string[]; report: Array<{ operationId?: string }> };
    t.is(pr.report.length, 1, 'one batch sent');
    t.is(pr.report[0].operationId, opId);
    t.is(pr.trackingTokens.length, 1);
    await runDue();
    t.is((await glossa(['wait'], { cwd, env })).code, 0);
    // Publish: denied.
    const [denied] = await Promise.all([glossa(['--poll', '0.05', 'publish'], { cwd, env }), decide('deny')]);
    t.is(denied.code, 3);
    t.regex(denied.stderr, /was denied/);
    // Publish: approved.
    const [ok] = await Promise.all([glossa(['--poll', '0.05', 'publish'], { cwd, env }), decide('approve')]);
    t.is(ok.code, 0, ok.stderr);
    t.regex(ok.stdout, /published \d{4}/);
  },
);

test.serial(
  '429 and 503: retried after Retry-After or a backoff, announced, bounded; a 500 is not replayed',
  async (t) => {
    const p = await createTestProject(svc);
    const cwd = project({
      'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId),
      'en.json': { a: 'Apple' },
    });
    const env = { GLOSSA_API_KEY: p.apiKey, GLOSSA_MAX_RETRY_WAIT: '0.05' };
    // The service's own 429: the project's window spent, status retries (bounded) and fails with exit 1.
    await awayFromWindowEdge();
    const hits = [];
    for (let i = 0; i < 125; i++)
      hits.push(
        fetch(`${svc.baseUrl}/projects/${p.projectId}/meta`, { headers: { authorization: `Bearer ${p.apiKey}` } }),
      );
    const statuses = await Promise.all(hits.map(async (h) => (await h).status));
    t.true(statuses.includes(429));
    const limited = await glossa(['status'], { cwd, env: { ...env, GLOSSA_RETRIES: '2' } });
    t.is(limited.code, 1, 'never 0 after an HTTP error');
    t.is(limited.stderr.match(/rate limited \(429\); retrying/g)?.length, 2);
    t.regex(limited.stderr, /429 rate_limited/);
    // One 429 and one 503 (as the service answers them), then the real answers: the push goes through.
    const q = await createTestProject(svc);
    const seen: string[] = [];
    let faults = [
      new Response(JSON.stringify({ error: 'rate_limited', message: 'slow down' }), {
        status: 429,
        headers: { 'retry-after': '0', 'content-type': 'application/json' },
      }),
      new Response(JSON.stringify({ error: 'unavailable', message: 'datastore refused the write' }), {
        status: 503,
        headers: { 'content-type': 'application/json' },
      }),
    ];
    const flaky: typeof fetch = async (input, init) => {
      const req = new Request(input, init);
      if (req.method === 'POST') seen.push(((await req.clone().json()) as { requestId: string }).requestId);
      const fault = faults.shift();
      return fault ?? fetch(req);
    };
    const qcwd = project({
      'glossa.config.json': glossaConfig(svc.baseUrl, q.projectId, [ANDROID_FILE]),
      'strings.xml': ANDROID_SOURCE,
    });
    const r = await glossa(['push'], { cwd: qcwd, env: { GLOSSA_API_KEY: q.apiKey }, fetch: flaky });
    t.is(r.code, 0, r.stderr);
    t.regex(r.stderr, /rate limited \(429\); retrying in 0\.0 s \(attempt 2 of 5\)/);
    t.regex(r.stderr, /the service answered 503; retrying/);
    t.is(seen.length, 3);
    t.is(seen[0], seen[1], 'a 429 was never processed: the same request again');
    t.is(seen[2], `${seen[0]}-r2`, 'after a 503 the request is resent under a new requestId');
    // A 500: not retried, exit 1, says a rerun is safe.
    faults = [new Response(JSON.stringify({ error: 'internal', message: 'boom' }), { status: 500 })];
    const five = await glossa(['push'], { cwd: qcwd, env: { GLOSSA_API_KEY: q.apiKey }, fetch: flaky });
    t.is(five.code, 1);
    t.regex(five.stderr, /rerunning the command is safe/);
  },
);

test.serial(
  'the executable: --help, --version, a usage error, plain output without escape codes when not a terminal',
  (t) => {
    const help = spawnSync(process.execPath, [...BIN_ARGS, '--help'], { encoding: 'utf8' });
    t.is(help.status, 0);
    t.regex(help.stdout, /Exit codes: 0 success/);
    const version = spawnSync(process.execPath, [...BIN_ARGS, '--version'], { encoding: 'utf8' });
    t.is(version.status, 0);
    t.is(
      version.stdout,
      `${(JSON.parse(readFileSync('packages/cli/package.json', 'utf8')) as { version: string }).version}\n`,
    );
    const usage = spawnSync(process.execPath, [...BIN_ARGS, 'status'], {
      encoding: 'utf8',
      cwd: '/',
      env: { PATH: process.env.PATH },
    });
    t.is(usage.status, 2);
    t.false(ESC.test(usage.stdout + usage.stderr));
  },
);

test.serial('init: writes a config by looking at the repository, which push then uses; never overwrites', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const cwd = project({
    'android/app/src/main/res/values/strings.xml': ANDROID_SOURCE,
    'ios/App/Localizable.xcstrings': { sourceLanguage: 'en', version: '1.0', strings: {} },
    'ios/App/en.lproj/Localizable.strings': '"hello" = "Hello";\n',
    'flutter/l10n.yaml': 'arb-dir: lib/l10n\ntemplate-arb-file: app_en.arb\n',
    'flutter/lib/l10n/app_en.arb': { '@@locale': 'en', hello: 'Hello' },
    'web/public/locales/en.json': { nav: { home: 'Home' } },
    'server/locale/en/LC_MESSAGES/messages.po':
      'msgid ""\nmsgstr ""\n"Language: en\\n"\n\nmsgid "Hello"\nmsgstr "Hello"\n',
    'node_modules/x/locales/en.json': { ignored: 'yes' },
  });
  const made = await glossa(['init', '--base-url', svc.baseUrl, '--project', p.projectId], { cwd });
  t.is(made.code, 0, made.stderr);
  const config = JSON.parse(readFileSync(path.join(cwd, 'glossa.config.json'), 'utf8')) as {
    $schema: string;
    files: Array<{ source: string; format: string; template?: string }>;
  };
  t.is(config.$schema, './node_modules/@glossa/cli/glossa.schema.json');
  t.false(JSON.stringify(config).includes('glk_'), 'no key in the file');
  t.deepEqual(
    config.files.sort((a, b) => a.source.localeCompare(b.source)),
    [
      {
        source: 'android/app/src/main/res/values/strings.xml',
        format: 'android_xml',
        template: 'android/app/src/main/res/values-{android}/strings.xml',
      },
      { source: 'flutter/lib/l10n/app_en.arb', format: 'arb', template: 'flutter/lib/l10n/app_{posix}.arb' },
      {
        source: 'ios/App/en.lproj/Localizable.strings',
        format: 'ios_strings',
        template: 'ios/App/{apple}.lproj/Localizable.strings',
      },
      { source: 'ios/App/Localizable.xcstrings', format: 'xcstrings' },
      {
        source: 'server/locale/en/LC_MESSAGES/messages.po',
        format: 'po',
        template: 'server/locale/{posix}/LC_MESSAGES/messages.po',
      },
      { source: 'web/public/locales/en.json', format: 'nested_json', template: 'web/public/locales/{locale}.json' },
    ],
  );
  t.is((await glossa(['init'], { cwd })).code, 2, 'an existing config is kept');
  t.is((await glossa(['init'], { cwd: project({ 'README.md': 'nothing' }) })).code, 2, 'nothing found');
  // The written config works: an Android-only copy pushes, its file the whole catalog of its namespace (synced).
  const android = project({ 'app/src/main/res/values/strings.xml': ANDROID_SOURCE });
  t.is((await glossa(['init', '--base-url', svc.baseUrl, '--project', p.projectId], { cwd: android })).code, 0);
  const dry = await glossa(['push', '--dry-run'], { cwd: android, env: { GLOSSA_API_KEY: p.apiKey } });
  t.is(dry.code, 0, dry.stderr);
  t.regex(dry.stdout, /app\/src\/main\/res\/values\/strings\.xml: would create 3, update 0 sources, disable 0 orphans/);
});

test.serial('progress bars on a terminal only: --no-progress and a pipe give plain lines', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const cwd = project({
    'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId, [ANDROID_FILE]),
    'strings.xml': ANDROID_SOURCE,
  });
  const env = { GLOSSA_API_KEY: p.apiKey };
  const onTerminal = await glossa(['push'], { cwd, env, tty: true });
  t.is(onTerminal.code, 0);
  t.true(ESC.test(onTerminal.stderr), 'a bar redrawn in place on a terminal');
  await runDue();
  const plain = await glossa(['--no-progress', 'wait'], { cwd, env, tty: true });
  t.is(plain.code, 0);
  t.false(ESC.test(plain.stdout + plain.stderr));
  t.regex(plain.stdout, /done, 3\/3 translated/);
  const piped = await glossa(['wait'], { cwd, env });
  t.false(ESC.test(piped.stdout + piped.stderr));
});

test.serial(
  'exit 4 for a gate: status --gates --fail-if-incomplete and publish --strict report the refused cell',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    const cwd = project({
      'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId),
      'en.json': { farewell: 'Goodbye', hello: 'Hello' },
    });
    const env = { GLOSSA_API_KEY: p.apiKey };
    t.is((await glossa(['push'], { cwd, env })).code, 0);
    await runDue();
    const put = await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
      params: { path: { projectId: p.projectId, key: 'farewell', lang: 'de' } },
      body: { value: 'Tschüss {' },
    });
    t.is(put.response.status, 200);
    t.is((await glossa(['status', '--fail-if-incomplete'], { cwd, env })).code, 0, 'complete: every cell has a value');
    const gated = await glossa(['status', '--gates', '--fail-if-incomplete'], { cwd, env });
    t.is(gated.code, 4, gated.stderr);
    t.regex(gated.stdout, /refused farewell \[de\]/);
    t.regex(gated.stderr, /1 cells refused by the gates/);
    const strict = await glossa(['publish', '--strict'], { cwd, env });
    t.is(strict.code, 4, strict.stderr);
    t.regex(strict.stdout, /published .*\n1 cells refused/);
  },
);

test.serial(
  'a rerun over 24 hours later: 409 request_expired sends the same content under a dated requestId',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    const cwd = project({
      'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId, [ANDROID_FILE]),
      'strings.xml': ANDROID_SOURCE,
    });
    const sent: string[] = [];
    let expired = true;
    const dayLater: typeof fetch = async (input, init) => {
      const req = new Request(input, init);
      if (req.method === 'POST') sent.push(((await req.clone().json()) as { requestId: string }).requestId);
      if (req.method === 'POST' && expired) {
        expired = false;
        return new Response(JSON.stringify({ error: 'request_expired', message: 'Resolved over 24 hours ago.' }), {
          status: 409,
          headers: { 'content-type': 'application/json' },
        });
      }
      return fetch(req);
    };
    const r = await glossa(['push'], { cwd, env: { GLOSSA_API_KEY: p.apiKey }, fetch: dayLater });
    t.is(r.code, 0, r.stderr);
    t.is(sent.length, 2);
    t.regex(sent[1], new RegExp(`^${sent[0]}-d\\d{8}$`));
    t.regex(r.stderr, /expired \(sent over 24 hours ago\)/);
  },
);
