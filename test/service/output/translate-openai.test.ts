// The fill through TRANSLATION_ENGINE=openai against a local server speaking the chat-completions protocol:
// a 429 is retried, a broken answer is retried then counted failed, a refusal of the whole endpoint fails the job.
import test from 'ava';
import {
  errorReply,
  requestItems,
  sequence,
  openAiEnv,
  startFakeOpenAI,
  translateAll,
  type FakeOpenAI,
} from '../../helpers/fake-openai.js';
import { translate } from '../../../packages/client/src/index.js';
import { createTestProject, startTestService, type TestService } from '../../helpers/service.js';
import { pollJob, readKey } from '../../helpers/typed.js';

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

test.serial(
  'a fill through the openai engine: 429 retried, broken answers counted failed, charges only for translated pairs',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }], creditsMc: 10_000 });
    fake.setHandler(
      sequence(
        [() => errorReply(429, { 'Retry-After': '0' })],
        translateAll((item) => (item.source === 'Broken' ? '{oops' : `DE ${item.source}`)),
      ),
    );
    const before = fake.requests.length;
    const r = await translate(p.client, p.projectId, {
      units: [{ source: 'Hello {name}' }, { source: 'Bye', ctx: 'farewell' }, { source: 'Broken' }],
    });
    const d = r.data!;
    t.is(d.estimatedCredits, 12 + 3 + 6);
    await svc.admin.POST('/jobs/run-due', { body: {} });
    const poll = (await pollJob(p.client, p.projectId, d.trackingToken!)).data!;
    t.like(poll, {
      status: 'done',
      creditsCharged: 12 + 3,
      summary: { total: 3, translated: 2, pending: 0, failed: 1 },
    });
    const sent = fake.requests.slice(before);
    t.is(sent[0].headers.authorization, 'Bearer sk-test-secret');
    t.is(sent[0].body?.model, 'fake-model');
    t.truthy(sent[0].body?.response_format);
    const items = requestItems(sent[1]);
    t.is(items.length, 3, 'many strings in one request');
    t.deepEqual(items.find((i) => i.source === 'Bye')?.context, 'farewell');
    t.true(items.some((i) => i.key === 'hello_name'));
    t.deepEqual(
      requestItems(sent[2]).map((i) => i.source),
      ['Broken'],
      'only the broken item is retried',
    );
    const hello = (await readKey(p.client, p.projectId, 'hello_name')).data!;
    t.deepEqual(hello.translations.de, { status: 'translated', value: 'DE Hello {name}' });
    const broken = (await readKey(p.client, p.projectId, 'broken')).data!;
    t.like(broken.translations.de, { status: 'failed' });
    t.regex(broken.translations.de.reason ?? '', /invalid ICU syntax/);
    const w = (await svc.service.app.db('workspaces').where({ id: p.workspaceId }).first())!;
    t.is(Number(w.balance_mc), 10_000 - 15);
    t.is(Number(w.held_mc), 0);
  },
);

test.serial('an endpoint that refuses the credentials fails the job at once and releases the hold', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }], creditsMc: 10_000 });
  fake.setHandler(() => errorReply(401, {}, 'bad key'));
  const d = (await translate(p.client, p.projectId, { units: [{ source: 'Nope' }] })).data!;
  await svc.admin.POST('/jobs/run-due', { body: {} });
  const poll = (await pollJob(p.client, p.projectId, d.trackingToken!)).data!;
  t.like(poll, { status: 'failed', creditsCharged: 0, summary: { total: 1, translated: 0, failed: 1, pending: 0 } });
  const w = (await svc.service.app.db('workspaces').where({ id: p.workspaceId }).first())!;
  t.is(Number(w.balance_mc), 10_000);
  t.is(Number(w.held_mc), 0);
  // The next push queues the pair again.
  fake.setHandler(translateAll());
  const again = (await translate(p.client, p.projectId, { units: [{ source: 'Nope' }] })).data!;
  t.truthy(again.trackingToken);
  t.deepEqual(again.units[0].pending, ['de']);
});
