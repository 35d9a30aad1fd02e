// The database job queue: due times, simulated clocks, retries with backoff, sweeps, and claims that never
// hand one job to two workers, even across separate connections.
import test from 'ava';
import { openDb } from '../../handlers/platform/db.js';
import { JobQueue } from '../../handlers/platform/jobs.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => { svc = await startTestService(); });
test.after.always(async () => { await svc?.stop(); });

test.serial('a job runs when due, judged by the simulated clock of run-due', async (t) => {
  const { db } = svc.service.app;
  const q = new JobQueue(db);
  const seen: number[] = [];
  q.register('test.later', async ({ payload, now }) => { seen.push(payload.n); t.true(now >= payload.at); });
  const at = Date.now() + 3_600_000;
  await q.enqueue(db, 'test.later', { n: 1, at }, { runAt: at });
  t.deepEqual(await q.runDue(Date.now()), { ran: 0, failed: 0 });
  t.deepEqual(seen, []);
  t.deepEqual(await q.runDue(at), { ran: 1, failed: 0 });
  t.deepEqual(seen, [1]);
  t.is((await db('jobs').where({ kind: 'test.later' }).first()).state, 'done');
});

test.serial('a failing job is retried with backoff, then marked failed', async (t) => {
  const { db } = svc.service.app;
  const q = new JobQueue(db);
  let calls = 0;
  q.register('test.flaky', async () => { calls++; throw new Error('boom'); });
  const now = Date.now();
  const id = await q.enqueue(db, 'test.flaky', {}, { maxAttempts: 2, now });
  await q.runDue(now);
  let row = await db('jobs').where({ id }).first();
  t.is(row.state, 'queued');
  t.true(Number(row.run_at) > now);
  t.regex(row.last_error, /boom/);
  await q.runDue(now + 1000);
  t.is(calls, 1, 'not due again before its backoff');
  await q.runDue(Number(row.run_at));
  row = await db('jobs').where({ id }).first();
  t.is(calls, 2);
  t.is(row.state, 'failed');
});

test.serial('the internal run-due route runs the service sweeps and reports counts', async (t) => {
  const r = await svc.admin.POST('/jobs/run-due', {});
  t.is(r.response.status, 200);
  t.true(r.data!.ran >= 1, 'the rate-window sweep ran');
  const bad = await svc.admin.POST('/jobs/run-due', { body: { now: 'yesterday' } });
  t.is(bad.response.status, 400);
});

test.serial('concurrent workers on separate connections claim each job exactly once', async (t) => {
  const url = svc.service.app.config.databaseUrl;
  const dbs = [openDb(url), openDb(url), openDb(url)];
  try {
    const runs = new Map<number, number>();
    const queues = dbs.map((db) => {
      const q = new JobQueue(db);
      q.register('test.once', async ({ payload }) => { runs.set(payload.i, (runs.get(payload.i) ?? 0) + 1); });
      return q;
    });
    const now = Date.now();
    for (let i = 0; i < 60; i++) await queues[0].enqueue(dbs[0], 'test.once', { i }, { now });
    const results = await Promise.all(queues.map((q) => q.runDue(now)));
    t.true(results.reduce((a, r) => a + r.ran, 0) >= 60);
    t.is(runs.size, 60);
    t.true([...runs.values()].every((n) => n === 1), 'no job ran twice');
    t.is(await dbs[0]('jobs').where({ kind: 'test.once', state: 'done' }).count({ n: '*' }).then((r) => Number(r[0].n)), 60);
  } finally {
    await Promise.all(dbs.map((d) => d.destroy()));
  }
});

test.serial('the worker loop picks up due jobs without run-due', async (t) => {
  const { db } = svc.service.app;
  const q = new JobQueue(db);
  const done = new Promise<string>((resolve) => q.register('test.loop', async ({ payload }) => resolve(payload.msg)));
  const stop = q.start(20);
  await q.enqueue(db, 'test.loop', { msg: 'hi' });
  t.is(await done, 'hi');
  await stop();
});
