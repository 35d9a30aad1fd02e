// The agent-key rule (`x-operation-action`, spec/README.md), applied by the pipeline from each route's x-operation-action
// (server/infra/approval.ts): an agent key spends, publishes and rolls back only under an approved
// operation; free work, dry runs and reads need none; a key of either kind that names an operation is held to
// the operation checks (an unknown operationId is 404 operation_not_found; under an operation translate and
// sync carry every batch field or none), and on routes recorded under a requestId that refusal is recorded like
// any other, with nothing written. Operations themselves: operations*.test.ts.
import test from 'ava';
import {
  createTestKey,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const jsonFile = (obj: Record<string, string>) => ({ contentBase64: b64(JSON.stringify(obj)), fileName: 'en.json' });
const path = (p: TestProject) => ({ path: { projectId: p.projectId } });

async function keyCount(p: TestProject): Promise<number> {
  const r = await svc.admin.GET('/projects/{projectId}/keys', { params: path(p) });
  return r.data!.keys.length;
}

async function agentOf(p: TestProject) {
  return svc.client(await createTestKey(svc, p.projectId, ['translate', 'publish', 'read'], true));
}

test('an agent key syncs for free, but a sync that would queue paid translation is 403 with the estimate, writing nothing', async (t) => {
  const p = await createTestProject(svc);
  const agent = await agentOf(p);
  const paid = await agent.POST('/projects/{projectId}/sync', {
    params: path(p),
    body: jsonFile({ hello: 'Hello', bye: 'Goodbye' }),
  });
  t.is(paid.response.status, 403);
  t.like(paid.error, { error: 'authorization_required' });
  t.true((paid.error as { estimatedCredits: number }).estimatedCredits > 0);
  t.is(await keyCount(p), 0);
  const preview = await agent.POST('/projects/{projectId}/sync', {
    params: { ...path(p), query: { dryRun: 'true' } },
    body: jsonFile({ hello: 'Hello', bye: 'Goodbye' }),
  });
  t.is(preview.response.status, 200, 'a dry run needs no operation');

  // Once a person's key has synced and filled, the same file queues nothing billable: the agent may send it.
  t.is(
    (
      await p.client.POST('/projects/{projectId}/sync', {
        params: path(p),
        body: jsonFile({ hello: 'Hello', bye: 'Goodbye' }),
      })
    ).response.status,
    200,
  );
  await svc.admin.POST('/jobs/run-due', { body: {} });
  const free = await agent.POST('/projects/{projectId}/sync', {
    params: path(p),
    body: jsonFile({ hello: 'Hello', bye: 'Goodbye' }),
  });
  t.is(free.response.status, 200);
  t.like(free.data, { trackingToken: null, estimatedCredits: 0 });
});

test("an agent key cannot publish or restore without an operation; a person's key can, and an agent still reads", async (t) => {
  const p = await createTestProject(svc);
  const agent = await agentOf(p);
  await p.client.POST('/projects/{projectId}/translate', { params: path(p), body: { units: [{ source: 'Ready' }] } });
  await svc.admin.POST('/jobs/run-due', { body: {} });
  const published = await p.client.POST('/projects/{projectId}/publish', { params: path(p) });
  t.is(published.response.status, 201);
  const versionId = published.data!.versionId;

  const pub = await agent.POST('/projects/{projectId}/publish', { params: path(p) });
  t.is(pub.response.status, 403);
  t.like(pub.error, { error: 'authorization_required' });
  const back = await agent.POST('/projects/{projectId}/versions/{versionId}/restore', {
    params: { path: { projectId: p.projectId, versionId } },
  });
  t.is(back.response.status, 403);
  t.like(back.error, { error: 'authorization_required' });
  const meta = await svc.admin.GET('/projects/{projectId}/events', { params: path(p) });
  t.is(
    meta.data!.events.filter((e: { type: string }) => e.type === 'strings.published').length,
    1,
    'no version minted by the agent',
  );
  const read = await agent.GET('/projects/{projectId}/translations', {
    params: { ...path(p), query: { version: versionId, format: 'json', lang: 'de' } },
  });
  t.is(read.response.status, 200);
});

test('any key that names an operation is held to the operation checks: 404 operation_not_found, nothing written', async (t) => {
  const p = await createTestProject(svc);
  const operationId = 'op_unknown';
  const batch = { operationId, attemptId: 'a1', batchIndex: 0, batchSha256: '0'.repeat(64) };
  const push = await p.client.POST('/projects/{projectId}/translate', {
    params: path(p),
    body: { units: [{ source: 'Named' }], ...batch, requestId: 'named-1' },
  });
  t.is(push.response.status, 404);
  t.like(push.error, { error: 'operation_not_found' });
  const sync = await p.client.POST('/projects/{projectId}/sync', {
    params: path(p),
    body: { ...jsonFile({ named: 'Named' }), ...batch, requestId: 'named-2' },
  });
  t.like(sync.error, { error: 'operation_not_found' });
  // The batch fields go together: operationId alone, or a batch field without it, is 400 before any write.
  for (const partial of [{ operationId }, { attemptId: 'a1' }, { ...batch }]) {
    const r = await p.client.POST('/projects/{projectId}/translate', {
      params: path(p),
      body: { units: [{ source: 'Named' }], ...partial },
    });
    t.is(r.response.status, 400);
    t.like(r.error, { error: 'invalid_argument' });
  }
  const pub = await p.client.POST('/projects/{projectId}/publish', { params: path(p), body: { operationId } });
  t.like(pub.error, { error: 'operation_not_found' });
  t.is(await keyCount(p), 0);
  // A dry run ignores operationId.
  const dry = await p.client.POST('/projects/{projectId}/translate', {
    params: { ...path(p), query: { dryRun: 'true' } },
    body: { units: [{ source: 'Named' }], operationId },
  });
  t.is(dry.response.status, 200);
});

test('on a recorded route the operation refusal is recorded under the requestId, and the same request replays it', async (t) => {
  const p = await createTestProject(svc);
  const body = {
    units: [{ source: 'Recorded' }],
    operationId: 'op_unknown',
    requestId: 'approval-1',
    attemptId: 'a1',
    batchIndex: 0,
    batchSha256: '0'.repeat(64),
  };
  const first = await p.client.POST('/projects/{projectId}/translate', { params: path(p), body });
  t.is(first.response.status, 404);
  const record = await p.client.GET('/projects/{projectId}/requests/{requestId}', {
    params: { path: { projectId: p.projectId, requestId: 'approval-1' } },
  });
  t.like(record.data, { state: 'failed', status: 404, body: { error: 'operation_not_found' } });
  const again = await p.client.POST('/projects/{projectId}/translate', { params: path(p), body });
  t.is(again.response.status, 404);
  t.deepEqual(again.error, first.error);
  t.is(await keyCount(p), 0);
});
