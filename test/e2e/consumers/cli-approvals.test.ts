// The CLI under an agent key against a running service: a rerun after a person approved goes on with
// --approval-timeout 0; an unchanged rerun asks nobody and creates no operation; one approval covers a push of two
// files; the asking key cancels its operation (`cancelOperation`) and the person's queue shows only what waits.
// Then what ends a CI job that would hang: a stalled server (request timeout and retry), and the smaller slips.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { createTestKey, createTestProject, startTestService, type TestService } from '../../helpers/service.js';
import { BIN_ARGS, glossa, glossaConfig, repo } from '../../helpers/cli.js';

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

const operations = async (projectId: string, state?: 'pending_approval') =>
  (
    await svc.admin.GET('/projects/{projectId}/operations', {
      params: { path: { projectId }, query: state ? { state } : {} },
    })
  ).data!.operations;

const ANDROID = `<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="app_name">Glossa demo</string>
    <string name="welcome">Welcome back</string>
</resources>
`;

test.serial(
  'approve, then rerun with --approval-timeout 0: goes on; an unchanged rerun creates no operation; two files, one approval',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    const agentKey = await createTestKey(svc, p.projectId, ['translate', 'publish', 'read'], true);
    // Two mapped files: each the whole catalog of its own namespace, both paid for under one operation.
    const cwd = project({
      'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId, [
        { source: 'locales/en.json', format: 'json', template: 'locales/{locale}.json' },
        { source: 'res/values/strings.xml', format: 'android_xml', template: 'res/values-{android}/strings.xml' },
      ]),
      'locales/en.json': { hello: 'Hello', bye: 'Goodbye' },
      'res/values/strings.xml': ANDROID,
    });
    const env = { GLOSSA_API_KEY: agentKey };
    const asked = await glossa(['--json', '--approval-timeout', '0', 'push'], { cwd, env });
    t.is(asked.code, 3, asked.stderr);
    const detail = (JSON.parse(asked.stdout.trim().split('\n').pop()!) as { detail: { operation_id: string } }).detail;
    const pending = await operations(p.projectId, 'pending_approval');
    t.is(pending.length, 1, 'one operation for both files');
    t.is(pending[0].operation_id, detail.operation_id);
    t.is((pending[0].scope as { batches?: unknown[] }).batches?.length, 2, 'its manifest holds both files');
    const st = await p.client.GET('/projects/{projectId}/status', { params: { path: { projectId: p.projectId } } });
    t.is(st.data?.keyCount, 0, 'nothing was pushed');

    const approve = await svc.admin.POST('/operations/{operationId}/approve', {
      params: { path: { operationId: detail.operation_id } },
    });
    t.is(approve.response.status, 200);
    const rerun = await glossa(['--json', '--approval-timeout', '0', 'push'], { cwd, env });
    t.is(rerun.code, 0, rerun.stderr);
    t.regex(rerun.stderr, /approved already; going on/);
    const pushed = JSON.parse(rerun.stdout) as { trackingTokens: string[]; report: Array<{ file?: string }> };
    t.deepEqual(pushed.report.map((r) => r.file).sort(), ['locales/en.json', 'res/values/strings.xml']);
    t.is(pushed.trackingTokens.length, 2);
    t.is((await operations(p.projectId)).length, 1, 'the approved operation was used, no other asked for');

    // Unchanged: replays and free resends, no operation, nobody asked.
    const again = await glossa(['--approval-timeout', '0', 'push'], { cwd, env });
    t.is(again.code, 0, again.stderr);
    t.notRegex(again.stdout + again.stderr, /approval/i);
    t.is((await operations(p.projectId)).length, 1, 'no new operation for no work');
    t.deepEqual(await operations(p.projectId, 'pending_approval'), [], 'the queue is empty');
  },
);

test.serial(
  'cancel: the asking key withdraws its operation; it leaves the queue; 404 for another key; 409 once used',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    const agentKey = await createTestKey(svc, p.projectId, ['translate', 'publish', 'read'], true);
    const other = await createTestKey(svc, p.projectId, ['translate', 'publish', 'read'], true);
    const client = svc.client(agentKey);
    const create = () =>
      client.POST('/operations', { body: { action: 'publish', scope: { project_id: p.projectId } } });
    const op = (await create()).data!;
    t.is(op.state, 'pending_approval');
    const cancelOp = (c = client, id = op.operation_id) =>
      c.POST('/operations/{operationId}/cancel', { params: { path: { operationId: id } } });
    t.is((await cancelOp(svc.client(other))).response.status, 404, "another key's operation is not found");
    t.is((await cancelOp(client, 'op_nope')).response.status, 404);
    const cancelled = await cancelOp();
    t.is(cancelled.response.status, 200);
    t.is(cancelled.data?.state, 'cancelled');
    t.is((await cancelOp()).data?.state, 'cancelled', 'again: the same answer');
    t.deepEqual(await operations(p.projectId, 'pending_approval'), []);
    const approve = await svc.admin.POST('/operations/{operationId}/approve', {
      params: { path: { operationId: op.operation_id } },
    });
    t.is(approve.response.status, 409, 'a person can no longer approve it');
    // An equivalent create asks again (a new operation), and a used one is refused.
    const next = (await create()).data!;
    t.not(next.operation_id, op.operation_id);
    await svc.admin.POST('/operations/{operationId}/deny', { params: { path: { operationId: next.operation_id } } });
    const refused = await cancelOp(client, next.operation_id);
    t.is(refused.response.status, 409);
    t.like(refused.error, { error: 'operation_not_cancellable', state: 'denied' });
  },
);

/** A server that takes connections and never answers. */
async function stalled(): Promise<{ server: Server; url: string }> {
  const server = createServer(() => {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { server, url: `http://127.0.0.1:${port}/v1` };
}

test.serial(
  'a stalled server: each request times out and is retried, and the command exits 1 within the bound',
  async (t) => {
    const { server, url } = await stalled();
    t.teardown(() => server.close());
    const cwd = project({ 'glossa.config.json': glossaConfig(url, 'p_x'), 'en.json': { a: 'A' } });
    const started = Date.now();
    const r = await glossa(['--request-timeout', '0.3', 'status'], {
      cwd,
      env: { GLOSSA_API_KEY: 'glk_x', GLOSSA_RETRIES: '2', GLOSSA_BACKOFF_MS: '10' },
    });
    const took = Date.now() - started;
    t.is(r.code, 1);
    t.true(took < 3000, `ended after ${took} ms`);
    t.true(took >= 900, 'three attempts of 0.3 s');
    t.regex(r.stderr, /network error \(127\.0\.0\.1:\d+: no answer within 0\.3 s\); retrying/);
    t.regex(
      r.stderr,
      /glossa: GET \/v1\/projects\/p_x\/status got no answer from 127\.0\.0\.1:\d+: no answer within 0\.3 s \(3 attempts\)/,
    );
    // GLOSSA_REQUEST_TIMEOUT says the same.
    const env = await glossa(['status'], {
      cwd,
      env: { GLOSSA_API_KEY: 'glk_x', GLOSSA_RETRIES: '0', GLOSSA_REQUEST_TIMEOUT: '0.2' },
    });
    t.is(env.code, 1);
    t.regex(env.stderr, /no answer within 0\.2 s/);
  },
);

test.serial(
  'smaller slips: --version, --json on a config error, languageMap case, templates, /v1, network failure',
  async (t) => {
    const version = (JSON.parse(readFileSync('packages/cli/package.json', 'utf8')) as { version: string }).version;
    const v = await glossa(['--json', '--version'], { cwd: '/' });
    t.is(v.code, 0);
    t.is(v.stdout, `${version}\n`);
    // A configuration error under --json: one JSON document on stdout.
    const none = await glossa(['--json', 'status'], { cwd: project({ 'README.md': 'x' }) });
    t.is(none.code, 2);
    t.like(JSON.parse(none.stdout), { ok: false, exitCode: 2 });
    // A template without a language placeholder.
    const one = project({
      'glossa.config.json': glossaConfig(svc.baseUrl, 'p_x', [
        { source: 'en.json', format: 'json', template: 'out.json' },
      ]),
      'en.json': { a: 'A' },
    });
    const refused = await glossa(['status'], { cwd: one, env: { GLOSSA_API_KEY: 'glk_x' } });
    t.is(refused.code, 2);
    t.regex(refused.stderr, /has no language placeholder/);
    // languageMap keys in any case: pt-BR is the API's pt-br.
    const p = await createTestProject(svc, { languages: [{ code: 'pt-BR' }] });
    const mapped = project({
      'glossa.config.json': { ...glossaConfig(svc.baseUrl, p.projectId), languageMap: { 'pt-BR': 'pt-PT' } },
      'en.json': { hello: 'Hello' },
    });
    const env = { GLOSSA_API_KEY: p.apiKey };
    t.is((await glossa(['push'], { cwd: mapped, env })).code, 0);
    await svc.admin.POST('/jobs/run-due', { body: {} });
    t.is((await glossa(['publish'], { cwd: mapped, env })).code, 0);
    const pulled = await glossa(['--json', 'pull'], { cwd: mapped, env });
    t.is(pulled.code, 0, pulled.stderr);
    t.deepEqual((JSON.parse(pulled.stdout) as { written: string[] }).written, ['pt-PT.json']);
    // A base URL without /v1: said how to fix.
    const bare = project({
      'glossa.config.json': glossaConfig(svc.baseUrl.replace(/\/v1$/, ''), p.projectId),
      'en.json': { hello: 'Hello' },
    });
    const slip = await glossa(['status'], { cwd: bare, env });
    t.is(slip.code, 1);
    t.regex(slip.stderr, /has no \/v1: the API lives under http:\/\/127\.0\.0\.1:\d+\/v1/);
    // Nothing listens: the host and the cause.
    const { server, url } = await stalled();
    await new Promise((r) => server.close(r));
    const gone = project({ 'glossa.config.json': glossaConfig(url, p.projectId), 'en.json': { a: 'A' } });
    const down = await glossa(['status'], { cwd: gone, env: { ...env, GLOSSA_RETRIES: '0' } });
    t.is(down.code, 1);
    t.regex(down.stderr, /got no answer from 127\.0\.0\.1:\d+: connect ECONNREFUSED/);
    t.false(existsIn(path.join(gone, '.glossa')));
  },
);

function existsIn(p: string) {
  try {
    readFileSync(p);
    return true;
  } catch {
    return false;
  }
}

test.serial(
  'what the CLI says: a replayed push, the dry run split with the memory, glossa memory, wait on a terminal, failed keys named',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    const cwd = project({
      'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId, [
        { source: 'strings.xml', format: 'android_xml', template: 'values-{android}/strings.xml' },
      ]),
      'strings.xml': ANDROID,
    });
    const env = { GLOSSA_API_KEY: p.apiKey };
    const dry = await glossa(['push', '--dry-run'], { cwd, env });
    t.is(dry.code, 0, dry.stderr);
    t.regex(dry.stdout, /2 units in 1 batches: would create 2, match 0; estimate \d+ mc/);
    t.regex(dry.stdout, /no orphans are disabled/);
    t.regex(dry.stdout, /memory de\s+\d+ pairs to translate/);
    t.regex(dry.stdout, /memory total: /);
    const first = await glossa(['push'], { cwd, env });
    t.is(first.code, 0, first.stderr);
    t.regex(first.stdout, /batch 1\/1: 2 created; \d+ mc/);
    const again = await glossa(['push'], { cwd, env });
    t.is(again.code, 0, again.stderr);
    t.regex(again.stdout, /batch 1\/1: unchanged since the same push ran \(replayed\); nothing created or charged now/);
    t.notRegex(again.stdout, /created;/);
    const mem = await glossa(['--json', 'memory'], { cwd, env });
    t.is(mem.code, 0, mem.stderr);
    t.like(JSON.parse(mem.stdout), { ok: true, totals: { pairs: 2 } });
    await svc.admin.POST('/jobs/run-due', { body: {} });
    // On a terminal the bar is erased at the end: the outcome stays.
    const waited = await glossa(['wait'], { cwd, env, tty: true });
    t.is(waited.code, 0, waited.stderr);
    t.regex(waited.stdout, /: done, 2\/2 translated, 0 failed/);
    // A pair whose fill failed (what fill.ts records) is named with its reason.
    const db = svc.service.app.db;
    const key = await db('keys').where({ project_id: p.projectId, name: 'welcome' }).first<{ id: number }>('id');
    await db('translations')
      .where({ key_id: key.id, lang: 'de' })
      .update({ status: 'pending', value: null, origin: null, job_id: null, fail_reason: 'engine refused the pair' });
    const st = await glossa(['status'], { cwd, env });
    t.is(st.code, 0, st.stderr);
    t.regex(st.stdout, /de .* 1 failed/);
    t.regex(st.stdout, /failed welcome \[de\]: engine refused the pair/);
    // A workspace without credits: the dry run says the push would be refused.
    const poor = await createTestProject(svc, { languages: [{ code: 'de' }], creditsMc: 0 });
    const broke = project({
      'glossa.config.json': glossaConfig(svc.baseUrl, poor.projectId, [
        { source: 'strings.xml', format: 'android_xml', template: 'values-{android}/strings.xml' },
      ]),
      'strings.xml': ANDROID,
    });
    const refused = await glossa(['push', '--dry-run'], { cwd: broke, env: { GLOSSA_API_KEY: poor.apiKey } });
    t.is(refused.code, 0, refused.stderr);
    t.regex(refused.stdout, /would be refused: 1 of 1 batches do not fit the balance \(0 mc\)/);
  },
);

test.serial(
  'push --dry-run on the translate path: the created/matched split, the orphans it keeps (named), would be refused',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    const env = { GLOSSA_API_KEY: p.apiKey };
    const android = [{ source: 'strings.xml', format: 'android_xml', template: 'values-{android}/strings.xml' }];
    const cwd = project({
      'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId, android),
      'strings.xml': ANDROID,
    });
    const first = await glossa(['push'], { cwd, env });
    t.is(first.code, 0, first.stderr);
    const none = await glossa(['push', '--dry-run'], { cwd, env });
    t.is(none.code, 0, none.stderr);
    t.regex(none.stdout, /2 units in 1 batches: would create 0, match 2; estimate 0 mc/);
    t.regex(none.stdout, /orphans: none \(every key of the project is in these files\)/);
    // The file drops app_name and adds a string: one created, one matched, app_name an orphan that stays enabled.
    const changed = ANDROID.replace(
      '<string name="app_name">Glossa demo</string>',
      '<string name="goodbye">See you</string>',
    );
    const dropped = project({
      'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId, android),
      'strings.xml': changed,
    });
    const dry = await glossa(['--json', 'push', '--dry-run'], { cwd: dropped, env });
    t.is(dry.code, 0, dry.stderr);
    const result = JSON.parse(dry.stdout) as { report: Array<{ orphans?: unknown }> };
    t.deepEqual(result.report.find((r) => r.orphans)?.orphans, {
      kept: ['app_name'],
      keptTotal: 1,
    });
    const text = await glossa(['push', '--dry-run'], { cwd: dropped, env });
    t.regex(text.stdout, /2 units in 1 batches: would create 1, match 1; estimate \d+ mc/);
    t.regex(text.stdout, /orphans: 1 keys of the project are in none of these files, and stay enabled: app_name/);
    t.notRegex(text.stdout, /would be refused/);
    // Nothing changed by any dry run.
    const st = await p.client.GET('/projects/{projectId}/status', { params: { path: { projectId: p.projectId } } });
    t.is(st.data!.keyCount, 2);
    // A workspace without credits: the split, and would be refused.
    const poor = await createTestProject(svc, { languages: [{ code: 'de' }], creditsMc: 0 });
    const broke = project({
      'glossa.config.json': glossaConfig(svc.baseUrl, poor.projectId, android),
      'strings.xml': changed,
    });
    const refused = await glossa(['push', '--dry-run'], { cwd: broke, env: { GLOSSA_API_KEY: poor.apiKey } });
    t.is(refused.code, 0, refused.stderr);
    t.regex(refused.stdout, /2 units in 1 batches: would create 2, match 0; estimate \d+ mc/);
    t.regex(refused.stdout, /would be refused: 1 of 1 batches do not fit the balance \(0 mc\)/);
  },
);

test.serial('an interrupted run (SIGINT) stops waiting and withdraws the operation it asked for', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const agentKey = await createTestKey(svc, p.projectId, ['translate', 'read'], true);
  const cwd = project({ 'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId), 'en.json': { a: 'Apple' } });
  const child = spawn(process.execPath, [...BIN_ARGS, '--poll', '0.05', 'push'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', GLOSSA_API_KEY: agentKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  for (let i = 0; i < 400 && !(await operations(p.projectId, 'pending_approval')).length; i++)
    await new Promise((r) => setTimeout(r, 25));
  t.is((await operations(p.projectId, 'pending_approval')).length, 1, stderr);
  child.kill('SIGINT');
  t.is(await exited, 3, stderr);
  t.regex(stderr, /Interrupted while waiting for approval; operation op_\w+ is withdrawn/);
  const ops = await operations(p.projectId);
  t.is(ops[0].state, 'cancelled');
});
