// The database job queue: due times, simulated clocks, retries with backoff, sweeps, claims that never
// hand one job to two workers, even across separate connections, and leases: a worker whose claim was taken
// over writes nothing more, and a heartbeat keeps a long job's lease alive.
import test from 'ava';
import { openDb } from '../../server/infra/db.js';
import { JobQueue, LeaseLost, runsConcurrently, sweepFinishedJobs } from '../../server/infra/jobs.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
function latch() {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
}

test.serial('a job runs when due, judged by the simulated clock of run-due', async (t) => {
  const { db } = svc.service.app;
  const q = new JobQueue(db);
  const seen: number[] = [];
  q.register('test.later', ({ payload, now }) => {
    const { n, at } = payload as { n: number; at: number };
    seen.push(n);
    t.true(now >= at);
    return Promise.resolve();
  });
  const at = Date.now() + 3_600_000;
  await q.enqueue(db, 'test.later', { n: 1, at }, { runAt: at });
  t.deepEqual(await q.runDue(Date.now()), { ran: 0, failed: 0 });
  t.deepEqual(seen, []);
  t.deepEqual(await q.runDue(at), { ran: 1, failed: 0 });
  t.deepEqual(seen, [1]);
  t.is((await db('jobs').where({ kind: 'test.later' }).first())!.state, 'done');
});

test.serial('a failing job is retried with backoff, then marked failed', async (t) => {
  const { db } = svc.service.app;
  const q = new JobQueue(db);
  let calls = 0;
  q.register('test.flaky', () => {
    calls++;
    return Promise.reject(new Error('boom'));
  });
  const now = Date.now();
  const id = await q.enqueue(db, 'test.flaky', {}, { maxAttempts: 2, now });
  await q.runDue(now);
  let row = (await db('jobs').where({ id: id! }).first())!;
  t.is(row.state, 'queued');
  t.true(Number(row.run_at) > now);
  t.regex(row.last_error!, /boom/);
  await q.runDue(now + 1000);
  t.is(calls, 1, 'not due again before its backoff');
  await q.runDue(Number(row.run_at));
  row = (await db('jobs').where({ id: id! }).first())!;
  t.is(calls, 2);
  t.is(row.state, 'failed');
});

test.serial('a kind with its own retry policy is retried on its own schedule, beside one on the default', async (t) => {
  const { db } = svc.service.app;
  const q = new JobQueue(db);
  let calls = 0;
  q.register(
    'test.own_policy',
    () => {
      calls++;
      return Promise.reject(new Error('again'));
    },
    { maxAttempts: 3, backoffMs: [1_000, 60_000] },
  );
  q.register('test.default_policy', () => Promise.reject(new Error('boom')));
  const now = Date.now();
  const id = await q.enqueue(db, 'test.own_policy', {}, { now });
  const other = await q.enqueue(db, 'test.default_policy', {}, { now });
  const row = async (jobId: number | null) => {
    const r = (await db('jobs').where({ id: jobId! }).first())!;
    return {
      state: r.state,
      attempts: Number(r.attempts),
      max_attempts: Number(r.max_attempts),
      run_at: Number(r.run_at),
    };
  };
  await q.runDue(now);
  t.deepEqual(await row(id), { state: 'queued', attempts: 1, max_attempts: 3, run_at: now + 1_000 });
  t.deepEqual(
    await row(other),
    { state: 'queued', attempts: 1, max_attempts: 5, run_at: now + 5_000 },
    'the default: five runs, 5 s first',
  );
  await q.runDue(now + 1_000);
  t.is(calls, 2);
  t.deepEqual(await row(id), { state: 'queued', attempts: 2, max_attempts: 3, run_at: now + 61_000 });
  await q.runDue(now + 60_999);
  t.is(calls, 2, 'not due again before its own second backoff');
  await q.runDue(now + 61_000);
  t.is(calls, 3);
  t.like(await row(id), { state: 'failed', attempts: 3 });
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
      q.register('test.once', ({ payload }) => {
        const { i } = payload as { i: number };
        runs.set(i, (runs.get(i) ?? 0) + 1);
        return Promise.resolve();
      });
      return q;
    });
    const now = Date.now();
    for (let i = 0; i < 60; i++) await queues[0].enqueue(dbs[0], 'test.once', { i }, { now });
    const results = await Promise.all(queues.map((q) => q.runDue(now)));
    t.true(results.reduce((a, r) => a + r.ran, 0) >= 60);
    t.is(runs.size, 60);
    t.true(
      [...runs.values()].every((n) => n === 1),
      'no job ran twice',
    );
    t.is(
      await dbs[0]('jobs')
        .where({ kind: 'test.once', state: 'done' })
        .count({ n: '*' })
        .then((r) => Number(r[0].n)),
      60,
    );
  } finally {
    await Promise.all(dbs.map((d) => d.destroy()));
  }
});

test.serial('the worker loop picks up due jobs without run-due', async (t) => {
  const { db } = svc.service.app;
  const q = new JobQueue(db);
  const done = new Promise<string>((resolve) =>
    q.register('test.loop', ({ payload }) => {
      resolve((payload as { msg: string }).msg);
      return Promise.resolve();
    }),
  );
  const stop = q.start(20);
  await q.enqueue(db, 'test.loop', { msg: 'hi' });
  t.is(await done, 'hi');
  await stop();
});

for (const stale of ['returns', 'throws'] as const) {
  test.serial(
    `a handler whose claim was taken over can neither finish nor requeue the job (it ${stale})`,
    async (t) => {
      const { db } = svc.service.app;
      const q = new JobQueue(db);
      const kind = `test.lease.${stale}`;
      const [started1, go1, started2, go2] = [latch(), latch(), latch(), latch()];
      let fenceError: unknown;
      q.register(kind, async (job) => {
        const { attempt } = job;
        if (attempt === 2) {
          started2.open();
          await go2.opened;
          return;
        }
        started1.open();
        await go1.opened;
        fenceError = await db
          .transaction((trx) => job.fence(trx))
          .then(
            () => null,
            (e: unknown) => e,
          );
        if (stale === 'throws') throw new Error('the stale worker fails late');
      });
      const now = Date.now();
      const id = await q.enqueue(db, kind, {}, { now });
      const first = q.runDue(now);
      await started1.opened;
      // Six minutes later on run-due's clock the 5-minute lease has expired: attempt 2 takes the job over.
      const later = now + 6 * 60_000;
      const second = q.runDue(later);
      await started2.opened;
      go1.open();
      t.deepEqual(await first, { ran: 1, failed: 1 }, 'the stale run reports its job as not completed');
      t.true(fenceError instanceof LeaseLost);
      let row = (await db('jobs').where({ id: id! }).first())!;
      t.like(
        { ...row, attempts: Number(row.attempts) },
        { state: 'running', attempts: 2, last_error: null },
        'attempt 2 still owns the job',
      );
      go2.open();
      t.deepEqual(await second, { ran: 1, failed: 0 });
      row = (await db('jobs').where({ id: id! }).first())!;
      t.like({ ...row, finished_at: Number(row.finished_at) }, { state: 'done', finished_at: later, last_error: null });
    },
  );
}

test.serial("the heartbeat keeps a long job's lease alive, on the clock the job was claimed with", async (t) => {
  const { db } = svc.service.app;
  const leaseMs = 1000;
  const q = new JobQueue(db, { leaseMs });
  const other = new JobQueue(db, { leaseMs });
  let runs = 0;
  const leases: number[] = [];
  const lease = async (id: number) => Number((await db('jobs').where({ id }).first())!.locked_until);
  q.register('test.long', async ({ jobId }) => {
    runs++;
    leases.push(await lease(jobId));
    await sleep(2000);
    leases.push(await lease(jobId));
  });
  other.register('test.long', () => {
    runs++;
    return Promise.resolve();
  });
  // A simulated clock a day ahead: extending the lease by the real clock would shorten it to the past.
  const now = Date.now() + 86_400_000;
  await q.enqueue(db, 'test.long', {}, { now });
  const run = q.runDue(now);
  await sleep(1500);
  // 1.5 s into the job, past its first lease: the heartbeat has kept it, so no one else may claim it.
  t.deepEqual(await other.runDue(now + 1200), { ran: 0, failed: 0 });
  t.deepEqual(await run, { ran: 1, failed: 0 });
  t.is(runs, 1);
  t.is(leases[0], now + leaseMs, 'claimed for one lease');
  t.true(leases[1] > now + leaseMs + 1000, `extended by the heartbeat on the simulated clock: ${leases[1] - now}`);
});

test.serial('finished jobs are deleted a week after they ended; failed and unfinished ones stay', async (t) => {
  const { db } = svc.service.app;
  const q = new JobQueue(db);
  q.register('test.old', () => Promise.resolve());
  q.register('test.broken', () => Promise.reject(new Error('kept for a person')));
  const now = Date.now();
  const done = await q.enqueue(db, 'test.old', {}, { now });
  const failed = await q.enqueue(db, 'test.broken', {}, { maxAttempts: 1, now });
  const waiting = await q.enqueue(db, 'test.old', {}, { runAt: now + 30 * 86_400_000, now });
  await q.runDue(now);
  await sweepFinishedJobs(db, now + 6 * 86_400_000);
  t.truthy(await db('jobs').where({ id: done! }).first());
  await sweepFinishedJobs(db, now + 8 * 86_400_000);
  t.falsy(await db('jobs').where({ id: done! }).first());
  t.is((await db('jobs').where({ id: failed! }).first())!.state, 'failed');
  t.is((await db('jobs').where({ id: waiting! }).first())!.state, 'queued');
});

test.serial(
  'a kind that runs concurrently keeps a rolling window: never more than its width, refilled as jobs end',
  async (t) => {
    const { db } = svc.service.app;
    const q = new JobQueue(db);
    const kind = 'test.window';
    runsConcurrently(kind, 4);
    const gates = new Map<number, ReturnType<typeof latch>>();
    const started: number[] = [];
    let running = 0;
    let most = 0;
    q.register(kind, async ({ payload }) => {
      const { i } = payload as { i: number };
      started.push(i);
      running++;
      most = Math.max(most, running);
      await gates.get(i)!.opened;
      running--;
    });
    // Due in order a millisecond apart, all of them in the past: a claim made within 10 ms of now would otherwise
    // find only the first few due, and wait for a lane to free before claiming again.
    const now = Date.now() - 1_000;
    for (let i = 0; i < 10; i++) {
      gates.set(i, latch());
      await q.enqueue(db, kind, { i }, { now: now + i });
    }
    const until = async (what: string, ok: () => boolean) => {
      for (let waited = 0; !ok(); waited += 10) {
        // A bound for a stuck queue, not a speed: a loaded machine may take seconds to start four.
        if (waited > 30_000) throw new Error(`never: ${what} (started: ${started.join(', ')})`);
        await sleep(10);
      }
    };
    const drained = q.drain();
    await until('four running', () => started.length === 4);
    await sleep(100);
    t.deepEqual(started, [0, 1, 2, 3], 'the window is full at four, in due order, and takes no fifth');
    gates.get(0)!.open();
    await sleep(100);
    t.is(started.length, 4, 'one free lane waits for a second: a claim is for half the window at least');
    gates.get(1)!.open();
    await until('two more started', () => started.length === 6);
    t.is(running, 4, 'jobs 2 and 3 still run beside the two new ones: a rolling window, not batches');
    for (let i = 2; i < 10; i++) gates.get(i)!.open();
    t.is(await drained, 10);
    t.is(most, 4);
    const rows = await db('jobs').where({ kind }).select('state');
    t.deepEqual(
      rows.map((r: { state: string }) => r.state),
      Array<string>(10).fill('done'),
    );
  },
);
