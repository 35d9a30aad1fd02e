// `glossa mcp` driven by the MCP SDK's own client over stdio, against a running service: read tools,
// a push preview, and paid and publishing tools under an agent key, which send the person to the approval page as a
// URL-mode elicitation (approved here through the internal API, as the dashboard does) and go on once approved.
import { rmSync } from 'node:fs';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitationCompleteNotificationSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createTestKey, createTestProject, startTestService, type TestService } from '../../helpers/service.js';
import { BIN_ARGS, glossaConfig, repo } from '../../helpers/cli.js';

let svc: TestService;
const dirs: string[] = [];
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function connect(cwd: string, apiKey: string, onUrl?: (url: string, id: string) => Promise<void>) {
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
    env: { PATH: process.env.PATH ?? '', GLOSSA_API_KEY: apiKey },
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
      'preview_push',
      'publish',
      'pull_file',
      'push',
      'read_key',
      'rollback',
      'status',
      'sync',
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
    t.truthy((JSON.parse((file as Text).content[0].text) as { hello?: string }).hello);
    const again = json(await client.callTool({ name: 'publish', arguments: {} }));
    const rolled = json(await client.callTool({ name: 'rollback', arguments: { version: 'previous' } }));
    t.is(rolled.restoredFrom, published.versionId);
    t.not(again.versionId, rolled.versionId);
    t.is(elicited.length, 4);
    t.deepEqual(completed.length, 4, 'each elicitation is completed once its operation is approved');
  },
);

test.serial('a client without URL elicitation gets the approval_url in an error result; nothing is sent', async (t) => {
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
  t.regex(String(body.error), /A person must approve operation .* at http.*\/approve\//);
  const st = json(await client.callTool({ name: 'status', arguments: {} }));
  t.is(st.keyCount, 0, 'nothing was pushed');
});
