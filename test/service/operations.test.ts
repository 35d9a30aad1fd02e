// Operations (spec: `createOperation`, `getOperation`, and the internal approve,
// deny, read-with-plan and list): create or reuse, who may read, scopes by action, expiry by the sweep under a
// simulated clock (request records too), and the decisions with who made them.
import test from 'ava';
import { batchManifest, previewTranslate, translate } from '../../packages/client/src/index.js';
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

const MIN = 60_000;
/** `p`: that project's jobs and sweeps alone, so that the test need not run alone. */
const runDue = (at: number, p?: TestProject) =>
  svc.admin.POST('/jobs/run-due', { body: { now: new Date(at).toISOString(), projectId: p?.projectId } });

async function agentOf(p: TestProject, scopes: Array<'translate' | 'publish' | 'read'> = ['translate', 'publish']) {
  return svc.client(await createTestKey(svc, p.projectId, scopes, true));
}

/** A translate operation's create body for one previewed batch of `units`. */
async function translateBody(p: TestProject, agent: ReturnType<TestService['client']>, sources: string[]) {
  const units = sources.map((source) => ({ source }));
  const preview = await previewTranslate(agent, p.projectId, { units });
  const manifest = await batchManifest([{ sha256: preview.data!.batchSha256!, unit_count: units.length }]);
  return {
    units,
    preview: preview.data!,
    body: {
      action: 'translate' as const,
      max_credits: 5,
      scope: { project_id: p.projectId, langs: ['de', 'fr'], unit_count: units.length, ...manifest },
    },
  };
}

test('create answers 201 pending_approval with every field of 2.9; only the creating key reads it', async (t) => {
  const p = await createTestProject(svc);
  const agent = await agentOf(p);
  const { body } = await translateBody(p, agent, ['Hello', 'Goodbye']);
  const before = Date.now();
  const created = await agent.POST('/operations', { body });
  t.is(created.response.status, 201);
  const op = created.data!;
  t.like(op, {
    action: 'translate',
    state: 'pending_approval',
    requested_mc: 5000,
    authorized_mc: 0,
    reserved_mc: 0,
    charged_mc: 0,
    absorbed_mc: 0,
    attempts: [],
  });
  t.is(op.approval_url, `${svc.service.app.config.publicAppUrl}/approve/${op.operation_id}`);
  const expires = Date.parse(op.expires_at);
  t.true(expires >= before + 30 * MIN - 1000 && expires <= Date.now() + 30 * MIN);
  t.deepEqual(op.scope.langs, ['de', 'fr']);

  const read = await agent.GET('/operations/{operationId}', { params: { path: { operationId: op.operation_id } } });
  t.deepEqual(read.data, op);
  // Another key of the same project, a malformed id, no key, a wrong key: the same 404.
  for (const client of [p.client, svc.client(), svc.client('glk_nope_nope'), agent]) {
    const id = client === agent ? 'op_missing' : op.operation_id;
    const r = await client.GET('/operations/{operationId}', { params: { path: { operationId: id } } });
    t.is(r.response.status, 404);
    t.like(r.error, { error: 'operation_not_found' });
  }
  const malformed = await agent.GET('/operations/{operationId}', { params: { path: { operationId: '%%%' } } });
  t.like(malformed.error, { error: 'operation_not_found' });
});

test('create checks the scope: the action decides the key scope; another project is 404; a bad manifest is 400', async (t) => {
  const p = await createTestProject(svc);
  const translator = await agentOf(p, ['translate']);
  const { body } = await translateBody(p, translator, ['Scoped']);
  const publishOnly = await agentOf(p, ['publish']);
  const r = await publishOnly.POST('/operations', { body });
  t.is(r.response.status, 403);
  t.like(r.error, { error: 'forbidden' });
  const pub = await translator.POST('/operations', {
    body: { action: 'publish', scope: { project_id: p.projectId } },
  });
  t.is(pub.response.status, 403);
  const other = await createTestProject(svc);
  const foreign = await translator.POST('/operations', {
    body: { ...body, scope: { ...body.scope, project_id: other.projectId } },
  });
  t.is(foreign.response.status, 404);
  t.like(foreign.error, { error: 'not_found' });
  const badPayload = await translator.POST('/operations', {
    body: { ...body, scope: { ...body.scope, payload_sha256: '0'.repeat(64) } },
  });
  t.is(badPayload.response.status, 400);
  t.like(badPayload.error, { error: 'invalid_argument' });
  const badCount = await translator.POST('/operations', {
    body: { ...body, scope: { ...body.scope, unit_count: 7 } },
  });
  t.is(badCount.response.status, 400);
  const badOrder = await translator.POST('/operations', {
    body: {
      ...body,
      scope: { ...body.scope, batches: [{ ...body.scope.batches[0], index: 3 }] },
    },
  });
  t.is(badOrder.response.status, 400);
  const manual = await translator.POST('/operations', {
    body: { ...body, scope: { ...body.scope, langs: ['xx'] } },
  });
  t.is(manual.response.status, 400);
  const listed = await svc.admin.GET('/projects/{projectId}/operations', {
    params: { path: { projectId: p.projectId } },
  });
  t.deepEqual(listed.data!.operations, [], 'nothing was written by a refused create');
});

test('20 concurrent equivalent creates give one operation; a denied one is not reused', async (t) => {
  const p = await createTestProject(svc);
  const agent = await agentOf(p);
  const { body } = await translateBody(p, agent, ['Race']);
  const all = await Promise.all(Array.from({ length: 20 }, () => agent.POST('/operations', { body })));
  const ids = new Set(all.map((r) => r.data?.operation_id));
  t.is(ids.size, 1);
  t.true(all.every((r) => r.response.status === 201));
  const [id] = [...ids] as string[];
  const listed = await svc.admin.GET('/projects/{projectId}/operations', {
    params: { path: { projectId: p.projectId }, query: { state: 'pending_approval' } },
  });
  t.deepEqual(
    listed.data!.operations.map((o) => o.operation_id),
    [id],
  );
  // Reposting reuses the pending one and does not extend its expiry.
  const again = await agent.POST('/operations', { body });
  t.is(again.data!.operation_id, id);
  t.is(again.data!.expires_at, all[0].data!.expires_at);
  const denied = await svc.admin.POST('/operations/{operationId}/deny', {
    params: { path: { operationId: id } },
    body: { decidedBy: 'usr_reviewer' },
  });
  t.like(denied.data, { state: 'denied', decided_by: 'usr_reviewer' });
  t.truthy(denied.data!.decided_at);
  const fresh = await agent.POST('/operations', { body });
  t.not(fresh.data!.operation_id, id);
  t.is(fresh.data!.state, 'pending_approval');
  // Another key's equivalent create is its own operation.
  const other = await agentOf(p);
  const theirs = await other.POST('/operations', { body });
  t.not(theirs.data!.operation_id, fresh.data!.operation_id);
});

test('approve: default what was requested, may lower, never raise; decisions are final and record who and when', async (t) => {
  const p = await createTestProject(svc);
  const agent = await agentOf(p);
  const { body } = await translateBody(p, agent, ['Approve me']);
  const op = (await agent.POST('/operations', { body })).data!;
  const path = { params: { path: { operationId: op.operation_id } } };
  const raised = await svc.admin.POST('/operations/{operationId}/approve', { ...path, body: { authorizedCredits: 6 } });
  t.is(raised.response.status, 400);
  t.like(raised.error, { error: 'invalid_argument' });
  const lowered = await svc.admin.POST('/operations/{operationId}/approve', {
    ...path,
    body: { authorizedCredits: 2 },
  });
  t.like(lowered.data, { state: 'approved', authorized_mc: 2000, requested_mc: 5000, decided_by: 'admin' });
  const twice = await svc.admin.POST('/operations/{operationId}/approve', path);
  t.is(twice.response.status, 409);
  t.like(twice.error, { error: 'operation_not_pending', state: 'approved' });
  const deny = await svc.admin.POST('/operations/{operationId}/deny', path);
  t.like(deny.error, { error: 'operation_not_pending' });
  const read = await agent.GET('/operations/{operationId}', path);
  t.like(read.data, { state: 'approved', authorized_mc: 2000 });
  // A lowered approval is not reused by an equivalent create asking for more than it left.
  const next = await agent.POST('/operations', { body });
  t.not(next.data!.operation_id, op.operation_id);
  for (const id of ['op_missing']) {
    const r = await svc.admin.POST('/operations/{operationId}/approve', { params: { path: { operationId: id } } });
    t.is(r.response.status, 404);
    const d = await svc.admin.POST('/operations/{operationId}/deny', { params: { path: { operationId: id } } });
    t.is(d.response.status, 404);
    const g = await svc.admin.GET('/operations/{operationId}', { params: { path: { operationId: id } } });
    t.is(g.response.status, 404);
  }
  const list = await svc.admin.GET('/projects/{projectId}/operations', {
    params: { path: { projectId: 'p_missing' } },
  });
  t.is(list.response.status, 404);
});

test('an approved operation with nothing spent is reused by an equivalent create; publish and rollback request zero', async (t) => {
  const p = await createTestProject(svc);
  const agent = await agentOf(p);
  const { body } = await translateBody(p, agent, ['Reuse']);
  const op = (await agent.POST('/operations', { body })).data!;
  await svc.admin.POST('/operations/{operationId}/approve', { params: { path: { operationId: op.operation_id } } });
  const again = await agent.POST('/operations', { body });
  t.is(again.data!.operation_id, op.operation_id);
  t.is(again.data!.state, 'approved');
  const pub = await agent.POST('/operations', {
    body: { action: 'publish', scope: { project_id: p.projectId, require_complete: true } },
  });
  t.like(pub.data, {
    requested_mc: 0,
    scope: { project_id: p.projectId, approved_only: false, require_complete: true },
  });
  const approve = await svc.admin.POST('/operations/{operationId}/approve', {
    params: { path: { operationId: pub.data!.operation_id } },
    body: { authorizedCredits: 1 },
  });
  t.is(approve.response.status, 400, 'a publish authorizes no credits');
  const noVersion = await agent.POST('/operations', {
    body: { action: 'rollback', scope: { project_id: p.projectId, from_version: 'current', to_version: 'previous' } },
  });
  t.is(noVersion.response.status, 404, 'nothing to roll back from');
});

// The clock moves for the test's project alone (run-due scoped to it): operations expire by a per-project sweep.
test('expiry: pending 30 minutes after creation, approved publish 30 after approval, approved translate 30 after its last use; GET never writes', async (t) => {
  const p = await createTestProject(svc);
  const agent = await agentOf(p);
  const { body } = await translateBody(p, agent, ['Expire']);
  const pending = (await agent.POST('/operations', { body })).data!;
  const t0 = Date.now();
  const pub = (await agent.POST('/operations', { body: { action: 'publish', scope: { project_id: p.projectId } } }))
    .data!;
  await svc.admin.POST('/operations/{operationId}/approve', { params: { path: { operationId: pub.operation_id } } });
  const { body: other } = await translateBody(p, agent, ['Expire later']);
  const tr = (await agent.POST('/operations', { body: other })).data!;
  await svc.admin.POST('/operations/{operationId}/approve', { params: { path: { operationId: tr.operation_id } } });

  await runDue(t0 + 29 * MIN, p);
  const read = (id: string) => agent.GET('/operations/{operationId}', { params: { path: { operationId: id } } });
  t.is((await read(pending.operation_id)).data!.state, 'pending_approval');
  await runDue(t0 + 31 * MIN, p);
  for (const id of [pending.operation_id, pub.operation_id, tr.operation_id])
    t.is((await read(id)).data!.state, 'expired', id);
  const late = await svc.admin.POST('/operations/{operationId}/approve', {
    params: { path: { operationId: pending.operation_id } },
  });
  t.like(late.error, { error: 'operation_not_pending', state: 'expired' });
  const listed = await svc.admin.GET('/projects/{projectId}/operations', {
    params: { path: { projectId: p.projectId }, query: { state: 'expired' } },
  });
  t.is(listed.data!.operations.length, 3);
  // An expired one is not reused.
  const fresh = await agent.POST('/operations', { body });
  t.not(fresh.data!.operation_id, pending.operation_id);
});

// Serial, before the others: request records expire by a global sweep, at a simulated now for every project.
test.serial(
  'a request record closed more than 24 hours before a simulated now reads expired, and a resend is 409 request_expired',
  async (t) => {
    const p = await createTestProject(svc);
    const body = { units: [{ source: 'Recorded once' }], requestId: 'expiry-1' };
    const first = await translate(p.client, p.projectId, body);
    t.is(first.response.status, 200);
    await runDue(Date.now() + 25 * 3600_000);
    const record = await p.client.GET('/projects/{projectId}/requests/{requestId}', {
      params: { path: { projectId: p.projectId, requestId: 'expiry-1' } },
    });
    t.like(record.data, { state: 'expired', stateWas: 'done' });
    const resend = await translate(p.client, p.projectId, body);
    t.is(resend.response.status, 409);
    t.like(resend.error, { error: 'request_expired' });
  },
);

test('the plan of a translate operation shows the previewed samples and the ceiling against the balance', async (t) => {
  const p = await createTestProject(svc, { creditsMc: 3000 });
  const agent = await agentOf(p);
  const long = 'x'.repeat(300);
  const { body } = await translateBody(p, agent, ['One', 'Two', 'Three', 'Four', 'Five', 'Six', long]);
  const op = (await agent.POST('/operations', { body })).data!;
  const read = await svc.admin.GET('/operations/{operationId}', {
    params: { path: { operationId: op.operation_id } },
  });
  t.like(read.data, {
    operation_id: op.operation_id,
    project_id: p.projectId,
    decided_by: null,
    decided_at: null,
    plan: {
      action: 'translate',
      balance_mc: 3000,
      translate: { langs: ['de', 'fr'], unit_count: 7, batch_count: 1, requested_mc: 5000 },
    },
  });
  t.deepEqual(read.data!.plan!.translate!.batches[0].sample, ['One', 'Two', 'Three', 'Four', 'Five']);
  // The sample expires with its 24 hours.
  await runDue(Date.now() + 25 * 3600_000, p);
  const later = await svc.admin.GET('/operations/{operationId}', {
    params: { path: { operationId: op.operation_id } },
  });
  t.is(later.data!.plan!.translate!.batches[0].sample, null);
  t.is(later.data!.state, 'expired');
});

test('the operations list pages newest first: every operation once, `more` until the oldest', async (t) => {
  const p = await createTestProject(svc);
  const agent = await agentOf(p);
  const made: string[] = [];
  for (const word of ['One', 'Two', 'Three', 'Four', 'Five']) {
    const { body } = await translateBody(p, agent, [word]);
    made.push((await agent.POST('/operations', { body })).data!.operation_id);
  }
  const page = async (offset: number) => {
    const r = await svc.admin.GET('/projects/{projectId}/operations', {
      params: { path: { projectId: p.projectId }, query: { offset, limit: 2 } },
    });
    t.is(r.response.status, 200);
    return r.data!;
  };
  const pages = [await page(0), await page(2), await page(4)];
  t.deepEqual(
    pages.map((x) => x.more),
    [true, true, false],
  );
  t.deepEqual(
    pages.flatMap((x) => x.operations.map((o) => o.operation_id)),
    [...made].reverse(),
    'newest first, none twice, none left out',
  );
  t.deepEqual(await page(6), { operations: [], more: false });
  const bad = await svc.admin.GET('/projects/{projectId}/operations', {
    params: { path: { projectId: p.projectId }, query: { limit: 201 } },
  });
  t.is(bad.response.status, 400);
});
