// The key editor's machine suggestion (internalSuggestTranslation) against a local OpenAI-compatible endpoint, on
// SQLite and MySQL: the dry run estimates without asking the engine; a suggestion is charged its estimate and never
// stored; an answer that fails the gate, an engine that refuses, credits taken away while it answers, or a balance
// that cannot take it cost nothing and leave nothing held; only owners spend; only the project's target languages.
import test from 'ava';
import { translate } from '../../packages/client/src/index.js';
import { asPerson } from '../helpers/actor.js';
import {
  errorReply,
  openAiEnv,
  requestItems,
  startFakeOpenAI,
  translateAll,
  type FakeOpenAI,
} from '../helpers/fake-openai.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';

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

async function project(creditsMc?: number): Promise<TestProject> {
  const p = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }], creditsMc });
  await translate(p.client, p.projectId, { units: [{ key: 'pay', source: 'Pay {amount} now' }] });
  return p;
}

const suggest = (p: TestProject, lang: string, dryRun?: boolean) =>
  svc.admin.POST('/projects/{projectId}/keys/{key}/translations/{lang}/suggestion', {
    params: { path: { projectId: p.projectId, key: 'pay', lang } },
    body: dryRun === undefined ? {} : { dryRun },
  });
/** The workspace's balance and what is held on it, as stored. */
const credit = async (p: TestProject) => {
  const w = await svc.service.app.db('workspaces').where({ id: p.workspaceId }).first('balance_mc', 'held_mc');
  return { balance: Number(w!.balance_mc), held: Number(w!.held_mc) };
};
const cell = async (p: TestProject) =>
  (
    await svc.admin.GET('/projects/{projectId}/keys/{key}', {
      params: { path: { projectId: p.projectId, key: 'pay' } },
    })
  ).data!.cells.find((c) => c.lang === 'de')!;

test.serial(
  'a suggestion is estimated, then asked with the key’s context, charged its estimate and not stored',
  async (t) => {
    fake.setHandler(translateAll((item) => `Jetzt {amount} zahlen (${item.key})`));
    const p = await project();
    const before = await credit(p);
    const asked = fake.requests.length;
    const dry = await suggest(p, 'de', true);
    t.deepEqual(dry.data, {
      lang: 'de',
      estimatedCredits: 16,
      chargedCredits: 0,
      balance: before.balance - before.held,
    });
    t.is(fake.requests.length, asked, 'a dry run asks the engine nothing');

    const r = await suggest(p, 'de');
    t.is(r.data?.value, 'Jetzt {amount} zahlen (pay)');
    t.is(r.data?.chargedCredits, 16, 'a character a pair, as a push counts it');
    t.true(r.data!.score! > 0 && r.data!.score! <= 1);
    t.is(requestItems(fake.requests.at(-1)!)[0].source, 'Pay ⟦1⟧ now', 'asked as a fill asks, placeholders as tokens');
    t.deepEqual(await credit(p), { balance: before.balance - 16, held: before.held });
    t.is((await cell(p)).value ?? null, null, 'nothing is stored');
  },
);

test.serial('an answer the gate refuses, or an engine that refuses, costs nothing and holds nothing', async (t) => {
  const p = await project();
  const before = await credit(p);
  fake.setHandler(translateAll(() => 'Jetzt zahlen'));
  const dropped = await suggest(p, 'de');
  t.is(dropped.response.status, 200);
  t.is(dropped.data?.value, undefined);
  t.regex(dropped.data!.problem!, /amount/);
  t.is(dropped.data?.chargedCredits, 0);
  t.deepEqual(await credit(p), before);

  // Credits taken away while the engine answers: nothing is charged, nothing stays held.
  const db = svc.service.app.db;
  fake.setHandler(async (req) => {
    await db('workspaces').where({ id: p.workspaceId }).update({ balance_mc: 5 });
    return translateAll(() => 'Jetzt {amount} zahlen')(req);
  });
  const drained = await suggest(p, 'de');
  t.is(drained.data?.problem, 'the balance no longer covers it');
  t.is(drained.data?.chargedCredits, 0);
  t.deepEqual(await credit(p), { balance: 5, held: before.held });
  await db('workspaces').where({ id: p.workspaceId }).update({ balance_mc: before.balance });

  fake.setHandler(() => errorReply(401));
  const refused = await suggest(p, 'de');
  t.is(refused.response.status, 503);
  t.is(refused.error?.error, 'unavailable');
  t.deepEqual(await credit(p), before);
});

test.serial('a balance that cannot hold it, a reviewer, and a language the project lacks are refused', async (t) => {
  fake.setHandler(translateAll());
  const poor = await project(10);
  const asked = fake.requests.length;
  const r = await suggest(poor, 'de');
  t.is(r.response.status, 402);
  t.is(r.error?.error, 'insufficient_credits');
  t.is(fake.requests.length, asked);

  const p = await project();
  const rita = { userId: 'u_rita', name: 'Rita', role: 'reviewer' as const };
  const path = `/projects/${p.projectId}/keys/pay/translations/de/suggestion`;
  t.is((await asPerson(svc, rita, 'POST', path, {})).status, 403);
  t.is((await suggest(p, 'ja')).response.status, 404);
  t.is((await suggest(p, 'en')).response.status, 404, 'the base language');
  t.is(fake.requests.length, asked);
});
