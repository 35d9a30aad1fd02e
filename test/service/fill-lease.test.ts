// A fill whose lease expires while it still runs: another run-due (a later simulated clock) reclaims the job
// and completes it; when the first worker's engine answer finally arrives, that worker must commit nothing.
// Charged once, counted once, every value stored once, the job row finished once.
import test from 'ava';
import { startFakeOpenAI, translateAll, type FakeOpenAI, type FakeHandler } from '../helpers/fake-openai.js';
import { translate } from '../../packages/client/src/index.js';
import { createTestProject, startTestService, type TestService } from '../helpers/service.js';
import { pollJob } from '../helpers/typed.js';

let svc: TestService;
let fake: FakeOpenAI;
test.before(async () => {
  fake = await startFakeOpenAI();
  svc = await startTestService({ TRANSLATION_ENGINE: 'openai', OPENAI_BASE_URL: fake.url, OPENAI_MODEL: 'fake-model' });
});
test.after.always(async () => {
  await svc?.stop();
  await fake?.close();
});

const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 10));
};

test.serial('a worker whose lease was taken over commits nothing: the job is charged and counted once', async (t) => {
  const { db } = svc.service.app;
  const credits = 1_000_000;
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }], creditsMc: credits });
  // The first engine request (worker #1's first batch) is held until the test lets it go; the rest answer at once.
  let releaseFirst!: () => void;
  const held = new Promise<void>((r) => {
    releaseFirst = r;
  });
  const first = fake.requests.length;
  const answer = translateAll();
  const handler: FakeHandler = async (req) => {
    if (req.index === first) await held;
    return answer(req);
  };
  fake.setHandler(handler);

  const units = Array.from({ length: 100 }, (_, i) => ({ source: `Lease item ${i}` }));
  const push = (await translate(p.client, p.projectId, { units })).data!;
  const total = units.length * 2;
  const cost = push.estimatedCredits;
  t.is(cost, units.reduce((a, u) => a + u.source.length, 0) * 2);

  const poll = async () => {
    const d = (await pollJob(p.client, p.projectId, push.trackingToken!)).data!;
    t.true(d.summary.pending >= 0, `pending never negative: ${JSON.stringify(d.summary)}`);
    t.true(d.summary.translated <= total, `translated never past total: ${JSON.stringify(d.summary)}`);
    return d;
  };

  // Worker #1 (real now) claims the job and hangs in its first engine call.
  const run1 = svc.admin.POST('/jobs/run-due', { body: {} });
  await until(() => fake.requests.length > first);
  // Six simulated minutes later its 5-minute lease has expired: worker #2 reclaims the job and completes it.
  const later = Date.now() + 6 * 60_000;
  const run2 = await svc.admin.POST('/jobs/run-due', { body: { now: new Date(later).toISOString() } });
  t.is(run2.response.status, 200);
  t.like(await poll(), {
    status: 'done',
    creditsCharged: cost,
    summary: { total, translated: total, pending: 0, failed: 0 },
  });

  // Worker #1's answer arrives at last: it lost its claim, so it must not store, charge, count or finish.
  releaseFirst();
  t.is((await run1).response.status, 200);
  t.like(await poll(), {
    status: 'done',
    creditsCharged: cost,
    summary: { total, translated: total, pending: 0, failed: 0 },
  });

  const w = (await db('workspaces').where({ id: p.workspaceId }).first())!;
  t.is(Number(w.balance_mc), credits - cost, 'charged exactly once');
  t.is(Number(w.held_mc), 0);
  const fillJob = (await db('fill_jobs').where({ tracking_token: push.trackingToken! }).first())!;
  t.is(Number(fillJob.charged_mc), cost);
  t.is(Number(fillJob.held_mc), 0);
  t.deepEqual(
    (await db('fill_pairs').where({ job_id: fillJob.id }).select('state')).map((r) => r.state),
    Array(total).fill('translated'),
  );
  const rows = await db('translations')
    .join('keys', 'keys.id', 'translations.key_id')
    .where('keys.project_id', p.projectId)
    .select<{ source: string; lang: string; status: string; value: string | null }[]>(
      'keys.source',
      'translations.lang',
      'translations.status',
      'translations.value',
    );
  t.is(rows.length, total, 'no duplicate or lost values');
  t.true(rows.every((r) => r.status === 'translated' && r.value === `${r.lang}: ${r.source}`));

  // The queue row was finished by worker #2 (its simulated clock), not overwritten by worker #1.
  const job = (await db('jobs').where({ kind: 'fill' }).select()).find(
    (j) => (JSON.parse(j.payload) as { jobId: number }).jobId === Number(fillJob.id),
  )!;
  t.like(
    { ...job, attempts: Number(job.attempts), finished_at: Number(job.finished_at) },
    { state: 'done', attempts: 2, finished_at: later, last_error: null },
  );
});
