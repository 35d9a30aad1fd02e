// Content runs against an engine that misbehaves: the OpenAI engine talking to a local chat-completions
// server whose answers the test decides (test/helpers/fake-openai.ts). A block whose answers break its markup is
// tried twice, then given up on: never published broken, counted for `force`. An engine failing as a whole gives
// the run's hold back; so does deleting the document while its run waits.
import test from 'ava';
import {
  requestItems,
  openAiEnv,
  startFakeOpenAI,
  translateAll,
  errorReply,
  type FakeOpenAI,
} from '../helpers/fake-openai.js';
import { asPerson } from '../helpers/actor.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';

let svc: TestService;
let fake: FakeOpenAI;

/**
 * Translates every item, except that a source holding `BREAK` loses its markup tags (`<x0>…</x0>`, which the engine
 * gets as tokens: packages/core/src/guard.ts).
 */
const breaking = translateAll((item) =>
  item.source.includes('BREAK') ? `fr: ${item.source.replace(/<\/?x\d+>|⟦\d+⟧/g, '')}` : `fr: ${item.source}`,
);

test.before(async () => {
  fake = await startFakeOpenAI(breaking);
  svc = await startTestService(openAiEnv(fake));
});
test.after.always(async () => {
  await svc?.stop();
  await fake?.close();
});

const contentProject = (): Promise<TestProject> =>
  createTestProject(svc, { languages: [{ code: 'fr' }], contentEnabled: true });

const call = (p: TestProject, method: string, path: string, body?: unknown) =>
  fetch(`${svc.baseUrl}/projects/${p.projectId}/content${path}`, {
    method,
    headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

const runDue = () => svc.admin.POST('/jobs/run-due', { body: {} });
const working = async (p: TestProject, docId: string) =>
  (
    await svc.admin.GET('/projects/{projectId}/content/{docId}', {
      params: { path: { projectId: p.projectId, docId } },
    })
  ).data!;
const balance = async (p: TestProject) =>
  (
    await svc.admin.PATCH('/workspaces/{workspaceId}', {
      params: { path: { workspaceId: p.workspaceId } },
      body: { requireApproval: false },
    })
  ).data!.balance;
const publish = async (p: TestProject) =>
  (
    await svc.admin.POST('/projects/{projectId}/content/publish', {
      params: { path: { projectId: p.projectId } },
      body: {},
    })
  ).data!;

const TEXT = [
  '# Shipping',
  'Orders leave our warehouse **within two days** of payment.',
  'To BREAK a promise, read [the returns page](https://example.com/returns) first.',
  'Questions? Write to `help@example.com`.',
].join('\n\n');

test.serial(
  'a block whose answers break its markup is given up on, never published broken, and retried with force',
  async (t) => {
    fake.setHandler(breaking);
    const p = await contentProject();
    await call(p, 'PUT', '/ship', { title: 'Shipping', text: TEXT });
    const before = await balance(p);
    t.is((await call(p, 'POST', '/ship/run', {})).status, 200);
    const sent = fake.requests.length;
    await runDue();
    // The run sends the broken block twice (its pass and its one retry), and the OpenAI engine asks again once within
    // each call for an answer its own ICU gate refuses (engines/openai.ts): four requests, and no more.
    const tries = fake.requests
      .slice(sent)
      .flatMap((r) => requestItems(r))
      .filter((i) => i.source.includes('BREAK')).length;
    t.is(tries, 4);
    const w = await working(p, 'ship');
    const units = w.langs[0].units;
    const broken = units.find((u, i) => i < w.blocks.length && w.blocks[i].text.includes('BREAK'))!;
    t.is(broken.state, 'gave_up');
    t.is(units.filter((u) => u.state === 'translated').length, units.length - 1);
    // Charged only what was translated: everything but the broken block.
    const brokenChars = [...w.blocks.find((b) => b.text.includes('BREAK'))!.text].length;
    const total = w.blocks.reduce((n, b) => n + [...b.text].length, 0) + 'Shipping'.length;
    t.is(before - (await balance(p)), total - brokenChars);
    // The report says which block and why.
    t.is(w.langs[0].running, false);
    const pub = await publish(p);
    t.is(pub.summary.docsPublished, 1);
    const pulled = await call(p, 'GET', '/ship?lang=fr');
    // Half a document is never served: the language falls back to the source as a whole.
    t.like(pulled.body, { content: { fr: { source: 'fallback', text: TEXT } } });
    const reports = await call(p, 'GET', '/ship?lang=fr&include=reports');
    const quality = (reports.body as unknown as { reports: { fr: { quality: { gaveUp: Array<{ id: string }> } } } })
      .reports.fr.quality;
    t.deepEqual(
      quality.gaveUp.map((g) => g.id),
      [broken.id],
    );
    // Without force, nothing is left to run; with force the given-up block goes again.
    t.like(await call(p, 'POST', '/ship/run', {}), {
      status: 200,
      body: { jobs: [], skipped: [{ lang: 'fr', reason: 'up_to_date' }] },
    });
    fake.setHandler(translateAll((item) => `fr: ${item.source}`));
    const forced = await call(p, 'POST', '/ship/run', { force: true });
    t.is((forced.body as unknown as { jobs: unknown[] }).jobs.length, 1);
    await runDue();
    t.true((await working(p, 'ship')).langs[0].units.every((u) => u.state === 'translated'));
    await publish(p);
    const fixed = await call(p, 'GET', '/ship?lang=fr');
    const fr = (fixed.body as unknown as { content: { fr: { source: string; text: string } } }).content.fr;
    t.is(fr.source, 'translated');
    t.true(fr.text.includes('fr: To BREAK a promise, read [the returns page](https://example.com/returns)'), fr.text);
    t.true(fr.text.includes('`help@example.com`'));
  },
);

test.serial('an engine failing as a whole ends the run and gives its hold back; nothing is given up on', async (t) => {
  const p = await contentProject();
  await call(p, 'PUT', '/doc', { title: 'Doc', text: TEXT });
  const before = await balance(p);
  fake.setHandler(() => errorReply(401));
  t.is((await call(p, 'POST', '/doc/run', {})).status, 200);
  await runDue();
  t.is(await balance(p), before);
  const w = await working(p, 'doc');
  t.false(w.langs[0].running);
  t.true(w.langs[0].units.every((u) => u.state === 'missing'));
  // The language can run again at once.
  fake.setHandler(translateAll((item) => `fr: ${item.source}`));
  t.is(((await call(p, 'POST', '/doc/run', {})).body as unknown as { jobs: unknown[] }).jobs.length, 1);
  await runDue();
  t.true((await working(p, 'doc')).langs[0].units.every((u) => u.state === 'translated'));
});

test.serial('deleting a document while its run waits gives the hold back', async (t) => {
  fake.setHandler(translateAll((item) => `fr: ${item.source}`));
  const p = await contentProject();
  await call(p, 'PUT', '/gone', { title: 'Gone', text: TEXT });
  const before = await balance(p);
  t.is((await call(p, 'POST', '/gone/run', {})).status, 200);
  t.true((await balance(p)) <= before);
  const del = await svc.admin.DELETE('/projects/{projectId}/content/{docId}', {
    params: { path: { projectId: p.projectId, docId: 'gone' } },
  });
  t.is(del.response.status, 204);
  await runDue();
  t.is(await balance(p), before);
  t.is((await call(p, 'GET', '/gone?lang=fr')).status, 404);
});

test.serial("the dashboard's run: the public preview's estimate, then the run; a reviewer is refused", async (t) => {
  fake.setHandler(translateAll((item) => `fr: ${item.source}`));
  const p = await contentProject();
  await call(p, 'PUT', '/faq', { title: 'Questions', text: 'How long does shipping take?\n\nTwo days.' });
  const path = { path: { projectId: p.projectId, docId: 'faq' } };
  const publicPreview = await call(p, 'POST', '/faq/run', { dryRun: true });
  const preview = await svc.admin.POST('/projects/{projectId}/content/{docId}/run', {
    params: path,
    body: { dryRun: true },
  });
  t.is(preview.response.status, 200);
  t.deepEqual(preview.data, publicPreview.body);
  t.true((preview.data!.estimatedMc ?? 0) > 0);
  t.false((await working(p, 'faq')).langs[0].running, 'a preview starts nothing');
  const reviewer = { userId: 'usr_content_rev', name: 'R', role: 'reviewer' as const };
  t.is((await asPerson(svc, reviewer, 'POST', `/projects/${p.projectId}/content/faq/run`, {})).status, 403);
  const run = await svc.admin.POST('/projects/{projectId}/content/{docId}/run', { params: path, body: {} });
  t.is(run.response.status, 200);
  t.deepEqual(
    run.data!.jobs!.map((j) => j.lang),
    ['fr'],
  );
  await runDue();
  const w = await working(p, 'faq');
  t.true(w.langs[0].units.every((u) => u.state === 'translated'));
});
