// Translate and sync under an operation (spec/README.md, "Operations"): the batch manifest, batch checks,
// one non-failed request per (attemptId, batchIndex), three attempts, and a budget that charges never pass.
// An agent run end to end through the SDK: preview batches, create, approve (internal API), send, poll.
// The tests run one at a time: each runs run-due, which fills every project's due jobs on the file's one SQLite
// database, and a CI run once saw an end-to-end send answer 503 contended while another test's races and fills held
// the write lock (the races a test means to make are made inside it).
import { createHash } from 'node:crypto';
import test from 'ava';
import stableStringify from 'fast-json-stable-stringify';
import {
  batchManifest,
  previewSync,
  previewTranslate,
  sync,
  translate,
  type ApiClient,
} from '../../packages/client/src/index.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { pollJob } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const runDue = () => svc.admin.POST('/jobs/run-due', { body: {} });
const agentOf = async (p: TestProject) =>
  svc.client(await createTestKey(svc, p.projectId, ['translate', 'read'], true));

/** Runs due jobs until the job is final (another test's run-due may hold it for a moment). */
async function untilFinal(client: ApiClient, projectId: string, token: string): Promise<string> {
  for (let i = 0; ; i++) {
    await runDue();
    const status = (await pollJob(client, projectId, token)).data!.status;
    if ((status !== 'queued' && status !== 'running') || i > 50) return status;
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Run {
  agent: ApiClient;
  operationId: string;
  batches: Array<{ units: Array<{ source: string }>; sha: string; estimate: number }>;
}

/** Previews each batch, creates the operation, and approves it (optionally for fewer credits). */
async function approvedRun(
  p: TestProject,
  batchSources: string[][],
  opts: { maxCredits?: number; authorizedCredits?: number; approve?: boolean } = {},
): Promise<Run> {
  const agent = await agentOf(p);
  const batches = [];
  for (const sources of batchSources) {
    const units = sources.map((source) => ({ source }));
    const preview = await previewTranslate(agent, p.projectId, { units });
    batches.push({ units, sha: preview.data!.batchSha256!, estimate: preview.data!.estimatedCredits });
  }
  const manifest = await batchManifest(batches.map((b) => ({ sha256: b.sha, unit_count: b.units.length })));
  const created = await agent.POST('/operations', {
    body: {
      action: 'translate',
      max_credits: opts.maxCredits ?? 10,
      scope: {
        project_id: p.projectId,
        unit_count: batches.reduce((n, b) => n + b.units.length, 0),
        ...manifest,
      },
    },
  });
  const operationId = created.data!.operation_id;
  if (opts.approve !== false)
    await svc.admin.POST('/operations/{operationId}/approve', {
      params: { path: { operationId } },
      body: opts.authorizedCredits === undefined ? {} : { authorizedCredits: opts.authorizedCredits },
    });
  return { agent, operationId, batches };
}

const send = (p: TestProject, run: Run, index: number, requestId: string, attemptId = 'a1', extra = {}) =>
  translate(run.agent, p.projectId, {
    units: run.batches[index].units,
    operationId: run.operationId,
    requestId,
    attemptId,
    batchIndex: index,
    batchSha256: run.batches[index].sha,
    ...extra,
  });

const opOf = async (run: Run) =>
  (await run.agent.GET('/operations/{operationId}', { params: { path: { operationId: run.operationId } } })).data!;

test.serial(
  'an agent run end to end through the SDK: preview, create, approve, send every batch, poll; charges stay within the budget',
  async (t) => {
    const p = await createTestProject(svc);
    const run = await approvedRun(p, [
      ['Open the door', 'Close the door'],
      ['Save your work', 'Discard changes'],
    ]);
    const tokens: string[] = [];
    for (const i of [0, 1]) {
      const r = await send(p, run, i, `run-${i}`);
      t.is(r.response.status, 200, JSON.stringify(r.error));
      t.true(r.data!.estimatedCredits > 0);
      tokens.push(r.data!.trackingToken!);
    }
    const during = await opOf(run);
    // Other tests' run-due may have filled a batch already: reserved and charged together are the estimates.
    t.is(during.reserved_mc + during.charged_mc, run.batches[0].estimate + run.batches[1].estimate);
    t.deepEqual(
      during.attempts.map((a) => [a.attempt_id, a.batch_index, a.request_id, a.state]),
      [
        ['a1', 0, 'run-0', 'done'],
        ['a1', 1, 'run-1', 'done'],
      ],
    );
    for (const token of tokens) t.is(await untilFinal(run.agent, p.projectId, token), 'done');
    const after = await opOf(run);
    t.is(after.reserved_mc, 0, 'what a job reserved and did not spend is released');
    t.is(after.charged_mc, run.batches[0].estimate + run.batches[1].estimate);
    t.is(after.absorbed_mc, 0);
    t.true(after.charged_mc <= after.authorized_mc);
    t.is(after.state, 'approved');
    // The same request again is a replay (the record), not a second seat.
    const replay = await send(p, run, 0, 'run-0');
    t.is(replay.response.status, 200);
    t.is(replay.data!.trackingToken, tokens[0]);
  },
);

test.serial(
  'batch checks: not approved, out of range, mismatch, replayed, attempts exhausted; each refusal is recorded',
  async (t) => {
    const p = await createTestProject(svc);
    const pending = await approvedRun(p, [['Pending batch']], { approve: false });
    const notYet = await send(p, pending, 0, 'pending-1');
    t.is(notYet.response.status, 409);
    t.like(notYet.error, { error: 'operation_not_approved' });

    const run = await approvedRun(p, [['First batch'], ['Second batch']]);
    const out = await translate(run.agent, p.projectId, {
      units: run.batches[0].units,
      operationId: run.operationId,
      requestId: 'range-1',
      attemptId: 'a1',
      batchIndex: 2,
      batchSha256: run.batches[0].sha,
    });
    t.like(out.error, { error: 'batch_out_of_range' });
    // The body of batch 0 sent as batch 1, and a body that is not its batchSha256.
    const swapped = await send(p, run, 0, 'swap-1', 'a1', { batchIndex: 1 });
    t.like(swapped.error, { error: 'batch_mismatch' });
    const edited = await send(p, run, 0, 'edit-1', 'a1', { units: [{ source: 'Edited batch' }] });
    t.like(edited.error, { error: 'batch_mismatch' });
    const langs = await send(p, run, 0, 'langs-1', 'a1', { langs: ['de'] });
    t.like(langs.error, { error: 'scope_changed' }, 'other languages than approved');
    const record = await run.agent.GET('/projects/{projectId}/requests/{requestId}', {
      params: { path: { projectId: p.projectId, requestId: 'edit-1' } },
    });
    t.like(record.data, { state: 'failed', status: 409, body: { error: 'batch_mismatch' } });

    t.is((await send(p, run, 0, 'ok-1')).response.status, 200);
    const again = await send(p, run, 0, 'ok-2');
    t.is(again.response.status, 409);
    t.like(again.error, { error: 'batch_replayed' });
    // Another attempt may send it; the fourth attempt may not.
    t.is((await send(p, run, 0, 'ok-3', 'a2')).response.status, 200);
    t.is((await send(p, run, 0, 'ok-4', 'a3')).response.status, 200);
    const fourth = await send(p, run, 0, 'ok-5', 'a4');
    t.like(fourth.error, { error: 'attempts_exhausted' });
    const keys = await svc.admin.GET('/projects/{projectId}/keys', { params: { path: { projectId: p.projectId } } });
    t.false(
      keys.data!.keys.some((k: { source: string }) => k.source === 'Edited batch'),
      'a refused batch wrote nothing',
    );
  },
);

test.serial(
  'after a failed request the batch is resent under a new requestId; concurrent sends of one batch have one effect',
  async (t) => {
    const p = await createTestProject(svc, { creditsMc: 1 });
    const run = await approvedRun(p, [['Too expensive for the workspace']]);
    const poor = await send(p, run, 0, 'poor-1');
    t.is(poor.response.status, 402);
    await svc.admin.POST('/workspaces/{workspaceId}/credits', {
      params: { path: { workspaceId: p.workspaceId } },
      body: { mc: 1_000_000 },
    });
    const tries = await Promise.all(Array.from({ length: 8 }, (_, i) => send(p, run, 0, `conc-${i}`)));
    const ok = tries.filter((r) => r.response.status === 200);
    t.is(ok.length, 1);
    t.true(tries.filter((r) => r.response.status !== 200).every((r) => r.error?.error === 'batch_replayed'));
    const op = await opOf(run);
    t.is(op.reserved_mc, run.batches[0].estimate);
    t.deepEqual(
      op.attempts.map((a) => a.state),
      ['failed', 'done'],
    );
  },
);

test.serial(
  'budget: charges never pass authorized_mc; unreached units are budgetExhausted; then 409 budget_exhausted',
  async (t) => {
    const p = await createTestProject(svc);
    // One unit of 200 characters per batch: 400 mc a batch (two languages); 1 credit covers two and a half.
    const sources = Array.from({ length: 6 }, (_, i) => `${i} ${'b'.repeat(198)}`);
    const run = await approvedRun(
      p,
      sources.map((s) => [s]),
      { maxCredits: 1 },
    );
    t.is(run.batches[0].estimate, 400);
    const sent = await Promise.all(run.batches.map((_, i) => send(p, run, i, `budget-${i}`)));
    const ok = sent.filter((r) => r.response.status === 200);
    const refused = sent.filter((r) => r.response.status !== 200);
    t.is(ok.length, 3);
    t.true(refused.every((r) => r.response.status === 409 && r.error?.error === 'budget_exhausted'));
    const partial = ok.filter((r) => r.data!.units[0].budgetExhausted);
    t.is(partial.length, 1, 'the third batch reached one of its two languages');
    t.is(partial[0].data!.estimatedCredits, 200);
    const during = await opOf(run);
    t.is(during.reserved_mc + during.charged_mc, 1000);
    for (const r of ok) await untilFinal(run.agent, p.projectId, r.data!.trackingToken!);
    const after = await opOf(run);
    t.is(after.charged_mc, 1000);
    t.is(after.reserved_mc, 0);
    t.true(after.charged_mc <= after.authorized_mc);
    const last = await send(p, run, 0, 'budget-last', 'a2');
    t.like(last.error, { error: 'budget_exhausted' });
    // The next push (a person's key) names the unit the run left half done, and queues what is missing.
    const all = await translate(p.client, p.projectId, { units: sources.map((source) => ({ source })) });
    t.is(all.data!.units.filter((u) => u.budgetExhausted).length, 1);
    t.is(all.data!.estimatedCredits, 200 + 3 * 400);
  },
);

test.serial(
  'scope_changed: another action, other languages; a non-agent key naming an operation is held to the same checks',
  async (t) => {
    const p = await createTestProject(svc);
    const run = await approvedRun(p, [['Language bound']]);
    await p.client.POST('/projects/{projectId}/languages', {
      params: { path: { projectId: p.projectId } },
      body: { code: 'it' },
    });
    const r = await send(p, run, 0, 'scope-1');
    // A language added after the approval: the operation covers de and fr only.
    t.is(r.response.status, 409);
    t.like(r.error, { error: 'scope_changed' });
    const pub = await run.agent.POST('/operations', {
      body: { action: 'publish', scope: { project_id: p.projectId } },
    });
    t.is(pub.response.status, 403, 'the agent lacks publish');
    const publisher = svc.client(await createTestKey(svc, p.projectId, ['translate', 'publish'], true));
    const op = (
      await publisher.POST('/operations', { body: { action: 'publish', scope: { project_id: p.projectId } } })
    ).data!;
    await svc.admin.POST('/operations/{operationId}/approve', { params: { path: { operationId: op.operation_id } } });
    const wrong = await translate(publisher, p.projectId, {
      units: run.batches[0].units,
      operationId: op.operation_id,
      requestId: 'scope-2',
      attemptId: 'a1',
      batchIndex: 0,
      batchSha256: run.batches[0].sha,
    });
    t.like(wrong.error, { error: 'scope_changed' });
    // A person's key naming the agent's operation: not its operation.
    const foreign = await translate(p.client, p.projectId, {
      units: run.batches[0].units,
      operationId: run.operationId,
      requestId: 'scope-3',
      attemptId: 'a1',
      batchIndex: 0,
      batchSha256: run.batches[0].sha,
    });
    t.like(foreign.error, { error: 'operation_not_found' });
    // A dry run ignores the operation fields.
    const dry = await previewTranslate(run.agent, p.projectId, {
      units: run.batches[0].units,
      operationId: 'op_whatever',
      requestId: 'dry',
      attemptId: 'a1',
      batchIndex: 0,
      batchSha256: 'x',
    });
    t.is(dry.response.status, 200);
    t.is(dry.data!.batchSha256, run.batches[0].sha);
  },
);

test.serial('sync under an operation: the preview hash, the manifest, the fill within the budget', async (t) => {
  const p = await createTestProject(svc);
  const agent = await agentOf(p);
  const file = {
    contentBase64: Buffer.from(JSON.stringify({ 'sync.one': 'One thing', 'sync.two': 'Two things' })).toString(
      'base64',
    ),
    fileName: 'en.json',
  };
  const preview = await previewSync(agent, p.projectId, file);
  const sha = (preview.data as { batchSha256?: string }).batchSha256!;
  const manifest = await batchManifest([{ sha256: sha, unit_count: 2 }]);
  const op = (
    await agent.POST('/operations', {
      body: { action: 'translate', max_credits: 1, scope: { project_id: p.projectId, unit_count: 2, ...manifest } },
    })
  ).data!;
  const without = await sync(agent, p.projectId, file);
  t.like(without.error, { error: 'authorization_required' });
  await svc.admin.POST('/operations/{operationId}/approve', { params: { path: { operationId: op.operation_id } } });
  const r = await sync(agent, p.projectId, {
    ...file,
    operationId: op.operation_id,
    requestId: 'sync-op-1',
    attemptId: 'a1',
    batchIndex: 0,
    batchSha256: sha,
  });
  t.is(r.response.status, 200, JSON.stringify(r.error));
  t.is((r.data as { budgetExhausted?: number }).budgetExhausted, 0);
  await untilFinal(agent, p.projectId, r.data!.trackingToken!);
  const after = (await agent.GET('/operations/{operationId}', { params: { path: { operationId: op.operation_id } } }))
    .data!;
  t.is(after.charged_mc, preview.data!.estimatedCredits);
  t.is(after.reserved_mc, 0);
});

// Serial: no other test's run-due runs its job or its sweep meanwhile.
test.serial(
  'an approved translate does not expire while a job of its own is live; GET computes the state and writes nothing',
  async (t) => {
    const p = await createTestProject(svc);
    const run = await approvedRun(p, [['Live job keeps it']]);
    const sent = await send(p, run, 0, 'live-1');
    t.is(sent.response.status, 200);
    const db = svc.service.app.db;
    // Its last use 31 minutes ago (as the clock would have it), its job still queued.
    await db('operations')
      .where({ id: run.operationId })
      .update({ expires_at: Date.now() - 60_000 });
    t.is((await opOf(run)).state, 'approved');
    const listed = await svc.admin.GET('/projects/{projectId}/operations', {
      params: { path: { projectId: p.projectId }, query: { state: 'approved' } },
    });
    t.deepEqual(
      listed.data!.operations.map((o) => o.operation_id),
      [run.operationId],
    );
    await untilFinal(run.agent, p.projectId, sent.data!.trackingToken!);
    // The job ended (its end counts as a use): put the last use back 31 minutes.
    await db('operations')
      .where({ id: run.operationId })
      .update({ expires_at: Date.now() - 60_000 });
    t.is((await opOf(run)).state, 'expired');
    t.is(
      (await db('operations').where({ id: run.operationId }).first('state'))!.state,
      'approved',
      'GET wrote nothing',
    );
    const late = await send(p, run, 0, 'live-2', 'a2');
    t.like(late.error, { error: 'operation_not_approved' });
  },
);

/** A batch's `batchSha256` as the spec defines it, computed by the agent without a preview. */
const agentSha = (body: object) => createHash('sha256').update(stableStringify(body)).digest('hex');

test.serial(
  "a manifest's unit_count is held to its batch: refused at create for a previewed batch, 409 batch_mismatch when sent",
  async (t) => {
    const p = await createTestProject(svc);
    const agent = await agentOf(p);
    const units = [{ source: 'Counted once' }, { source: 'Counted twice' }];
    const preview = await previewTranslate(agent, p.projectId, { units });
    const sha = preview.data!.batchSha256!;
    const create = async (batches: Array<{ sha256: string; unit_count: number }>) =>
      agent.POST('/operations', {
        body: {
          action: 'translate',
          max_credits: 10,
          scope: {
            project_id: p.projectId,
            unit_count: batches.reduce((n, b) => n + b.unit_count, 0),
            ...(await batchManifest(batches)),
          },
        },
      });
    const inflated = await create([{ sha256: sha, unit_count: 500 }]);
    t.is(inflated.response.status, 400);
    t.like(inflated.error, { error: 'invalid_argument' });
    t.regex(inflated.error!.message, /batches\[0\]\.unit_count is 500; .* holds 2 units/);
    t.is(
      await svc.service.app
        .db('operations')
        .where({ project_id: p.projectId })
        .count({ n: '*' })
        .first()
        .then((r) => Number(r!.n)),
      0,
    );

    // A batch nobody previewed: the manifest is taken at create, and the batch is held to it when sent.
    const unseen = [{ source: 'Never previewed' }];
    const unseenSha = agentSha({ units: unseen });
    const op = (await create([{ sha256: unseenSha, unit_count: 40 }])).data!;
    t.is(op.scope.unit_count, 40);
    await svc.admin.POST('/operations/{operationId}/approve', { params: { path: { operationId: op.operation_id } } });
    const sent = await translate(agent, p.projectId, {
      units: unseen,
      operationId: op.operation_id,
      requestId: 'unseen-1',
      attemptId: 'a1',
      batchIndex: 0,
      batchSha256: unseenSha,
    });
    t.is(sent.response.status, 409);
    t.like(sent.error, { error: 'batch_mismatch' });
    t.regex(sent.error!.message, /holds 1 units; batches\[0\]\.unit_count is 40/);
    const keys = await svc.admin.GET('/projects/{projectId}/keys', { params: { path: { projectId: p.projectId } } });
    t.false(
      keys.data!.keys.some((k: { source: string }) => k.source === 'Never previewed'),
      'nothing written',
    );
    const record = await agent.GET('/projects/{projectId}/requests/{requestId}', {
      params: { path: { projectId: p.projectId, requestId: 'unseen-1' } },
    });
    t.like(record.data, { state: 'failed', status: 409, body: { error: 'batch_mismatch' } });

    // A sync batch counts the file's entries.
    const file = {
      contentBase64: Buffer.from(JSON.stringify({ 'count.a': 'A', 'count.b': 'B', 'count.c': 'C' })).toString('base64'),
      fileName: 'en.json',
    };
    const fileSha = agentSha(file);
    const syncOp = (await create([{ sha256: fileSha, unit_count: 1 }])).data!;
    await svc.admin.POST('/operations/{operationId}/approve', {
      params: { path: { operationId: syncOp.operation_id } },
    });
    const synced = await sync(agent, p.projectId, {
      ...file,
      operationId: syncOp.operation_id,
      requestId: 'unseen-sync-1',
      attemptId: 'a1',
      batchIndex: 0,
      batchSha256: fileSha,
    });
    t.is(synced.response.status, 409);
    t.like(synced.error, { error: 'batch_mismatch' });
    t.regex(synced.error!.message, /holds 3 units; batches\[0\]\.unit_count is 1/);
    t.is((await previewSync(agent, p.projectId, file)).data!.created, 3, 'the sync wrote nothing');
  },
);
