// The translation memory and the AI engine (TRANSLATION_ENGINE=openai against the local fake endpoint): a fuzzy
// match at or above the project's threshold goes to the engine as a reference with the item; a pair whose fill
// failed is filled from the memory on a retry when the memory has it at 100 by then.
import test from 'ava';
import {
  openAiEnv,
  requestItems,
  startFakeOpenAI,
  systemOf,
  translateAll,
  type FakeOpenAI,
} from '../helpers/fake-openai.js';
import { translate } from '../../packages/client/src/index.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { pollJob } from '../helpers/typed.js';

let svc: TestService;
let fake: FakeOpenAI;
test.before(async () => {
  fake = await startFakeOpenAI();
  svc = await startTestService(openAiEnv(fake));
});
test.after.always(async () => {
  await svc?.stop();
  await fake?.close();
});

const runDue = (projectId: string) => svc.admin.POST('/jobs/run-due', { body: { projectId } });

async function sibling(p: TestProject): Promise<TestProject> {
  const made = await svc.admin.POST('/projects', {
    body: { workspaceId: p.workspaceId, name: 'Sibling', baseLang: 'en', languages: [{ code: 'de' }] },
  });
  const projectId = made.data!.projectId;
  const apiKey = await createTestKey(svc, projectId, ['admin']);
  return { projectId, workspaceId: p.workspaceId, apiKey, client: svc.client(apiKey) };
}

async function setValue(p: TestProject, key: string, value: string) {
  const r = await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key, lang: 'de' } },
    body: { value, status: 'approved' },
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
}

test.serial('a copy edit that changed one word: the engine gets the old translation as a reference', async (t) => {
  const a = await createTestProject(svc, { languages: [{ code: 'de' }] });
  fake.setHandler(translateAll((item) => `DE ${item.source}`));
  const first = (await translate(a.client, a.projectId, { units: [{ source: 'Remove this folder permanently' }] }))
    .data!;
  await runDue(a.projectId);
  await setValue(a, first.units[0].key, 'Diesen Ordner endgültig entfernen');
  const b = await sibling(a);
  const before = fake.requests.length;
  const pushed = (await translate(b.client, b.projectId, { units: [{ source: 'Remove this folder forever' }] })).data!;
  t.deepEqual(pushed.units[0].pending, ['de'], 'a fuzzy match is not a translation');
  await runDue(b.projectId);
  t.is((await pollJob(b.client, b.projectId, pushed.trackingToken!)).data!.status, 'done');
  const items = fake.requests.slice(before).flatMap(requestItems);
  const item = items.find((i) => i.source === 'Remove this folder forever')!;
  t.deepEqual(item.references, [
    { source: 'Remove this folder permanently', translation: 'Diesen Ordner endgültig entfernen', score: 75 },
  ]);
  // The prompt says what references are.
  const system = systemOf(fake.requests[before]);
  t.regex(system, /"references" are earlier translations of similar sources/);

  // Above the project's threshold only: at 80, a 75 is no reference.
  await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: b.projectId } },
    body: { memoryThreshold: 80 },
  });
  const next = fake.requests.length;
  await translate(b.client, b.projectId, { units: [{ source: 'Remove this folder for good' }] });
  await runDue(b.projectId);
  const refs = fake.requests
    .slice(next)
    .flatMap(requestItems)
    .find((i) => i.source === 'Remove this folder for good')!.references!;
  // The engine's own earlier value (81) is sent; the person's 75 no longer is.
  t.deepEqual(
    refs.map((r) => [r.source, r.score]),
    [['Remove this folder forever', 81]],
  );
});

test.serial('a failed pair is filled from the memory on a retry once the memory holds its source', async (t) => {
  const a = await createTestProject(svc, { languages: [{ code: 'de' }] });
  // The engine answers broken ICU for this source: the pair fails.
  fake.setHandler(translateAll((item) => (item.source === 'Tricky text' ? '{oops' : `DE ${item.source}`)));
  const pushed = (await translate(a.client, a.projectId, { units: [{ source: 'Tricky text' }] })).data!;
  await runDue(a.projectId);
  const key = pushed.units[0].key;
  // Another project's person translates it.
  const b = await sibling(a);
  const other = (await translate(b.client, b.projectId, { units: [{ source: 'Tricky text', key: 'elsewhere' }] }))
    .data!;
  await runDue(b.projectId);
  await setValue(b, other.units[0].key, 'Kniffliger Text');
  const retried = await svc.admin.POST('/projects/{projectId}/keys/{key}/retry', {
    params: { path: { projectId: a.projectId, key } },
    body: {},
  });
  t.like(retried.data, { queued: [], fromMemory: ['de'], trackingToken: null, estimatedCredits: 0 });
  const detail = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: a.projectId, key } },
  });
  t.like(
    detail.data!.cells.find((c) => c.lang === 'de'),
    { value: 'Kniffliger Text', origin: 'memory', failed: null },
  );
});

test.serial('the bulk retry fills from the memory what it can and queues the rest', async (t) => {
  const a = await createTestProject(svc, { languages: [{ code: 'de' }] });
  fake.setHandler(translateAll((item) => (item.source.startsWith('Hard') ? '{oops' : `DE ${item.source}`)));
  await translate(a.client, a.projectId, { units: [{ source: 'Hard one' }, { source: 'Hard two' }] });
  await runDue(a.projectId);
  const b = await sibling(a);
  fake.setHandler(translateAll((item) => `DE ${item.source}`));
  const other = (await translate(b.client, b.projectId, { units: [{ source: 'Hard one', key: 'x' }] })).data!;
  await runDue(b.projectId);
  await setValue(b, other.units[0].key, 'Schwer eins');
  const bulk = await svc.admin.POST('/projects/{projectId}/keys/bulk', {
    params: { path: { projectId: a.projectId } },
    body: { filter: {}, action: 'retry' },
  });
  t.like(bulk.data, { affected: 2, fromMemory: 1 });
  t.truthy(bulk.data!.trackingToken);
});
