// Re-translating chosen cells (spec: `retranslateCells`): a person's key runs it directly, estimated and held like a
// fill, values kept in history; bad input answers its documented code with nothing written; an agent key's paid
// request is one batch of a translate operation that a person approves, its rerun replays.
// Serial: each test runs run-due, which fills every due job on the file's one database.
import test from 'ava';
import { batchManifest, translate, type ApiClient } from '../../packages/client/src/index.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { errorOf, hostile } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const runDue = () => svc.admin.POST('/jobs/run-due', { body: {} });
type Cell = { key: string; lang: string; namespace?: string };
const retranslate = (client: ApiClient, projectId: string, body: Record<string, unknown>, dryRun = false) =>
  client.POST('/projects/{projectId}/retranslate', {
    params: { path: { projectId }, query: dryRun ? { dryRun: 'true' } : {} },
    body: body as never,
  });

/** A project whose keys a, b and c are filled in de and fr (and a manual language pt-br). */
async function filled(): Promise<TestProject> {
  const p = await createTestProject(svc, {
    languages: [{ code: 'de' }, { code: 'fr' }, { code: 'pt-br', fillMode: 'manual' }],
  });
  const r = await translate(p.client, p.projectId, {
    units: [
      { key: 'a', source: 'Open the door' },
      { key: 'b', source: 'Close the window' },
      { key: 'c', source: 'Save' },
    ],
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  await runDue();
  return p;
}

const db = () => svc.service.app.db;
const cell = async (p: TestProject, key: string, lang: string) => {
  const k = await db()('keys').where({ project_id: p.projectId, name: key }).first<{ id: number }>('id');
  return db()('translations')
    .where({ key_id: k.id, lang })
    .first<{ value: string | null; status: string; origin: string | null }>('value', 'status', 'origin');
};
/** What a refusal must leave as it was: the cells, their history, the jobs and the credits. */
async function footprint(p: TestProject) {
  const cells = await db()('translations')
    .where({ project_id: p.projectId })
    .orderBy(['key_id', 'lang'])
    .select('key_id', 'lang', 'value', 'status', 'updated_at');
  const history = await db()('translation_history').where({ project_id: p.projectId }).count({ n: '*' });
  const jobs = await db()('fill_jobs').where({ project_id: p.projectId }).count({ n: '*' });
  const credit = await db()('workspaces').where({ id: p.workspaceId }).first();
  return { cells, history: Number(history[0].n), jobs: Number(jobs[0].n), credit };
}

test.serial('a person key re-translates chosen cells: held like a fill, old values kept in history', async (t) => {
  const p = await filled();
  const edited = await p.client.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key: 'a', lang: 'de' } },
    body: { value: 'Tür öffnen (von Hand)' },
  });
  t.is(edited.response.status, 200);
  const cells: Cell[] = [
    { key: 'a', lang: 'de' },
    { key: 'b', lang: 'fr' },
  ];
  // The dry run writes nothing and says what it would cost.
  const before = await footprint(p);
  const dry = await retranslate(p.client, p.projectId, { cells }, true);
  t.is(dry.response.status, 200, JSON.stringify(dry.error));
  t.like(dry.data, { queued: 2, trackingToken: null, accepted: true, estimatedCredits: 13 + 16 });
  t.regex(dry.data!.batchSha256!, /^[0-9a-f]{64}$/);
  t.deepEqual(await footprint(p), before);
  const r = await retranslate(p.client, p.projectId, { cells });
  t.is(r.response.status, 200, JSON.stringify(r.error));
  t.like(r.data, { queued: 2, estimatedCredits: 29 });
  t.deepEqual(r.data!.cells, [
    { key: 'a', lang: 'de', outcome: 'queued' },
    { key: 'b', lang: 'fr', outcome: 'queued' },
  ]);
  t.is(r.data!.balance, dry.data!.balance - 29);
  t.like(await cell(p, 'a', 'de'), { value: null, status: 'pending' });
  // The hand edit is in the history, by the key that asked.
  const detail = await p.client.GET('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key: 'a' } },
  });
  const kept = detail.data!.history.find((h) => h.value === 'Tür öffnen (von Hand)' && h.status === 'outdated');
  t.truthy(kept, JSON.stringify(detail.data!.history));
  // Cells not chosen are left alone.
  t.like(await cell(p, 'a', 'fr'), { status: 'translated' });
  // Asked again while the job holds them: in flight, nothing queued or charged.
  const again = await retranslate(p.client, p.projectId, { cells: [{ key: 'a', lang: 'de' }] });
  t.like(again.data, { queued: 0, trackingToken: null, estimatedCredits: 0 });
  t.deepEqual(again.data!.cells, [{ key: 'a', lang: 'de', outcome: 'in_flight' }]);
  await runDue();
  t.like(await cell(p, 'a', 'de'), { status: 'translated', origin: 'ai' });
  t.not((await cell(p, 'a', 'de')).value, 'Tür öffnen (von Hand)');
  // A key by its token, and a cell that never had a row (a language added after the fill) get a marker and fill.
  await svc.admin.POST('/projects/{projectId}/languages', {
    params: { path: { projectId: p.projectId } },
    body: { code: 'it' },
  });
  const token = detail.data!.token;
  const fresh = await retranslate(p.client, p.projectId, { cells: [{ key: token, lang: 'it' }] });
  t.is(fresh.response.status, 200, JSON.stringify(fresh.error));
  t.deepEqual(fresh.data!.cells, [{ key: 'a', lang: 'it', outcome: 'queued' }]);
  await runDue();
  t.like(await cell(p, 'a', 'it'), { status: 'translated' });
});

test.serial('bad input answers its documented code and writes nothing', async (t) => {
  const p = await filled();
  await db()('keys').where({ project_id: p.projectId, name: 'c' }).update({ enabled: false });
  const before = await footprint(p);
  const refused = async (cells: unknown, status: number, code: string, message?: RegExp) => {
    const r = await retranslate(p.client, p.projectId, { cells: hostile(cells) });
    t.is(r.response.status, status, JSON.stringify(r.error));
    t.is(errorOf(r)?.error, code);
    if (message) t.regex(errorOf(r)!.message, message);
  };
  await refused(
    [
      { key: 'a', lang: 'de' },
      { key: 'nope', lang: 'de' },
    ],
    404,
    'not_found',
    /no key nope/,
  );
  await refused([{ key: 'a', lang: 'de', namespace: 'web' }], 404, 'not_found', /in namespace web/);
  await refused([{ key: 'a', lang: 'en' }], 400, 'invalid_argument', /base language/);
  await refused([{ key: 'a', lang: 'xx' }], 400, 'invalid_argument', /not a language of this project/);
  await refused([{ key: 'a', lang: 'pt-br' }], 400, 'fill_mode_manual');
  await refused(
    [
      { key: 'a', lang: 'de' },
      { key: 'a', lang: 'DE' },
    ],
    400,
    'invalid_argument',
    /named twice/,
  );
  await refused([{ key: 'c', lang: 'de' }], 409, 'conflict', /disabled/);
  await refused([], 400, 'invalid_argument');
  await refused([{ key: 'a' }], 400, 'invalid_argument');
  await refused(
    Array.from({ length: 501 }, (_, i) => ({ key: `k${i}`, lang: 'de' })),
    400,
    'too_many_units',
  );
  t.deepEqual(await footprint(p), before);
  // A workspace that cannot pay: 402 and nothing retired.
  const poor = await filled();
  await db()('workspaces').where({ id: poor.workspaceId }).update({ balance_mc: 20 });
  const held = await footprint(poor);
  const r = await retranslate(poor.client, poor.projectId, {
    cells: [
      { key: 'a', lang: 'de' },
      { key: 'b', lang: 'de' },
    ],
  });
  t.is(r.response.status, 402, JSON.stringify(r.error));
  t.deepEqual(await footprint(poor), held);
});

test.serial(
  "an agent key's request is an operation a person approves; the rerun after approval proceeds and then replays",
  async (t) => {
    const p = await filled();
    const agent = svc.client(await createTestKey(svc, p.projectId, ['translate', 'read'], true));
    const cells: Cell[] = [
      { key: 'a', lang: 'de' },
      { key: 'b', lang: 'de' },
    ];
    const before = await footprint(p);
    const asked = await retranslate(agent, p.projectId, { cells, requestId: 'fix-ab' });
    t.is(asked.response.status, 403);
    t.like(errorOf(asked), { error: 'authorization_required', estimatedCredits: 29 });
    t.deepEqual(await footprint(p), before);
    // The refusal is recorded: the same request answers it again.
    const replay = await retranslate(agent, p.projectId, { cells, requestId: 'fix-ab' });
    t.is(replay.response.headers.get('glossa-replayed'), 'true');
    const dry = await retranslate(agent, p.projectId, { cells }, true);
    const sha = dry.data!.batchSha256!;
    const manifest = await batchManifest([{ sha256: sha, unit_count: 2 }]);
    const create = () =>
      agent.POST('/operations', {
        body: {
          action: 'translate',
          max_credits: 1,
          scope: { project_id: p.projectId, langs: ['de'], unit_count: 2, ...manifest },
        },
      });
    const op = (await create()).data!;
    t.is(op.state, 'pending_approval');
    // The person's page shows the cells the agent wants translated again.
    const plan = await svc.admin.GET('/operations/{operationId}', {
      params: { path: { operationId: op.operation_id } },
    });
    t.deepEqual(plan.data!.plan!.translate!.batches[0].sample, ['a [de]: Open the door', 'b [de]: Close the window']);
    t.is(plan.data!.plan!.translate!.estimate_mc, 29);
    const under = (extra: Record<string, unknown>) => ({
      cells,
      operationId: op.operation_id,
      requestId: 'fix-ab-op',
      attemptId: 'run-1',
      batchIndex: 0,
      batchSha256: sha,
      ...extra,
    });
    const early = await retranslate(agent, p.projectId, under({}));
    t.is(errorOf(early)?.error, 'operation_not_approved');
    await svc.admin.POST('/operations/{operationId}/approve', {
      params: { path: { operationId: op.operation_id } },
      body: {},
    });
    // The rerun finds the approved operation (createOperation reuses it) and proceeds.
    t.is((await create()).data!.operation_id, op.operation_id);
    // Other cells under this operation: not the batch a person approved.
    const other = await retranslate(
      agent,
      p.projectId,
      under({ cells: [{ key: 'a', lang: 'de' }], requestId: 'other', attemptId: 'run-x' }),
    );
    t.is(errorOf(other)?.error, 'batch_mismatch');
    const ran = await retranslate(agent, p.projectId, under({ requestId: 'fix-ab-op-2' }));
    t.is(ran.response.status, 200, JSON.stringify(ran.error));
    t.like(ran.data, { queued: 2, estimatedCredits: 29 });
    const after = (await agent.GET('/operations/{operationId}', { params: { path: { operationId: op.operation_id } } }))
      .data!;
    t.is(after.reserved_mc + after.charged_mc, 29);
    // An unchanged rerun replays: nothing queued, charged or asked.
    const rerun = await retranslate(agent, p.projectId, under({ requestId: 'fix-ab-op-2' }));
    t.is(rerun.response.headers.get('glossa-replayed'), 'true');
    t.deepEqual(rerun.data, ran.data);
    const ops = await svc.admin.GET('/projects/{projectId}/operations', {
      params: { path: { projectId: p.projectId } },
    });
    t.is(ops.data!.operations.length, 1);
    await runDue();
    t.like(await cell(p, 'b', 'de'), { status: 'translated', origin: 'ai' });
  },
);

test.serial('under an operation: its languages and its whole budget, or nothing is written', async (t) => {
  const p = await filled();
  const agent = svc.client(await createTestKey(svc, p.projectId, ['translate', 'read'], true));
  const cells: Cell[] = [{ key: 'b', lang: 'fr' }];
  const sha = (await retranslate(agent, p.projectId, { cells }, true)).data!.batchSha256!;
  const manifest = await batchManifest([{ sha256: sha, unit_count: 1 }]);
  const approve = async (langs: string[], authorizedCredits?: number) => {
    const op = await agent.POST('/operations', {
      body: {
        action: 'translate',
        max_credits: 1,
        scope: { project_id: p.projectId, langs, unit_count: 1, ...manifest },
      },
    });
    await svc.admin.POST('/operations/{operationId}/approve', {
      params: { path: { operationId: op.data!.operation_id } },
      body: authorizedCredits === undefined ? {} : { authorizedCredits },
    });
    return op.data!.operation_id;
  };
  const before = await footprint(p);
  const send = (operationId: string, requestId: string) =>
    retranslate(agent, p.projectId, {
      cells,
      operationId,
      requestId,
      attemptId: requestId,
      batchIndex: 0,
      batchSha256: sha,
    });
  t.is(errorOf(await send(await approve(['de']), 'r1'))?.error, 'scope_changed');
  t.is(errorOf(await send(await approve(['fr'], 0), 'r2'))?.error, 'budget_exhausted');
  t.deepEqual(await footprint(p), before);
});
