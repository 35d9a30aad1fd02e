// The background job queue lives in the database: any process may enqueue, any worker may claim.
// MySQL claims with SELECT ... FOR UPDATE SKIP LOCKED; SQLite claims with one UPDATE ... RETURNING.
// Sweeps are jobs too (unique_key `sweep:<kind>`), re-enqueued after each run, so a fleet runs each once.
//
// A claim is a lease: a worker that stalls past `locked_until` loses the job to the next claim, which bumps
// `attempts`. The stalled worker may still be running, so every write it makes for the job is fenced: the
// job row must still carry its claim (locked_by AND attempts; run-due in one process shares one workerId)
// in the same transaction as the writes, or they roll back. The fence is an UPDATE: it extends the lease
// and, on MySQL, row-locks the job, so a fenced transaction and a claim of the same job are ordered.
import { setTimeout as sleep } from 'node:timers/promises';
import os from 'node:os';
import type { Knex } from 'knex';
import type { Db } from './db.js';
import type { Logger } from './log.js';
import { chunks, dialectOf, hotTransaction, insertOrKeep, parseJson, retryContended } from './db.js';
import type { JobRow } from './tables.js';

export interface JobContext<P = unknown> {
  db: Db;
  payload: P;
  now: number;
  jobId: number;
  attempt: number;
  /** True on the last attempt the queue will make: a handler finalizes its own state then. */
  lastAttempt: boolean;
  /**
   * Call first in every transaction that writes the job's state: extends the lease, or throws LeaseLost
   * (rolling the transaction back) when another claim has taken the job over. Let LeaseLost propagate.
   */
  fence(trx: Db): Promise<void>;
  /**
   * fence() and the queue's own end of the job in one statement, for a handler that writes its outcome with raw
   * statements (db.ts hotTransaction on SQLite, knex.raw on MySQL): run it first in that transaction, in place of
   * fence(), and throw LeaseLost (rolling the transaction back) when it changes no row. `done` ends the job as the
   * queue does after a handler that returns; `extend` only extends the lease, as fence() does (the queue then ends
   * the job as usual). After a transaction that ran `done` has committed, the handler returns JOB_COMPLETED and the
   * queue writes nothing more for the job. Not for sweeps: their next turn is enqueued as the queue ends them.
   */
  claimStatement(end: 'done' | 'extend'): { sql: string; params: unknown[] };
}

/** What a handler returns when its own transaction ended the job (JobContext.claimStatement('done')). */
export const JOB_COMPLETED = 'job-completed';

/** This worker's claim on a job was taken over: it must write nothing more for the job. */
export class LeaseLost extends Error {
  constructor(jobId: number) {
    super(`job ${jobId}: lease lost to another claim`);
    this.name = 'LeaseLost';
  }
}

interface ClaimedJob {
  id: number;
  kind: string;
  payload: string;
  attempts: number;
  max_attempts: number;
  unique_key: string | null;
}

/** `P`: the payload the kind is enqueued with (stored as JSON, parsed back for the handler). */
type JobHandler<P = unknown> = (ctx: JobContext<P>) => Promise<void | typeof JOB_COMPLETED>;

/** How a job kind is retried when its handler throws. */
interface RetryPolicy {
  /** Runs in all before the job is marked failed (a job row may carry its own, given at enqueue). */
  maxAttempts: number;
  /** The wait after the 1st, 2nd, … failed run before the next; the last entry repeats. */
  backoffMs: readonly number[];
}

/** A job kind's policy unless it declares its own: five runs, backing off from 5 seconds to 10 minutes. */
const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, backoffMs: [5_000, 30_000, 120_000, 600_000] };

/**
 * A sweep runs once per turn: a failure is not retried, the next sweep (its period later) is the retry. The
 * backoff applies only to a sweep registered with more attempts.
 */
const SWEEP_RETRY: RetryPolicy = { maxAttempts: 1, backoffMs: DEFAULT_RETRY.backoffMs };

interface Registered {
  handler: JobHandler;
  retry: RetryPolicy;
  sweepEveryMs?: number;
  /** The project a job of this kind works for (runDue scoped to a project runs only its jobs). */
  projectOf?: ProjectOf;
  /** A sweep's pass over one project alone (runDue scoped to a project); a sweep without one is skipped then. */
  perProject?: ProjectSweep;
}

/** The project a job's payload works for, or null when it works for none (or its subject is gone). */
type ProjectOf = (payload: unknown, db: Db) => Promise<string | null>;

/** A sweep over one project's rows alone. */
type ProjectSweep = (ctx: { db: Db; now: number; projectId: string }) => Promise<unknown>;

const LEASE_MS = 5 * 60_000;

const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));

/**
 * What frees a finished job's unique key for the next job of that key, for a job that has one: SQLite rewrites
 * an index entry for each indexed column a SET names, changed or not, and most jobs have no key.
 */
const freeKey = (job: ClaimedJob): Partial<JobRow> => (job.unique_key === null ? {} : { unique_key: null });

/**
 * Kinds whose handler may run several jobs at once in one process (a webhook attempt mostly waits on its
 * receiver), with how many: declared beside the handler by runsConcurrently, since whether that is safe is a
 * property of the handler's code. Every other kind runs one job at a time.
 */
const widths = new Map<string, number>();

/** Of those, the kinds whose jobs carry a share key (enqueued with `shareKey`), with each key's share. */
const shares = new Map<string, number>();

/**
 * Declares that a worker may run up to `width` jobs of `kind` at once. With `share`, jobs enqueued with a
 * `shareKey` (a webhook attempt's project) are claimed fairly (claimFairly): while jobs of other keys are due, a key
 * with `share` jobs running (across every worker, counted in the database) gets no more lanes; when no other key has
 * a job due, it takes every free lane, so a single busy key runs as wide as before.
 */
export function runsConcurrently(kind: string, width: number, opts: { share?: number } = {}): void {
  widths.set(kind, Math.max(1, Math.floor(width)));
  if (opts.share) shares.set(kind, Math.max(1, Math.floor(opts.share)));
}

const widthOf = (kind: string) => widths.get(kind) ?? 1;

/** A due job as the fair claim reads it. */
type Candidate = ClaimedJob & { share_key: string | null; run_at: number };

/**
 * The keys with jobs of a kind queued, in key order: one index seek per key (jobs_state_share_kind_run_at), where
 * a DISTINCT would read every queued job of the kind (SQLite has no skip scan), however long one key's backlog.
 */
const SHARE_KEYS_SQL =
  'WITH RECURSIVE k (sk) AS (' +
  "SELECT (SELECT MIN(share_key) FROM jobs WHERE state = 'queued' AND kind = ? AND share_key > '') " +
  'UNION ALL ' +
  "SELECT (SELECT MIN(j.share_key) FROM jobs j WHERE j.state = 'queued' AND j.kind = ? AND j.share_key > k.sk) " +
  'FROM k WHERE k.sk IS NOT NULL' +
  ') SELECT sk AS share_key FROM k WHERE sk IS NOT NULL';

/** One statement of the fair claim (`?` placeholders, both dialects), and the rows it answered. */
type Ask = { sql: string; params: unknown[] };

/**
 * The fair claim of up to `n` due jobs of one kind, as a dialogue of statements (claimFairly runs it inside one
 * transaction on either dialect). `lock` is appended to the reads that choose rows (MySQL: FOR UPDATE SKIP LOCKED).
 * First the oldest `n` due jobs, as the plain claim reads them, of which each key takes up to its share; when some
 * were left for being over their share, the keys with jobs queued (one index seek each) are asked for their oldest
 * due jobs, starting after the key served last (`cursor`), so a key behind another's backlog is found however long
 * that backlog is. Free lanes left after that go to the jobs left over (oldest first): no lane idles while a job is
 * due. Returns the jobs chosen, in (run_at, id) order; they are not yet marked running.
 */
function* fairChoice(
  kind: string,
  share: number,
  n: number,
  now: number,
  cols: string,
  lock: string,
  cursor: string | undefined,
): Generator<Ask, { chosen: Candidate[]; lastKey?: string }, Array<Candidate & { n?: number }>> {
  const running = new Map<string, number>();
  const counted = yield {
    sql:
      "SELECT share_key, COUNT(*) AS n FROM jobs WHERE state = 'running' AND share_key IS NOT NULL AND kind = ? " +
      'GROUP BY share_key',
    params: [kind],
  };
  for (const r of counted) running.set(r.share_key!, Number(r.n));
  const full = (key: string | null) => key !== null && (running.get(key) ?? 0) >= share;
  const chosen: Candidate[] = [];
  const take = (c: Candidate) => {
    chosen.push(c);
    if (c.share_key !== null) running.set(c.share_key, (running.get(c.share_key) ?? 0) + 1);
  };
  const oldest = yield {
    sql: `SELECT ${cols}, share_key, run_at FROM jobs WHERE state = 'queued' AND run_at <= ? AND kind = ? ORDER BY run_at, id LIMIT ?${lock}`,
    params: [now, kind, n],
  };
  const over: Candidate[] = [];
  for (const c of oldest)
    if (full(c.share_key)) over.push(c);
    else take(c);
  let lastKey: string | undefined;
  // Only when the oldest `n` were all due and some were over their share can another key's jobs be hiding behind.
  if (over.length && oldest.length === n) {
    const keys = (yield { sql: SHARE_KEYS_SQL, params: [kind, kind] }).map((r) => r.share_key!);
    const start = cursor === undefined ? 0 : keys.findIndex((k) => k > cursor);
    const turn = start <= 0 ? keys : [...keys.slice(start), ...keys.slice(0, start)];
    const seen = new Set(chosen.map((c) => c.id));
    for (const key of turn) {
      if (chosen.length >= n) break;
      if (full(key)) continue;
      const room = share - (running.get(key) ?? 0);
      const more = yield {
        sql:
          `SELECT ${cols}, share_key, run_at FROM jobs WHERE state = 'queued' AND share_key = ? AND kind = ? AND run_at <= ? ` +
          `ORDER BY run_at, id LIMIT ?${lock}`,
        params: [key, kind, now, room + chosen.filter((c) => c.share_key === key).length],
      };
      for (const c of more) {
        if (chosen.length >= n || full(key)) break;
        if (seen.has(c.id)) continue;
        seen.add(c.id);
        take(c);
        lastKey = key;
      }
    }
  }
  for (const c of over) if (chosen.length < n) take(c);
  const order = (a: Candidate, b: Candidate) => Number(a.run_at) - Number(b.run_at) || Number(a.id) - Number(b.id);
  return { chosen: chosen.sort(order), lastKey };
}

/** Runs `work` over `items`, at most `width` at a time, the results in the items' order. */
async function pool<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return results;
}

type EnqueueOptions = { runAt?: number; uniqueKey?: string; maxAttempts?: number; now?: number; shareKey?: string };

const jobRow = (kind: string, payload: unknown, opts: EnqueueOptions) => {
  const now = opts.now ?? Date.now();
  return {
    kind,
    payload: JSON.stringify(payload ?? {}),
    state: 'queued',
    run_at: opts.runAt ?? now,
    attempts: 0,
    max_attempts: opts.maxAttempts ?? DEFAULT_RETRY.maxAttempts,
    unique_key: opts.uniqueKey ?? null,
    share_key: opts.shareKey ?? null,
    created_at: now,
    updated_at: now,
  };
};

/**
 * Inserts a job row, for writers that hold no JobQueue (the outbox, server/domain/webhooks/events.ts): `maxAttempts`
 * is then theirs to give. With `uniqueKey`, at most one unfinished job per key: a duplicate insert is a no-op.
 */
export async function enqueueJob(
  db: Db,
  kind: string,
  payload: unknown,
  opts: EnqueueOptions = {},
): Promise<number | null> {
  const row = jobRow(kind, payload, opts);
  if (opts.uniqueKey) {
    await insertOrKeep(db, 'jobs', row, ['unique_key'], 'unique_key');
    return null;
  }
  const [id] = await db('jobs').insert(row);
  return Number(id);
}

/** enqueueJob of several jobs of one kind, each with its own unique key, in one statement. */
export async function enqueueUniqueJobs(
  db: Db,
  kind: string,
  jobs: Array<{ payload: unknown; uniqueKey: string; shareKey?: string }>,
  opts: Omit<EnqueueOptions, 'uniqueKey' | 'shareKey'> = {},
): Promise<void> {
  if (!jobs.length) return;
  const rows = jobs.map((j) => jobRow(kind, j.payload, { ...opts, uniqueKey: j.uniqueKey, shareKey: j.shareKey }));
  await insertOrKeep(db, 'jobs', rows, ['unique_key'], 'unique_key');
}

export class JobQueue {
  private readonly kinds = new Map<string, Registered>();
  readonly workerId = `${os.hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;

  private readonly leaseMs: number;

  /** Per kind with shares: the key the fair claim served last, where the next one starts asking (fairChoice). */
  private readonly shareCursors = new Map<string, string>();

  /** `leaseMs` is for tests; the default is 5 minutes. */
  private readonly log: Pick<Logger, 'error'> | undefined;

  constructor(
    private readonly db: Db,
    opts: { leaseMs?: number; log?: Pick<Logger, 'error'> } = {},
  ) {
    this.leaseMs = opts.leaseMs ?? LEASE_MS;
    this.log = opts.log;
  }

  /** `retry`: this kind's own attempts and backoff, over DEFAULT_RETRY. */
  /** `projectOf`: the project a job of the kind works for, so that runDue scoped to a project can choose it. */
  register<P>(
    kind: string,
    handler: JobHandler<P>,
    retry: Partial<RetryPolicy> = {},
    projectOf?: (payload: P, db: Db) => Promise<string | null>,
  ): void {
    // The payload is what enqueue() of this kind stored: the kind's own registration names its type.
    this.kinds.set(kind, {
      handler: handler as JobHandler,
      retry: { ...DEFAULT_RETRY, ...retry },
      projectOf: projectOf as ProjectOf | undefined,
    });
  }

  /**
   * A sweep runs at most every `everyMs` on the worker timer, and on every run-due. `retry` over SWEEP_RETRY.
   * `perProject`: the same sweep over one project's rows, which runDue scoped to a project runs in its place.
   */
  registerSweep(
    kind: string,
    everyMs: number,
    handler: JobHandler,
    retry: Partial<RetryPolicy> = {},
    perProject?: ProjectSweep,
  ): void {
    // A sweep is housekeeping that may run again at any time, so one that lost an InnoDB deadlock to a concurrent
    // writer (a publish, a claim) runs again at once instead of failing its turn and logging an error.
    this.kinds.set(kind, {
      handler: (ctx) => retryContended(() => handler(ctx)),
      retry: { ...SWEEP_RETRY, ...retry },
      sweepEveryMs: everyMs,
      perProject: perProject && ((ctx) => retryContended(() => perProject(ctx))),
    });
  }

  /** The policy of `kind`: its own if this process registered it, else the default. */
  private retryOf(kind: string): RetryPolicy {
    return this.kinds.get(kind)?.retry ?? DEFAULT_RETRY;
  }

  private enqueueSweep(kind: string, everyMs: number, now: number) {
    return this.enqueue(this.db, kind, {}, { uniqueKey: `sweep:${kind}`, runAt: now + everyMs, now });
  }

  enqueue(db: Db, kind: string, payload: unknown, opts: EnqueueOptions = {}): Promise<number | null> {
    return enqueueJob(db, kind, payload, { ...opts, maxAttempts: opts.maxAttempts ?? this.retryOf(kind).maxAttempts });
  }

  /** Make sure every sweep has its pending job. */
  async scheduleSweeps(now = Date.now()): Promise<void> {
    for (const [kind, r] of this.kinds) {
      if (r.sweepEveryMs) await this.enqueueSweep(kind, r.sweepEveryMs, now);
    }
  }

  private sweepKinds(): string[] {
    return [...this.kinds].filter(([, r]) => r.sweepEveryMs).map(([k]) => k);
  }

  /**
   * Claims up to `limit` due jobs (expired leases count as due). `allSweeps` also claims sweeps not yet due.
   * `only`: of these kinds alone. `ids`: of these jobs alone (runDue scoped to a project).
   */
  async claim(now: number, limit: number, allSweeps = false, only?: string[], ids?: number[]): Promise<ClaimedJob[]> {
    const known = [...this.kinds.keys()].filter((k) => !only || only.includes(k));
    if (!known.length || ids?.length === 0) return [];
    const sweeps = allSweeps ? this.sweepKinds() : [];
    const marks = (list: unknown[]) => list.map(() => '?').join(', ');
    // Two passes, each one statement the indexes serve: first the jobs queued and due, in (state, run_at) index
    // order, so a claim reads `limit` rows however long the backlog is (one condition with ORs read and sorted
    // every due job on each claim: a backlog drained in quadratic time); then, only when those do not fill the
    // claim, expired leases and (run-due) sweeps not yet due, which are few.
    // Raw SQL with `?` placeholders, the same on both dialects: a worker claims before every few jobs, and Knex's
    // builder cost more than the statement (a CPU profile of the webhook bench, bench/webhooks.ts).
    const byId = ids ? { sql: ` AND id IN (${marks(ids)})`, params: ids } : { sql: '', params: [] };
    const queuedDue = {
      sql: `state = 'queued' AND run_at <= ? AND kind IN (${marks(known)})${byId.sql}`,
      params: [now, ...known, ...byId.params],
    };
    const rest = {
      sql:
        `kind IN (${marks(known)}) AND ((state = 'running' AND locked_until < ?)` +
        (sweeps.length ? ` OR (state = 'queued' AND kind IN (${marks(sweeps)})))` : ')') +
        byId.sql,
      params: [...known, now, ...sweeps, ...byId.params],
    };
    const set = "state = 'running', locked_by = ?, locked_until = ?, attempts = attempts + 1, updated_at = ?";
    const setParams = [this.workerId, now + this.leaseMs, now];
    const cols = 'id, kind, payload, attempts, max_attempts, unique_key';
    const pass = async (where: { sql: string; params: unknown[] }, n: number): Promise<ClaimedJob[]> => {
      if (n <= 0) return [];
      if (dialectOf(this.db) === 'sqlite') {
        // One UPDATE ... RETURNING in an IMMEDIATE transaction: the write lock is taken up front, so a second
        // process waits (busy_timeout) instead of failing on a stale read snapshot, and the rows chosen are the
        // rows updated. The outer WHERE is the id list alone: repeating the conditions there made SQLite's
        // planner walk the (state, run_at) index over every due job and test each against the list, ten times
        // slower on a backlog of 20,000.
        const sql = `UPDATE jobs SET ${set} WHERE id IN (SELECT id FROM jobs WHERE ${where.sql} ORDER BY run_at, id LIMIT ?) RETURNING ${cols}`;
        const params = [...setParams, ...where.params, n];
        const rows = await hotTransaction(this.db, (prepare) => prepare(sql).all(...params) as ClaimedJob[]);
        return rows.map((r) => ({ ...r, id: Number(r.id) }));
      }
      return this.db.transaction(async (trx) => {
        // mysql2 answers a SELECT with [rows, fields].
        const [rows] = (await trx.raw(
          `SELECT ${cols} FROM jobs WHERE ${where.sql} ORDER BY run_at, id LIMIT ? FOR UPDATE SKIP LOCKED`,
          [...where.params, n] as Knex.RawBinding[],
        )) as [ClaimedJob[], unknown];
        if (!rows.length) return [];
        await trx.raw(`UPDATE jobs SET ${set} WHERE id IN (${marks(rows)})`, [
          ...setParams,
          ...rows.map((r) => r.id),
        ] as Knex.RawBinding[]);
        return rows.map((r) => ({ ...r, id: Number(r.id), attempts: r.attempts + 1 }));
      });
    };
    const shared = only?.length === 1 && !allSweeps && !ids ? shares.get(only[0]) : undefined;
    const fairPass = async (kind: string, share: number, n: number): Promise<ClaimedJob[]> => {
      const cursor = this.shareCursors.get(kind);
      const mark = (rows: Candidate[]) => `UPDATE jobs SET ${set} WHERE id IN (${marks(rows)})`;
      const claimed = (rows: Candidate[]) => rows.map((r) => ({ ...r, id: Number(r.id), attempts: r.attempts + 1 }));
      type Result = { chosen: Candidate[]; lastKey?: string };
      let result: Result;
      if (dialectOf(this.db) === 'sqlite') {
        // The whole dialogue and the claim in one IMMEDIATE transaction: the rows chosen are the rows updated.
        result = await hotTransaction(this.db, (prepare) => {
          const talk = fairChoice(kind, share, n, now, cols, '', cursor);
          let step = talk.next();
          while (!step.done) step = talk.next(prepare(step.value.sql).all(...step.value.params) as never);
          const { chosen } = step.value;
          if (chosen.length) prepare(mark(chosen)).run(...setParams, ...chosen.map((r) => r.id));
          return step.value;
        });
      } else {
        result = await this.db.transaction(async (trx) => {
          const talk = fairChoice(kind, share, n, now, cols, ' FOR UPDATE SKIP LOCKED', cursor);
          let step = talk.next();
          while (!step.done) {
            // mysql2 answers a SELECT with [rows, fields].
            const [rows] = (await trx.raw(step.value.sql, step.value.params as Knex.RawBinding[])) as [never, unknown];
            step = talk.next(rows);
          }
          const { chosen } = step.value;
          if (chosen.length)
            await trx.raw(mark(chosen), [...setParams, ...chosen.map((r) => r.id)] as Knex.RawBinding[]);
          return step.value;
        });
      }
      if (result.lastKey !== undefined) this.shareCursors.set(kind, result.lastKey);
      return claimed(result.chosen);
    };
    const first = shared ? await fairPass(only![0], shared, limit) : await pass(queuedDue, limit);
    return first.length < limit ? [...first, ...(await pass(rest, limit - first.length))] : first;
  }

  /** The job row as this worker's claim left it: its writes match only while the claim stands. */
  private claimOf(job: ClaimedJob) {
    return { id: job.id, locked_by: this.workerId, attempts: job.attempts, state: 'running' };
  }

  /** Done, requeued with backoff, or failed; nothing when the claim was lost (the job belongs to another claim). */
  private async finish(job: ClaimedJob, now: number, error?: unknown): Promise<boolean> {
    const reg = this.kinds.get(job.kind);
    // Each write is one autocommit statement fenced by the claim, so one that lost a MySQL deadlock to a claim or
    // a publish (which rolls back only that statement) is simply tried again.
    const mine = (row: Partial<JobRow>) => retryContended(() => this.db('jobs').where(this.claimOf(job)).update(row));
    const lastError = () => String((error as Error)?.stack ?? error).slice(0, 4000);
    let n: number;
    if (!error) {
      n = await mine({ state: 'done', ...freeKey(job), locked_until: null, finished_at: now, updated_at: now });
    } else if (job.attempts < job.max_attempts) {
      const { backoffMs } = this.retryOf(job.kind);
      const delay = backoffMs[Math.min(job.attempts - 1, backoffMs.length - 1)];
      n = await mine({
        state: 'queued',
        run_at: now + delay,
        locked_until: null,
        last_error: lastError(),
        updated_at: now,
      });
    } else {
      n = await mine({
        state: 'failed',
        ...freeKey(job),
        locked_until: null,
        finished_at: now,
        last_error: lastError(),
        updated_at: now,
      });
    }
    if (n === 0) return false;
    if (reg?.sweepEveryMs && (!error || job.attempts >= job.max_attempts)) {
      await retryContended(() => this.enqueueSweep(job.kind, reg.sweepEveryMs!, now));
    }
    return !error;
  }

  async runOne(job: ClaimedJob, now: number): Promise<boolean> {
    const reg = this.kinds.get(job.kind)!;
    // The lease runs on the clock the job was claimed with (run-due's may be simulated), advancing in real
    // time: extending it by the real clock would cut short a lease claimed at a simulated future instant.
    const started = Date.now();
    const lease = () => now + (Date.now() - started) + this.leaseMs;
    const extend = async (db: Db) =>
      (await db('jobs').where(this.claimOf(job)).update({ locked_until: lease() })) === 1;
    const fence = async (trx: Db) => {
      if (!(await (dialectOf(trx) === 'mysql' ? extendLocked(trx) : extend(trx)))) throw new LeaseLost(job.id);
    };
    // MySQL, in the caller's transaction: the claim is read and locked by the primary key, then the lease extended
    // by the key alone. As one UPDATE with the claim's columns in its WHERE, InnoDB could take (state, run_at) and
    // lock that index's `running` range up to its end, where every new job row goes: a push enqueueing its fill
    // deadlocked with a fill's write transaction (SHOW ENGINE INNODB STATUS, test/service/memory.test.ts).
    const extendLocked = async (trx: Db) => {
      const claim = this.claimOf(job);
      const row = await trx<JobRow>('jobs').where({ id: job.id }).forUpdate().first('locked_by', 'attempts', 'state');
      const held =
        row?.locked_by === claim.locked_by && Number(row.attempts) === claim.attempts && row.state === claim.state;
      return held && (await trx('jobs').where({ id: job.id }).update({ locked_until: lease() })) === 1;
    };
    // The heartbeat keeps the lease alive through long steps with no fenced write (a slow engine call).
    // A failed beat changes nothing: the next fence finds out whether the claim still stands.
    const heartbeat = setInterval(() => {
      extend(this.db).catch(() => {});
    }, this.leaseMs / 3);
    heartbeat.unref();
    // The same fenced writes as raw SQL (`?` placeholders, valid on both dialects); the `done` row is finish()'s.
    const claimStatement = (end: 'done' | 'extend') => {
      if (end === 'done' && reg.sweepEveryMs) throw new Error(`${job.kind}: a sweep is ended by the queue`);
      const where = 'WHERE id = ? AND locked_by = ? AND attempts = ? AND state = ?';
      const claim = [job.id, this.workerId, job.attempts, 'running'];
      return end === 'done'
        ? {
            sql: `UPDATE jobs SET state = 'done', ${job.unique_key === null ? '' : 'unique_key = NULL, '}locked_until = NULL, finished_at = ?, updated_at = ? ${where}`,
            params: [now, now, ...claim],
          }
        : {
            sql: `UPDATE jobs SET locked_until = ? ${where}`,
            params: [now + (Date.now() - started) + this.leaseMs, ...claim],
          };
    };
    let error: unknown;
    let completed = false;
    try {
      completed =
        (await reg.handler({
          db: this.db,
          payload: parseJson(job.payload, {}),
          now,
          jobId: job.id,
          attempt: job.attempts,
          lastAttempt: job.attempts >= job.max_attempts,
          fence,
          claimStatement,
        })) === JOB_COMPLETED;
    } catch (err) {
      error = err ?? new Error('job handler threw without an error');
    } finally {
      clearInterval(heartbeat);
    }
    // The handler's own transaction ended the job, under the claim: nothing is left to write.
    if (completed) return true;
    return this.finish(job, now, error);
  }

  /**
   * Runs every job due at `now`, and every sweep, until nothing is due. `now` may be simulated (tests):
   * jobs and sweeps then judge time by it, exactly as they would when that instant came. `projectId`: that
   * project's jobs alone, and the sweeps that have a pass per project, over it alone (runDueForProject).
   */
  async runDue(now = Date.now(), projectId?: string): Promise<{ ran: number; failed: number }> {
    if (projectId !== undefined) return this.runDueForProject(now, projectId);
    // Scheduling and claiming touch rows that publishes and other workers write too (MySQL may pick either side
    // of a deadlock): the loser tries again instead of failing the whole run.
    await retryContended(() => this.scheduleSweeps(now));
    let ran = 0;
    let failed = 0;
    let allSweeps = true;
    for (;;) {
      const sweepsToo = allSweeps;
      const batch = await retryContended(() => this.claim(now, 50, sweepsToo));
      allSweeps = false;
      if (!batch.length) return { ran, failed };
      for (const ok of await this.runBatch(batch, () => now)) {
        ran++;
        if (!ok) failed++;
      }
    }
  }

  /**
   * runDue for one project: tests of other projects sharing the database (and its queue) are not touched, not
   * even at a simulated `now`. Sweeps run their per-project pass directly, outside the queue (their queued turn is
   * left as it is); sweeps without one are global housekeeping and do not run. Jobs of kinds that name their
   * project (register's `projectOf`) are chosen by reading the due ones and asking each its project; the claim
   * is the usual one, restricted to those ids.
   */
  private async runDueForProject(now: number, projectId: string): Promise<{ ran: number; failed: number }> {
    /** How often a claim that took none of the project's due jobs is tried again (10 ms apart). */
    const PASSED_OVER_TRIES = 300;
    let ran = 0;
    let failed = 0;
    for (const [kind, r] of this.kinds) {
      if (!r.perProject) continue;
      ran++;
      try {
        await r.perProject({ db: this.db, now, projectId });
      } catch (err) {
        failed++;
        this.log?.error({ err, kind, projectId }, 'sweep failed');
      }
    }
    const scoped = [...this.kinds].filter(([, r]) => r.projectOf).map(([k]) => k);
    if (!scoped.length) return { ran, failed };
    const marks = scoped.map(() => '?').join(', ');
    let passedOver = 0;
    for (;;) {
      const due = await this.db('jobs')
        .whereRaw(
          `kind IN (${marks}) AND ((state = 'queued' AND run_at <= ?) OR (state = 'running' AND locked_until < ?))`,
          [...scoped, now, now],
        )
        .select<Array<Pick<ClaimedJob, 'id' | 'kind' | 'payload'>>>('id', 'kind', 'payload');
      const ids: number[] = [];
      for (const job of due) {
        const of = this.kinds.get(job.kind)!.projectOf!;
        if ((await of(parseJson(job.payload, {}), this.db)) === projectId) ids.push(Number(job.id));
      }
      const batch = ids.length ? await retryContended(() => this.claim(now, 50, false, scoped, ids.slice(0, 50))) : [];
      if (!batch.length) {
        // Due jobs of this project that the claim passed over: under REPEATABLE READ another claim's scan of the
        // (state, run_at) index locks rows it does not take, and SKIP LOCKED skips them. Waiting for those locks
        // instead made claims deadlock with each other. Read the due jobs again after a moment (one another worker
        // took meanwhile is no longer due), for a few seconds at most.
        if (!ids.length || ++passedOver > PASSED_OVER_TRIES) return { ran, failed };
        await sleep(10);
        continue;
      }
      passedOver = 0;
      for (const ok of await this.runBatch(batch, () => now)) {
        ran++;
        if (!ok) failed++;
      }
    }
  }

  /**
   * Runs claimed jobs in their order: one at a time, except that consecutive jobs of a kind that runsConcurrently
   * run up to its width at once. `clock`: the `now` each job runs with.
   */
  private async runBatch(batch: ClaimedJob[], clock: () => number): Promise<boolean[]> {
    const results: boolean[] = [];
    for (let i = 0; i < batch.length;) {
      const { kind } = batch[i];
      let end = i + 1;
      if (widthOf(kind) > 1) while (end < batch.length && batch[end].kind === kind) end++;
      results.push(...(await pool(batch.slice(i, end), widthOf(kind), (job) => this.runOne(job, clock()))));
      i = end;
    }
    return results;
  }

  /**
   * What the worker loop does until nothing is due: claims one job and runs it; a job of a kind that
   * runsConcurrently opens a window of that kind (runWindow). Every job claimed is running: a worker holds no
   * queue of claimed jobs that another worker of a fleet could have started.
   */
  async drain(stopped: () => boolean = () => false): Promise<number> {
    let ran = 0;
    for (;;) {
      const batch = await retryContended(() => this.claim(Date.now(), 1));
      if (!batch.length || stopped()) return ran;
      const [job] = batch;
      const width = widthOf(job.kind);
      if (width > 1) ran += await this.runWindow(job, width, stopped);
      else {
        await this.runOne(job, Date.now());
        ran++;
      }
    }
  }

  /**
   * Keeps up to `width` jobs of `first`'s kind running, starting with `first`: a rolling window, not batches, so a
   * slow receiver holds one lane, not the next seven attempts. Lanes that free wait until half the window is
   * free, then one claim takes as many jobs as there are free lanes: a claim is a write transaction that costs
   * about what an attempt's outcome does, so claiming per lane would double the database work of a fast
   * receiver's attempts. Ends when a claim finds none of the kind due, once the jobs running have ended.
   */
  private async runWindow(first: ClaimedJob, width: number, stopped: () => boolean): Promise<number> {
    const ready: ClaimedJob[] = [first];
    const threshold = Math.ceil(width / 2);
    let ran = 0;
    let idle = 0;
    let dry = false;
    let claiming = false;
    let failure: Error | undefined;
    // Lanes without a job wait for the next turn: the end of a claim, or a lane leaving.
    let wake!: () => void;
    let turn!: Promise<void>;
    const nextTurn = () => {
      turn = new Promise((resolve) => (wake = resolve));
    };
    nextTurn();
    const endTurn = () => {
      const woken = wake;
      nextTurn();
      woken();
    };
    const claim = () => {
      claiming = true;
      // After this turn's I/O callbacks, so the lanes freed in the same turn share the claim.
      setImmediate(() => {
        retryContended(() => this.claim(Date.now(), idle, false, [first.kind]))
          .then((jobs) => {
            ready.push(...jobs);
            if (!jobs.length) dry = true;
          })
          .catch((err: unknown) => {
            failure = asError(err);
          })
          .finally(() => {
            claiming = false;
            endTurn();
          });
      });
    };
    const lane = async () => {
      for (;;) {
        let job = ready.shift();
        while (!job) {
          if (dry || failure !== undefined || stopped()) {
            // A lane that leaves may be the one the others were waiting for to reach the threshold.
            endTurn();
            return;
          }
          idle++;
          if (!claiming && idle >= threshold) claim();
          await turn;
          idle--;
          job = ready.shift();
        }
        try {
          await this.runOne(job, Date.now());
          ran++;
        } catch (err) {
          // The queue's own write failed (the database went away): the window closes once the others end.
          failure ??= asError(err);
        }
      }
    };
    await Promise.all(Array.from({ length: width }, lane));
    if (failure !== undefined) throw failure;
    return ran;
  }

  /** The worker loop of `WORKERS=inline` and `npm run worker`: polls for due work until stopped. */
  start(intervalMs = 500): () => Promise<void> {
    let stopped = false;
    let running: Promise<void> = Promise.resolve();
    const tick = async () => {
      if (stopped) return;
      try {
        await retryContended(() => this.scheduleSweeps());
        await this.drain(() => stopped);
      } catch (err) {
        // The loop goes on: the next tick tries again (a database that was briefly away, a lost race).
        this.log?.error({ err }, 'job worker tick failed');
      }
    };
    const timer = setInterval(() => {
      running = running.then(tick);
    }, intervalMs);
    timer.unref();
    return async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    };
  }
}

/** How long a finished job row stays (for operators reading the queue) before the sweep deletes it. */
const KEEP_FINISHED_MS = 7 * 24 * 3600_000;

/**
 * Deletes jobs finished (done) more than a week ago, a bounded slice per run: without it the queue's table grows
 * with every fill, run and webhook attempt ever made. Failed jobs stay for a person to read.
 */
export async function sweepFinishedJobs(db: Db, now: number): Promise<void> {
  const ids = await db('jobs')
    .where({ state: 'done' })
    .andWhere('finished_at', '<', now - KEEP_FINISHED_MS)
    .limit(5_000)
    .pluck('id');
  for (const slice of chunks(ids)) await db('jobs').whereIn('id', slice).delete();
}
