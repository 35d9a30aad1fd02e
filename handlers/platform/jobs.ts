// The background job queue lives in the database: any process may enqueue, any worker may claim.
// MySQL claims with SELECT ... FOR UPDATE SKIP LOCKED; SQLite claims with one UPDATE ... RETURNING.
// Sweeps are jobs too (unique_key `sweep:<kind>`), re-enqueued after each run, so a fleet runs each once.
import os from 'node:os';
import type { Db } from './db.js';
import { dialectOf, parseJson } from './db.js';

export interface JobContext<P = any> {
  db: Db;
  payload: P;
  now: number;
  jobId: number;
  attempt: number;
  /** True on the last attempt the queue will make: a handler finalizes its own state then. */
  lastAttempt: boolean;
}

type JobHandler = (ctx: JobContext) => Promise<void>;

interface Registered { handler: JobHandler; sweepEveryMs?: number }

const LEASE_MS = 5 * 60_000;
const BACKOFF_MS = [5_000, 30_000, 120_000, 600_000];

export class JobQueue {
  private readonly kinds = new Map<string, Registered>();
  readonly workerId = `${os.hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;

  constructor(private readonly db: Db) {}

  register(kind: string, handler: JobHandler): void {
    this.kinds.set(kind, { handler });
  }

  /** A sweep runs at most every `everyMs` on the worker timer, and on every run-due. */
  registerSweep(kind: string, everyMs: number, handler: JobHandler): void {
    this.kinds.set(kind, { handler, sweepEveryMs: everyMs });
  }

  async enqueue(
    db: Db,
    kind: string,
    payload: unknown,
    opts: { runAt?: number; uniqueKey?: string; maxAttempts?: number; now?: number } = {},
  ): Promise<number | null> {
    const now = opts.now ?? Date.now();
    const row = {
      kind,
      payload: JSON.stringify(payload ?? {}),
      state: 'queued',
      run_at: opts.runAt ?? now,
      attempts: 0,
      max_attempts: opts.maxAttempts ?? 5,
      unique_key: opts.uniqueKey ?? null,
      created_at: now,
      updated_at: now,
    };
    if (opts.uniqueKey) {
      // At most one unfinished job per unique key: a duplicate insert is a no-op (INSERT IGNORE / ON CONFLICT DO NOTHING).
      await db('jobs').insert(row).onConflict('unique_key').ignore();
      return null;
    }
    const [id] = await db('jobs').insert(row);
    return Number(id);
  }

  /** Make sure every sweep has its pending job. */
  async scheduleSweeps(now = Date.now()): Promise<void> {
    for (const [kind, r] of this.kinds) {
      if (r.sweepEveryMs) await this.enqueue(this.db, kind, {}, { uniqueKey: `sweep:${kind}`, runAt: now + r.sweepEveryMs, now, maxAttempts: 1 });
    }
  }

  private sweepKinds(): string[] {
    return [...this.kinds].filter(([, r]) => r.sweepEveryMs).map(([k]) => k);
  }

  /** Claims up to `limit` due jobs (expired leases count as due). `allSweeps` also claims sweeps not yet due. */
  async claim(now: number, limit: number, allSweeps = false): Promise<Array<{ id: number; kind: string; payload: string; attempts: number; max_attempts: number }>> {
    const known = [...this.kinds.keys()];
    if (!known.length) return [];
    const sweeps = allSweeps ? this.sweepKinds() : [];
    const due = (q: any) =>
      q.whereIn('kind', known).andWhere((w: any) => {
        w.where((a: any) => a.where('state', 'queued').andWhere((b: any) => {
          b.where('run_at', '<=', now);
          if (sweeps.length) b.orWhereIn('kind', sweeps);
        }));
        w.orWhere((a: any) => a.where('state', 'running').andWhere('locked_until', '<', now));
      });
    const claimed = { state: 'running', locked_by: this.workerId, locked_until: now + LEASE_MS, attempts: this.db.raw('attempts + 1'), updated_at: now };
    const cols = ['id', 'kind', 'payload', 'attempts', 'max_attempts'];
    if (dialectOf(this.db) === 'sqlite') {
      // One UPDATE ... RETURNING: the write lock is taken up front, so a second process waits (busy_timeout)
      // instead of failing on a stale read snapshot.
      const sub = due(this.db('jobs').select('id')).orderBy('run_at').orderBy('id').limit(limit);
      const rows = await this.db('jobs').whereIn('id', sub).update(claimed).returning(cols);
      return (rows as any[]).map((r) => ({ ...r, id: Number(r.id) }));
    }
    return this.db.transaction(async (trx) => {
      const rows = await due(trx('jobs').select(cols)).orderBy('run_at').orderBy('id').limit(limit).forUpdate().skipLocked();
      if (!rows.length) return [];
      await trx('jobs').whereIn('id', rows.map((r: any) => r.id)).update(claimed);
      return rows.map((r: any) => ({ ...r, id: Number(r.id), attempts: r.attempts + 1 }));
    });
  }

  private async finish(job: { id: number; kind: string; attempts: number; max_attempts: number }, now: number, error?: unknown): Promise<boolean> {
    const reg = this.kinds.get(job.kind);
    if (!error) {
      await this.db('jobs').where('id', job.id).update({ state: 'done', unique_key: null, locked_until: null, finished_at: now, updated_at: now });
    } else if (job.attempts < job.max_attempts) {
      const delay = BACKOFF_MS[Math.min(job.attempts - 1, BACKOFF_MS.length - 1)];
      await this.db('jobs').where('id', job.id).update({ state: 'queued', run_at: now + delay, locked_until: null, last_error: String((error as Error)?.stack ?? error).slice(0, 4000), updated_at: now });
    } else {
      await this.db('jobs').where('id', job.id).update({ state: 'failed', unique_key: null, locked_until: null, finished_at: now, last_error: String((error as Error)?.stack ?? error).slice(0, 4000), updated_at: now });
    }
    if (reg?.sweepEveryMs && (!error || job.attempts >= job.max_attempts)) {
      await this.enqueue(this.db, job.kind, {}, { uniqueKey: `sweep:${job.kind}`, runAt: now + reg.sweepEveryMs, now, maxAttempts: 1 });
    }
    return !error;
  }

  async runOne(job: { id: number; kind: string; payload: string; attempts: number; max_attempts: number }, now: number): Promise<boolean> {
    const reg = this.kinds.get(job.kind)!;
    try {
      await reg.handler({ db: this.db, payload: parseJson(job.payload, {}), now, jobId: job.id, attempt: job.attempts, lastAttempt: job.attempts >= job.max_attempts });
    } catch (err) {
      return this.finish(job, now, err);
    }
    return this.finish(job, now);
  }

  /**
   * Runs every job due at `now`, and every sweep, until nothing is due. `now` may be simulated (tests):
   * jobs and sweeps then judge time by it, exactly as they would when that instant came.
   */
  async runDue(now = Date.now()): Promise<{ ran: number; failed: number }> {
    await this.scheduleSweeps(now);
    let ran = 0;
    let failed = 0;
    let allSweeps = true;
    for (;;) {
      const batch = await this.claim(now, 50, allSweeps);
      allSweeps = false;
      if (!batch.length) return { ran, failed };
      for (const job of batch) {
        ran++;
        if (!(await this.runOne(job, now))) failed++;
      }
    }
  }

  /** The worker loop of `WORKERS=inline` and `npm run worker`: polls for due work until stopped. */
  start(intervalMs = 500): () => Promise<void> {
    let stopped = false;
    let running: Promise<void> = Promise.resolve();
    const tick = async () => {
      if (stopped) return;
      try {
        await this.scheduleSweeps();
        for (;;) {
          const batch = await this.claim(Date.now(), 20);
          if (!batch.length || stopped) break;
          for (const job of batch) await this.runOne(job, Date.now());
        }
      } catch (err) {
        console.error('job worker:', err);
      }
    };
    const timer = setInterval(() => { running = running.then(tick); }, intervalMs);
    timer.unref();
    return async () => { stopped = true; clearInterval(timer); await running; };
  }
}
