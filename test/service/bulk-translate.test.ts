// The bulk action `translate` (internalBulkKeys): every cell of the matching keys without a value (missing, a
// pending marker no fill holds, failed) in the AI-filled languages is filled from the memory or queued in one held
// fill job, as a push queues a new key's; `dryRun` answers the same request's effect and cost with nothing written.
import test from 'ava';
import { translate } from '../../packages/client/src/index.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';
import { pollJob } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const runDue = (projectId: string) => svc.admin.POST('/jobs/run-due', { body: { projectId } });

type BulkBody = {
  filter: { tokens?: string[]; status?: 'missing'; lang?: string };
  action: 'translate' | 'retry' | 'retranslate' | 'disable';
  lang?: string;
  dryRun?: boolean;
};
const bulk = (p: TestProject, body: BulkBody) =>
  svc.admin.POST('/projects/{projectId}/keys/bulk', { params: { path: { projectId: p.projectId } }, body });

/** The key's cells by language: status and value. */
async function cells(p: TestProject, key: string) {
  const r = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key } },
  });
  return Object.fromEntries(r.data!.cells.map((c) => [c.lang, { status: c.status, value: c.value }]));
}

/** The workspace's available millicredits (the overview's balance less what queued fills hold). */
async function available(p: TestProject): Promise<number> {
  const r = await svc.admin.GET('/projects/{projectId}/overview', { params: { path: { projectId: p.projectId } } });
  return r.data!.workspace.balanceMc - r.data!.workspace.heldMc;
}

/** Pushes `sources` to a project whose `de` is in manual mode, then switches `de` to AI: its cells stay missing. */
async function missingInDe(sources: string[]) {
  const p = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }, { code: 'fr' }] });
  const pushed = (await translate(p.client, p.projectId, { units: sources.map((source) => ({ source })) })).data!;
  await runDue(p.projectId);
  const mode = await svc.admin.POST('/projects/{projectId}/languages', {
    params: { path: { projectId: p.projectId } },
    body: { code: 'de', fillMode: 'ai' },
  });
  if (!mode.data) throw new Error(JSON.stringify(mode.error));
  return { p, keys: pushed.units.map((u) => u.key) };
}

test.serial('a dry run says what translate would queue and its cost, and writes nothing', async (t) => {
  const { p, keys } = await missingInDe(['Open the file', 'Close the window', 'Save all changes']);
  t.like(await cells(p, keys[0]), { de: { status: 'missing', value: null }, fr: { status: 'translated' } });
  const before = await available(p);
  const dry = await bulk(p, { filter: {}, action: 'translate', dryRun: true });
  t.is(dry.response.status, 200);
  t.like(dry.data, { affected: 3, trackingToken: null });
  t.true(dry.data!.estimatedCredits! > 0);
  t.is(dry.data!.balance, before - dry.data!.estimatedCredits!, 'the balance the hold would leave');
  t.is(await available(p), before, 'nothing was held');
  for (const key of keys) t.is((await cells(p, key)).de.status, 'missing', 'no marker was written');
  t.deepEqual((await bulk(p, { filter: {}, action: 'translate', dryRun: true })).data, dry.data, 'again the same');

  const real = await bulk(p, { filter: {}, action: 'translate' });
  t.like(real.data, { affected: 3, estimatedCredits: dry.data!.estimatedCredits, balance: dry.data!.balance });
  t.truthy(real.data!.trackingToken);
  t.is(await available(p), dry.data!.balance!);
  t.is((await cells(p, keys[1])).de.status, 'pending');
  await runDue(p.projectId);
  t.is((await pollJob(p.client, p.projectId, real.data!.trackingToken!)).data!.status, 'done');
  for (const key of keys) t.is((await cells(p, key)).de.status, 'translated');
  t.like((await bulk(p, { filter: {}, action: 'translate' })).data, {
    affected: 0,
    trackingToken: null,
    estimatedCredits: 0,
  });
});

test.serial('translate takes the selection only, in one language, and leaves cells a fill holds to it', async (t) => {
  const { p, keys } = await missingInDe(['One', 'Two', 'Three']);
  const list = await svc.admin.GET('/projects/{projectId}/keys', {
    params: { path: { projectId: p.projectId }, query: { limit: 10 } },
  });
  const token = (key: string) => list.data!.keys.find((k) => k.key === key)!.token;
  const first = await bulk(p, { filter: { tokens: [token(keys[0])] }, action: 'translate', lang: 'de' });
  t.like(first.data, { affected: 1 });
  t.like(await cells(p, keys[1]), { de: { status: 'missing' } });
  // The first key's cell is in that job's hands until it runs: asked again, it is not queued twice.
  const again = await bulk(p, { filter: {}, action: 'translate', lang: 'de' });
  t.like(again.data, { affected: 2 });
  await runDue(p.projectId);
  for (const key of keys) t.is((await cells(p, key)).de.status, 'translated');
});

test.serial('switched-off keys are not translated; dryRun is refused for switches', async (t) => {
  const { p, keys } = await missingInDe(['Alpha', 'Beta']);
  const list = await svc.admin.GET('/projects/{projectId}/keys', {
    params: { path: { projectId: p.projectId }, query: { limit: 10 } },
  });
  const alpha = list.data!.keys.find((k) => k.key === keys[0])!.token;
  t.like((await bulk(p, { filter: { tokens: [alpha] }, action: 'disable' })).data, { affected: 1 });
  t.like((await bulk(p, { filter: {}, action: 'translate', dryRun: true })).data, { affected: 1 });
  const refused = await bulk(p, { filter: {}, action: 'disable', dryRun: true });
  t.is(refused.response.status, 400);
  t.is(refused.error?.error, 'invalid_argument');
  t.like((await cells(p, keys[1])).de, { status: 'missing' }, 'nothing changed');
});

test.serial('a hold the balance refuses: the dry run answers the same 402, and nothing is queued', async (t) => {
  const { p, keys } = await missingInDe(['A sentence long enough to cost something']);
  await svc.admin.POST('/workspaces/{workspaceId}/credits', {
    params: { path: { workspaceId: p.workspaceId } },
    body: { mc: -(await available(p)) },
  });
  for (const dryRun of [true, false]) {
    const r = await bulk(p, { filter: {}, action: 'translate', dryRun });
    t.is(r.response.status, 402, `dryRun ${dryRun}`);
    t.is(r.error?.error, 'insufficient_credits');
  }
  t.like((await cells(p, keys[0])).de, { status: 'missing' });
});
