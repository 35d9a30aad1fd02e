// Publish and rollback under an operation (spec/README.md, "Operations"): scope equality, single use taken before
// the write and given back on a refusal that minted nothing, a rollback bound to its from/to versions, and the
// approval page's plan for both. Agent publish and rollback end to end through the SDK.
import test from 'ava';
import type { ApiClient } from '../../packages/client/src/index.js';
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

const path = (p: TestProject) => ({ path: { projectId: p.projectId } });

/** A project with one filled key and a first version published by a person's key. */
async function published(): Promise<{ p: TestProject; agent: ApiClient; v1: string }> {
  const p = await createTestProject(svc);
  await p.client.POST('/projects/{projectId}/translate', { params: path(p), body: { units: [{ source: 'Ready' }] } });
  for (let i = 0; i < 50; i++) {
    await svc.admin.POST('/jobs/run-due', { body: {} });
    const keys = await svc.admin.GET('/projects/{projectId}/keys', { params: path(p) });
    if (JSON.stringify(keys.data).includes('"translated"')) break;
  }
  const v1 = (await p.client.POST('/projects/{projectId}/publish', { params: path(p) })).data!.versionId;
  const agent = svc.client(await createTestKey(svc, p.projectId, ['publish', 'read'], true));
  return { p, agent, v1 };
}

async function approved(agent: ApiClient, scope: Record<string, unknown>, action: 'publish' | 'rollback') {
  const op = (await agent.POST('/operations', { body: { action, scope } as never })).data!;
  await svc.admin.POST('/operations/{operationId}/approve', { params: { path: { operationId: op.operation_id } } });
  return op.operation_id;
}

const readOp = (agent: ApiClient, operationId: string) =>
  agent.GET('/operations/{operationId}', { params: { path: { operationId } } }).then((r) => r.data!);

test('an agent publishes under an approved publish operation, once; other flags are scope_changed', async (t) => {
  const { p, agent } = await published();
  const operationId = await approved(agent, { project_id: p.projectId, require_complete: false }, 'publish');
  const plan = await svc.admin.GET('/operations/{operationId}', { params: { path: { operationId } } });
  t.like(plan.data!.plan, { action: 'publish', publish: { keys_total: 1, approved_only: false } });
  const other = await agent.POST('/projects/{projectId}/publish', {
    params: path(p),
    body: { operationId, approvedOnly: true },
  });
  t.is(other.response.status, 409);
  t.like(other.error, { error: 'scope_changed' });
  const mode = await agent.POST('/projects/{projectId}/publish', {
    params: path(p),
    body: { operationId, incompleteMode: 'skip' },
  });
  t.like(mode.error, { error: 'scope_changed' }, 'an omitted incomplete_mode matches no incompleteMode');
  const ok = await agent.POST('/projects/{projectId}/publish', { params: path(p), body: { operationId } });
  t.is(ok.response.status, 201);
  const op = await readOp(agent, operationId);
  t.is(op.state, 'exhausted');
  t.deepEqual(
    op.attempts.map((a) => [a.attempt_id, a.batch_index, a.request_id, a.state]),
    [['publish', null, null, 'done']],
  );
  const twice = await agent.POST('/projects/{projectId}/publish', { params: path(p), body: { operationId } });
  t.is(twice.response.status, 409);
  t.like(twice.error, { error: 'operation_not_approved' });
});

// Serial: another test's run-due would fill the missing translation meanwhile.
test.serial(
  'a publish refused without minting gives the use back (fill_incomplete, output_format_conflict)',
  async (t) => {
    const { p, agent } = await published();
    // A key with no translation yet: require_complete refuses.
    await p.client.POST('/projects/{projectId}/translate', { params: path(p), body: { units: [{ source: 'Later' }] } });
    const operationId = await approved(agent, { project_id: p.projectId, require_complete: true }, 'publish');
    const refused = await agent.POST('/projects/{projectId}/publish', {
      params: path(p),
      body: { operationId, require_complete: true },
    });
    t.is(refused.response.status, 409);
    t.like(refused.error, { error: 'fill_incomplete' });
    const op = await readOp(agent, operationId);
    t.is(op.state, 'approved', 'the use was given back');
    t.is(op.attempts[0].state, 'failed');
    const format = await agent.POST('/projects/{projectId}/publish', {
      params: path(p),
      body: { operationId, require_complete: true, requiredOutputFormat: 'po' },
    });
    t.like(format.error, { error: 'output_format_conflict' });
    t.is((await readOp(agent, operationId)).state, 'approved');
  },
);

test('a rollback under an operation: from must still be current, to must be what the request resolves to', async (t) => {
  const { p, agent, v1 } = await published();
  await p.client.POST('/projects/{projectId}/translate', { params: path(p), body: { units: [{ source: 'Second' }] } });
  const v2 = (
    await p.client.POST('/projects/{projectId}/publish', { params: path(p), body: { incompleteMode: 'source' } })
  ).data!.versionId;
  const operationId = await approved(
    agent,
    { project_id: p.projectId, from_version: 'current', to_version: 'previous' },
    'rollback',
  );
  const op = await readOp(agent, operationId);
  t.deepEqual(op.scope, { project_id: p.projectId, from_version: v2, to_version: v1 });
  const plan = await svc.admin.GET('/operations/{operationId}', { params: { path: { operationId } } });
  t.like(plan.data!.plan, {
    action: 'rollback',
    rollback: { from_version: v2, to_version: v1, from_key_count: 2, to_key_count: 1, from_is_current: true },
  });
  const publishUnder = await agent.POST('/projects/{projectId}/publish', { params: path(p), body: { operationId } });
  t.like(publishUnder.error, { error: 'scope_changed' }, 'a rollback operation does not publish');
  const wrongTarget = await agent.POST('/projects/{projectId}/versions/{versionId}/restore', {
    params: { path: { projectId: p.projectId, versionId: v2 } },
    body: { operationId },
  });
  t.like(wrongTarget.error, { error: 'scope_changed' });
  const ok = await agent.POST('/projects/{projectId}/versions/{versionId}/restore', {
    params: { path: { projectId: p.projectId, versionId: 'previous' } },
    body: { operationId },
  });
  t.is(ok.response.status, 201);
  t.is(ok.data!.restoredFrom, v1);
  t.is((await readOp(agent, operationId)).state, 'exhausted');

  // A second rollback operation made now; a publish meanwhile moves `current`, and the rollback is refused.
  const again = await approved(agent, { project_id: p.projectId, from_version: 'current', to_version: v2 }, 'rollback');
  await p.client.POST('/projects/{projectId}/publish', { params: path(p), body: { incompleteMode: 'source' } });
  const stale = await agent.POST('/projects/{projectId}/versions/{versionId}/restore', {
    params: { path: { projectId: p.projectId, versionId: v2 } },
    body: { operationId: again },
  });
  t.like(stale.error, { error: 'scope_changed' });
  t.is((await readOp(agent, again)).state, 'approved', 'a check before the use takes nothing');
});

test('a pending, denied or foreign operation publishes nothing', async (t) => {
  const { p, agent } = await published();
  const op = (await agent.POST('/operations', { body: { action: 'publish', scope: { project_id: p.projectId } } }))
    .data!;
  const pending = await agent.POST('/projects/{projectId}/publish', {
    params: path(p),
    body: { operationId: op.operation_id },
  });
  t.like(pending.error, { error: 'operation_not_approved' });
  const foreign = await p.client.POST('/projects/{projectId}/publish', {
    params: path(p),
    body: { operationId: op.operation_id },
  });
  t.like(foreign.error, { error: 'operation_not_found' });
  await svc.admin.POST('/operations/{operationId}/deny', { params: { path: { operationId: op.operation_id } } });
  const denied = await agent.POST('/projects/{projectId}/publish', {
    params: path(p),
    body: { operationId: op.operation_id },
  });
  t.like(denied.error, { error: 'operation_not_approved' });
});
