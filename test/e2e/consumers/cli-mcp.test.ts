// `glossa mcp` driven by the MCP SDK's own client over stdio, against a running service: read tools,
// a push preview, and paid and publishing tools under an agent key, which send the person to the approval page as a
// URL-mode elicitation (approved here through the internal API, as the dashboard does) and go on once approved.
// A client without URL elicitation calls again after the approval; a client that gives up (its timeout) leaves
// its operation cancelled and nothing spent; progress during waits; every tool described with an output schema;
// a server without a config file answers with what is missing, and works on a project named by the environment.
import { rmSync } from 'node:fs';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitationCompleteNotificationSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
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

async function connect(
  cwd: string,
  apiKey: string,
  onUrl?: (url: string, id: string) => Promise<void>,
  env: Record<string, string> = {},
) {
  const client = new Client(
    { name: 'glossa-test', version: '1.0.0' },
    { capabilities: onUrl ? { elicitation: { url: {} } } : {} },
  );
  const elicited: string[] = [];
  const completed: string[] = [];
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
    completed.push(n.params.elicitationId);
  });
  if (onUrl)
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      const params = req.params as { mode?: string; url?: string; elicitationId?: string };
      elicited.push(`${params.mode} ${params.url}`);
      await onUrl(params.url!, params.elicitationId!);
      return { action: 'accept' };
    });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...BIN_ARGS, '--poll', '0.05', 'mcp'],
    cwd,
    env: { PATH: process.env.PATH ?? '', GLOSSA_API_KEY: apiKey, ...env },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return { client, elicited, completed };
}

type Text = { content: Array<{ type: string; text: string }>; isError?: boolean };
const json = (r: unknown) => JSON.parse((r as Text).content[0].text) as Record<string, unknown>;

test.serial(
  'tools over stdio: status, preview, push with a URL elicitation for approval, wait, publish, pull_file, rollback',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    const agentKey = await createTestKey(svc, p.projectId, ['translate', 'publish', 'read'], true);
    const cwd = repo({
      'glossa.config.json': {
        baseUrl: svc.baseUrl,
        projectId: p.projectId,
        files: [{ source: 'locales/en.json', format: 'json', template: 'locales/{locale}.json' }],
      },
      'locales/en.json': { hello: 'Hello', bye: 'Goodbye' },
    });
    dirs.push(cwd);
    const approve = async (url: string, id: string) => {
      t.true(url.endsWith(`/approve/${id}`));
      const r = await svc.admin.POST('/operations/{operationId}/approve', { params: { path: { operationId: id } } });
      t.is(r.response.status, 200);
    };
    const { client, elicited, completed } = await connect(cwd, agentKey, approve);
    t.teardown(() => client.close());
    const tools = (await client.listTools()).tools.map((x) => x.name).sort();
    t.deepEqual(tools, [
      'cancel_operation',
      'check_failures',
      'get_key',
      'mark_reviewed',
      'memory_leverage',
      'memory_matches',
      'preview_publish',
      'preview_push',
      'publish',
      'pull_file',
      'push',
      'read_key',
      'retranslate_cells',
      'retranslate_outdated',
      'rollback',
      'search_keys',
      'set_translation',
      'status',
      'sync',
      'terms',
      'wait',
    ]);
    const st = json(await client.callTool({ name: 'status', arguments: {} }));
    t.is(st.keyCount, 0);
    const preview = json(await client.callTool({ name: 'preview_push', arguments: {} }));
    t.like(preview, { ok: true, dryRun: true });
    t.is(elicited.length, 0, 'a preview needs no approval');
    const pushed = await client.callTool({ name: 'push', arguments: {} });
    t.falsy((pushed as Text).isError, (pushed as Text).content[0].text);
    t.is(elicited.length, 1);
    t.regex(elicited[0], /^url http.*\/approve\//);
    t.is((json(pushed).trackingTokens as string[]).length, 1);
    await svc.admin.POST('/jobs/run-due', { body: {} });
    t.like(json(await client.callTool({ name: 'wait', arguments: {} })), { ok: true, failedPairs: 0 });
    const key = json(await client.callTool({ name: 'read_key', arguments: { ref: 'hello', lang: 'de' } }));
    t.like(key, { key: 'hello' });
    const published = json(await client.callTool({ name: 'publish', arguments: { label: 'mcp' } }));
    t.is(elicited.length, 2, 'publishing went through the person too');
    t.regex(String(published.versionId), /^\d{4}\.\d{2}\.\d{2}\.1$/);
    const file = await client.callTool({ name: 'pull_file', arguments: { format: 'json', lang: 'de' } });
    const files = (file.structuredContent as { files: Array<{ text: string }> }).files;
    t.truthy((JSON.parse(files[0].text) as { hello?: string }).hello);
    const noLang = await client.callTool({ name: 'pull_file', arguments: { format: 'json' } });
    t.true(noLang.isError, 'a per-language format needs lang');
    t.regex((noLang as Text).content[0].text, /one file per language: name lang/);
    const again = json(await client.callTool({ name: 'publish', arguments: {} }));
    const rolled = json(await client.callTool({ name: 'rollback', arguments: { version: 'previous' } }));
    t.is(rolled.restoredFrom, published.versionId);
    t.not(again.versionId, rolled.versionId);
    t.is(elicited.length, 4);
    t.deepEqual(completed.length, 4, 'each elicitation is completed once its operation is approved');
  },
);

const operations = async (projectId: string, state?: 'pending_approval') =>
  (
    await svc.admin.GET('/projects/{projectId}/operations', {
      params: { path: { projectId }, query: state ? { state } : {} },
    })
  ).data!.operations;

test.serial(
  'a client without URL elicitation: the link in an error result, nothing sent; after the approval a rerun pushes; an unchanged rerun asks nobody',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    const agentKey = await createTestKey(svc, p.projectId, ['translate', 'publish', 'read'], true);
    const cwd = repo({
      'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId),
      'en.json': { hello: 'Hello' },
    });
    dirs.push(cwd);
    const { client } = await connect(cwd, agentKey);
    t.teardown(() => client.close());
    const r = (await client.callTool({ name: 'push', arguments: {} })) as Text;
    t.true(r.isError);
    const body = json(r);
    t.is(body.exitCode, 3);
    t.regex(String(body.error), /A person must approve operation .* at http.*\/approve\/.*call this tool again/);
    const st = json(await client.callTool({ name: 'status', arguments: {} }));
    t.is(st.keyCount, 0, 'nothing was pushed');
    // Asked again before anyone decided: the same operation, still one in the queue.
    t.true((await client.callTool({ name: 'push', arguments: {} })).isError);
    const pending = await operations(p.projectId, 'pending_approval');
    t.is(pending.length, 1);
    t.is(pending[0].operation_id, (body.detail as { operation_id: string }).operation_id);
    await svc.admin.POST('/operations/{operationId}/approve', {
      params: { path: { operationId: pending[0].operation_id } },
    });
    const pushed = await client.callTool({ name: 'push', arguments: {} });
    t.falsy(pushed.isError, (pushed as Text).content[0].text);
    t.is((pushed.structuredContent as { trackingTokens: string[] }).trackingTokens.length, 1);
    const again = await client.callTool({ name: 'push', arguments: {} });
    t.falsy(again.isError, (again as Text).content[0].text);
    t.is((await operations(p.projectId)).length, 1, 'an unchanged rerun creates no operation');
  },
);

test.serial(
  'retranslate_cells: an agent key asks a person (no elicitation), the rerun after approval queues, an unchanged rerun replays and asks nobody',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
    const cwd = repo({
      'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId),
      'en.json': { hello: 'Hello', bye: 'Goodbye' },
    });
    dirs.push(cwd);
    const pushed = await glossa(['push'], { cwd, env: { GLOSSA_API_KEY: p.apiKey } });
    t.is(pushed.code, 0, pushed.stderr);
    await svc.admin.POST('/jobs/run-due', { body: {} });
    const db = svc.service.app.db;
    const values = () =>
      db('translations as t')
        .join('keys as k', 'k.id', 't.key_id')
        .where('t.project_id', p.projectId)
        .orderBy(['k.name', 't.lang'])
        .select('k.name', 't.lang', 't.value', 't.status');
    const before = await values();
    t.true(before.every((v: { status: string }) => v.status === 'translated'));
    const agentKey = await createTestKey(svc, p.projectId, ['translate', 'read'], true);
    const { client } = await connect(cwd, agentKey);
    t.teardown(() => client.close());
    const cells = [
      { key: 'hello', lang: 'de' },
      { key: 'bye', lang: 'de' },
    ];
    const asked = (await client.callTool({ name: 'retranslate_cells', arguments: { cells } })) as Text;
    t.true(asked.isError);
    t.regex(
      json(asked).error as string,
      /A person must approve operation op_\w+ at http.*\/approve\/op_\w+; once it is approved, call this tool again/,
    );
    t.deepEqual(await values(), before, 'nothing was written before the approval');
    const pending = await operations(p.projectId, 'pending_approval');
    t.is(pending.length, 1);
    const plan = await svc.admin.GET('/operations/{operationId}', {
      params: { path: { operationId: pending[0].operation_id } },
    });
    t.deepEqual(plan.data!.plan!.translate!.batches[0].sample, ['hello [de]: Hello', 'bye [de]: Goodbye']);
    await svc.admin.POST('/operations/{operationId}/approve', {
      params: { path: { operationId: pending[0].operation_id } },
    });
    const ran = await client.callTool({ name: 'retranslate_cells', arguments: { cells } });
    t.falsy(ran.isError, (ran as Text).content[0].text);
    t.like(ran.structuredContent, { ok: true, queued: 2, operationId: pending[0].operation_id });
    const during = await values();
    t.deepEqual(
      during.filter((v: { status: string }) => v.status === 'pending').map((v: { name: string }) => v.name),
      ['bye', 'hello'],
    );
    const again = await client.callTool({ name: 'retranslate_cells', arguments: { cells } });
    t.falsy(again.isError, (again as Text).content[0].text);
    t.like(again.structuredContent, { ok: true, replayed: true, queued: 2 });
    t.is((await operations(p.projectId)).length, 1, 'an unchanged rerun creates no operation');
    await svc.admin.POST('/jobs/run-due', { body: {} });
    const after = await values();
    t.true(after.every((v: { status: string }) => v.status === 'translated'));
    // A person's key runs at once; a bad cell is the service's documented refusal, as an error result.
    const own = await connect(cwd, p.apiKey);
    t.teardown(() => own.client.close());
    const direct = await own.client.callTool({
      name: 'retranslate_cells',
      arguments: { cells: [{ key: 'hello', lang: 'fr' }] },
    });
    t.like(direct.structuredContent, { ok: true, queued: 1, cells: [{ key: 'hello', lang: 'fr', outcome: 'queued' }] });
    const bad = (await own.client.callTool({
      name: 'retranslate_cells',
      arguments: { cells: [{ key: 'nope', lang: 'fr' }] },
    })) as Text;
    t.true(bad.isError);
    t.regex(json(bad).error as string, /404 not_found: cells\/0: no key nope/);
  },
);

test.serial(
  'a client that gives up before the person approves: the operation is cancelled and nothing is spent; progress while waiting',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    const agentKey = await createTestKey(svc, p.projectId, ['translate', 'publish', 'read'], true);
    const cwd = repo({
      'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId),
      'en.json': { hello: 'Hello', bye: 'Goodbye' },
    });
    dirs.push(cwd);
    // The person opens the page (the elicitation is accepted) but decides only later.
    const { client } = await connect(cwd, agentKey, async () => {});
    t.teardown(() => client.close());
    const balance = async () =>
      (await svc.admin.GET('/projects/{projectId}/overview', { params: { path: { projectId: p.projectId } } })).data!
        .workspace;
    const before = await balance();
    // The 10 s client and 15 s person, scaled down: the client gives up at 1 s.
    const progress: string[] = [];
    const gaveUp = await t.throwsAsync(
      client.callTool({ name: 'push', arguments: {} }, undefined, {
        timeout: 1000,
        onprogress: (n) => void progress.push(n.message ?? ''),
      }),
    );
    t.regex(String(gaveUp?.message), /timed out/i);
    t.true(progress.length > 0, 'progress was reported while waiting');
    t.regex(progress[0], /Waiting for a person to approve operation op_/);
    let ops = await operations(p.projectId);
    for (let i = 0; i < 100 && ops[0]?.state !== 'cancelled'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      ops = await operations(p.projectId);
    }
    t.is(ops.length, 1);
    t.is(ops[0].state, 'cancelled', 'the abandoned call withdrew its operation');
    await new Promise((r) => setTimeout(r, 500));
    const late = await svc.admin.POST('/operations/{operationId}/approve', {
      params: { path: { operationId: ops[0].operation_id } },
    });
    t.is(late.response.status, 409, 'the person finds nothing to approve');
    await new Promise((r) => setTimeout(r, 200));
    t.deepEqual(await balance(), before, 'nothing spent');
    const st = json(await client.callTool({ name: 'status', arguments: {} }));
    t.is(st.keyCount, 0, 'nothing was pushed');
    t.deepEqual(await operations(p.projectId, 'pending_approval'), []);
  },
);

test.serial('every tool and every parameter is described; every tool has an output schema', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const cwd = repo({ 'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId), 'en.json': { a: 'A' } });
  dirs.push(cwd);
  const { client } = await connect(cwd, p.apiKey);
  t.teardown(() => client.close());
  const { tools } = await client.listTools();
  t.true(tools.length >= 14);
  for (const tool of tools) {
    t.true((tool.description ?? '').length > 20, `${tool.name} is described`);
    t.truthy(tool.outputSchema, `${tool.name} has an output schema`);
    t.truthy(tool.annotations, `${tool.name} is annotated`);
    for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {}))
      t.true(((schema as { description?: string }).description ?? '').length > 5, `${tool.name}.${name} is described`);
  }
  const byName = new Map(tools.map((x) => [x.name, x]));
  t.true(byName.get('push')!.annotations!.destructiveHint, 'a push disables keys gone from a file');
  t.true(byName.get('push')!.annotations!.idempotentHint, 'a rerun of a push replays');
  t.true(byName.get('status')!.annotations!.readOnlyHint);
  // Structured content matches the schema (the SDK client validates it).
  const st = await client.callTool({ name: 'status', arguments: {} });
  t.like(st.structuredContent, { ok: true, keyCount: 0 });
  const terms = await client.callTool({ name: 'terms', arguments: {} });
  t.like(terms.structuredContent, { ok: true, total: 0 });
  const lev = await client.callTool({ name: 'memory_leverage', arguments: {} });
  t.falsy(lev.isError, (lev as Text).content[0].text);
  const checks = await client.callTool({ name: 'check_failures', arguments: {} });
  t.falsy(checks.isError, (checks as Text).content[0].text);
});

test.serial(
  'no config file: the server starts and every tool says what is missing; the environment alone names a project',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
    const empty = repo({ 'README.md': 'no config here' });
    dirs.push(empty);
    const bare = await connect(empty, p.apiKey);
    t.teardown(() => bare.client.close());
    t.true((await bare.client.listTools()).tools.length > 0);
    const r = await bare.client.callTool({ name: 'status', arguments: {} });
    t.true(r.isError);
    t.regex((r as Text).content[0].text, /No glossa\.config\.json .* GLOSSA_PROJECT_ID/);
    const named = await connect(empty, p.apiKey, undefined, {
      GLOSSA_BASE_URL: svc.baseUrl,
      GLOSSA_PROJECT_ID: p.projectId,
    });
    t.teardown(() => named.client.close());
    t.like(json(await named.client.callTool({ name: 'status', arguments: {} })), { ok: true, keyCount: 0 });
    const push = await named.client.callTool({ name: 'push', arguments: {} });
    t.true(push.isError);
    t.regex((push as Text).content[0].text, /No files are mapped/);
  },
);

test.serial(
  'an agent session: finds the untranslated keys of a namespace, fills three by hand, marks them reviewed, asks for a publish that shows exactly that',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }] });
    const cwd = repo({
      'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId, [
        { source: 'app/en.json', format: 'json', template: 'app/{locale}.json', namespace: 'app' },
        { source: 'web/en.json', format: 'json', template: 'web/{locale}.json', namespace: 'web' },
      ]),
      'app/en.json': { title: 'Inbox', empty: 'Nothing here', retry: 'Try again', help: 'Help' },
      'web/en.json': { title: 'Home' },
    });
    dirs.push(cwd);
    const pushed = await glossa(['push'], { cwd, env: { GLOSSA_API_KEY: p.apiKey } });
    t.is(pushed.code, 0, pushed.stderr);
    const agentKey = await createTestKey(svc, p.projectId, ['read', 'write', 'publish'], true);
    let plan: Record<string, unknown> | undefined;
    const { client } = await connect(cwd, agentKey, async (_url, id) => {
      const op = await svc.admin.GET('/operations/{operationId}', { params: { path: { operationId: id } } });
      plan = op.data?.plan;
      await svc.admin.POST('/operations/{operationId}/approve', { params: { path: { operationId: id } } });
    });
    t.teardown(() => client.close());
    const found = await client.callTool({
      name: 'search_keys',
      arguments: { namespace: 'app', lang: 'de', status: 'missing' },
    });
    t.falsy(found.isError, (found as Text).content[0].text);
    const keys = (found.structuredContent as { keys: Array<{ key: string; source: string }> }).keys;
    t.deepEqual(keys.map((k) => k.key).sort(), ['empty', 'help', 'retry', 'title']);
    const german: Record<string, string> = { title: 'Posteingang', empty: 'Hier ist nichts', retry: 'Nochmal' };
    for (const [key, value] of Object.entries(german)) {
      const set = await client.callTool({ name: 'set_translation', arguments: { key, lang: 'de', value } });
      t.like(set.structuredContent, { ok: true, status: 'translated', value });
      const reviewed = await client.callTool({ name: 'mark_reviewed', arguments: { key, lang: 'de' } });
      t.like(reviewed.structuredContent, { ok: true, status: 'reviewed' });
    }
    const read = await client.callTool({ name: 'get_key', arguments: { key: 'title' } });
    const detail = read.structuredContent as { cells: Array<{ status: string }>; history: Array<{ by: string }> };
    t.is(detail.cells[0].status, 'reviewed');
    t.regex(detail.history[0].by, /^key:/, 'the history names the key that edited');
    const left = await client.callTool({
      name: 'search_keys',
      arguments: { namespace: 'app', lang: 'de', status: 'missing' },
    });
    t.deepEqual(
      (left.structuredContent as { keys: Array<{ key: string }> }).keys.map((k) => k.key),
      ['help'],
    );
    const preview = await client.callTool({ name: 'preview_publish', arguments: { incompleteMode: 'skip' } });
    t.falsy(preview.isError, (preview as Text).content[0].text);
    const previewDe = (
      preview.structuredContent as { languages: Array<{ lang: string; addedTotal: number }> }
    ).languages.find((l) => l.lang === 'de');
    t.is(previewDe?.addedTotal, 3, 'the agent sees what it would publish');
    const published = await client.callTool({ name: 'publish', arguments: { incompleteMode: 'skip' } });
    t.falsy(published.isError, (published as Text).content[0].text);
    // The person's approval page showed exactly the three reviewed values as the change.
    const pub = (plan as { publish: { cells_changed: number; languages: Array<Record<string, unknown>> } }).publish;
    t.is(pub.cells_changed, 3);
    const de = pub.languages.find((l) => l.lang === 'de' || l.code === 'de') as Record<string, unknown>;
    t.truthy(de, JSON.stringify(pub.languages));
    t.is(JSON.stringify(de).match(/Posteingang|Hier ist nichts|Nochmal/g)?.length, 3);
  },
);
