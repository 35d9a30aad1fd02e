// One attempt of one delivery: the `webhook.deliver` job (server/app/jobs.ts), enqueued with the event by the outbox
// (server/domain/webhooks/events.ts) and by a resend. The job queue is the schedule: a failed attempt throws
// RetryLater after its result is stored, and the queue runs the job again after 30 s, 2 min, 10 min, 1 h, 6 h
// (RETRY_BACKOFF_MS, registered with the kind); the sixth failed attempt stores `failed` and returns. A claim is one
// worker's (jobs.ts), so one attempt is sent by one process, and every write here is fenced by that claim.
//
// The delivery row is written once per attempt, after the send: while its job is claimed the delivery reads
// `delivering` (store.ts), so a crash mid-send leaves it pending for the next claim, never stuck in flight. That
// write and the job's end are one transaction of raw statements (writeOutcome): the claim's fenced UPDATE, which
// also marks the job done unless it is to be retried, then the delivery and webhook rows. On SQLite the outcomes
// of attempts ending together share a commit.
//
// Webhook state moved here: a delivery ending `failed` counts one more failure in a row, and the third disables
// the webhook (`auto_failures`); a delivery delivered resets the count. That is the only way a delivery disables a
// webhook (`Webhook`): every non-2xx answer, `410 Gone` included, is one failed attempt retried on the schedule
// below, so a receiver misconfigured for a while loses no delivery. A delivery coming due for a disabled
// webhook is not sent and ends `failed` without counting.
import type { Knex } from 'knex';
import type { App } from '../../infra/app.js';
import { bool, dialectOf, groupWrite, hotRow, retryContended, type Db } from '../../infra/db.js';
import { WEBHOOK_DELIVER_JOB } from './events.js';
import { JOB_COMPLETED, LeaseLost, runsConcurrently, type JobContext } from '../../infra/jobs.js';
import type { WebhookDeliveryRow, WebhookRow } from '../../infra/tables.js';
import { postSigned, type SendResult } from './send.js';
import { signatureHeaders } from './sign.js';
import { liveSecrets } from './store.js';
import { lookupsOf } from './resolver.js';
import { checkWebhookUrl, UrlRefused } from './urls.js';

/** The waits after the 1st … 5th failed attempt (docs/guides/webhooks.md). */
export const RETRY_BACKOFF_MS = [30_000, 120_000, 600_000, 3_600_000, 21_600_000] as const;
/** Deliveries in a row ending `failed` that disable a webhook. */
const FAILURES_TO_DISABLE = 3;

/**
 * Attempts one worker sends at once. An attempt mostly waits on its receiver, and attempts share nothing but
 * their webhook's row, written in fenced transactions (a failure count is an increment, never a read-then-write).
 * Sixteen, so the worker's window (jobs.ts runWindow) claims about eight jobs per claim: a claim moves each job's
 * entry in the (state, run_at) index and commits, and at eight in flight claims cost more than the attempts' own
 * outcomes (bench/webhooks.ts, with the bare client at the same width).
 */
export const DELIVERY_WIDTH = 16;
/**
 * Lanes of the window one project's attempts may hold while another project's are due (jobs.ts claimFairly): a
 * quarter, so three projects with receivers that hang until the 10-second limit still leave a quarter of the window
 * to everyone else. A project alone takes the whole window.
 */
const DELIVERY_SHARE = DELIVERY_WIDTH / 4;
runsConcurrently(WEBHOOK_DELIVER_JOB, DELIVERY_WIDTH, { share: DELIVERY_SHARE });

export interface DeliverPayload {
  deliveryId: string;
}

/** A failed attempt with retries left: the job queue runs it again after its backoff. */
class RetryLater extends Error {
  constructor(deliveryId: string, error: string | null) {
    super(`delivery ${deliveryId}: ${error ?? 'failed'}; retried`);
    this.name = 'RetryLater';
    this.stack = this.message;
  }
}

/** A delivery with what its attempt needs of its webhook and event: one read. */
interface Due {
  d: WebhookDeliveryRow;
  hook: Pick<
    WebhookRow,
    'id' | 'url' | 'enabled' | 'failure_count' | 'secret' | 'previous_secret' | 'previous_expires_at'
  >;
  payload: string | null;
}

type DueRow = WebhookDeliveryRow & Omit<Due['hook'], 'id'> & { payload: string | null };

/** One statement, on the hot path of the database layer (prepared once on SQLite): the attempt's whole input. */
const DUE_SQL =
  'SELECT d.*, w.url, w.enabled, w.failure_count, w.secret, w.previous_secret, w.previous_expires_at, e.payload ' +
  'FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id LEFT JOIN events e ON e.id = d.event_id ' +
  'WHERE d.id = ?';

async function readDue(db: Db, id: string): Promise<Due | undefined> {
  const row = await hotRow<DueRow>(db, DUE_SQL, [id]);
  if (!row) return undefined;
  const { url, enabled, failure_count, secret, previous_secret, previous_expires_at, payload, ...d } = row;
  return {
    d,
    hook: { id: d.webhook_id, url, enabled, failure_count, secret, previous_secret, previous_expires_at },
    payload,
  };
}

async function sendOnce(app: App, { d, hook, payload }: Due, now: number): Promise<SendResult> {
  if (payload == null) return { ok: false, statusCode: null, error: 'event missing' };
  let target;
  try {
    // Checked again before every attempt, and the connection goes to the address this check passed.
    target = await checkWebhookUrl(hook.url, {
      allowPrivate: app.config.webhookAllowPrivate,
      lookups: lookupsOf(app),
      projectId: d.project_id,
    });
  } catch (err) {
    if (!(err instanceof UrlRefused)) throw err;
    return { ok: false, statusCode: null, error: `refused: ${err.message}` };
  }
  // The bytes signed are the bytes sent: the event as the outbox stored it, the same on every retry.
  const body = Buffer.from(payload, 'utf8');
  const t = Math.floor(Date.now() / 1000);
  const headers = signatureHeaders(body, { eventId: d.event_id, webhookId: hook.id }, liveSecrets(hook, now), t);
  return postSigned(target, body, headers, { caFile: app.config.webhookCaFile });
}

/** One statement of an attempt's outcome (`?` placeholders, the same SQL on both dialects). */
interface Write {
  sql: string;
  params: unknown[];
  /** The job's claim statement: no row changed means the claim was lost, and nothing of the transaction stays. */
  claim?: true;
}

/**
 * An attempt's outcome in one transaction of raw statements, the job's fenced claim statement first: when that
 * changes no row (the claim was lost) nothing of the outcome is written and the attempt gets LeaseLost. On
 * SQLite, a group write (db.ts groupWrite): the outcomes of the attempts that end in the same turn of the event
 * loop (a worker sends several at once) share one commit, each in its own savepoint. On MySQL, knex.raw in a
 * transaction of its own; one lost to a concurrent transaction rolled back whole and is run again.
 */
function writeOutcome(ctx: JobContext<DeliverPayload>, writes: Write[]): Promise<void> {
  const { db, jobId } = ctx;
  if (dialectOf(db) === 'sqlite') {
    return groupWrite(db, (prepare) => {
      for (const w of writes) {
        const { changes } = prepare(w.sql).run(...w.params) as { changes: number };
        if (w.claim && changes !== 1) throw new LeaseLost(jobId);
      }
    });
  }
  return retryContended(() =>
    db.transaction(async (trx) => {
      for (const w of writes) {
        // mysql2 answers a write with [ResultSetHeader, undefined]; its affectedRows counts matched rows.
        const [res] = (await trx.raw(w.sql, w.params as Knex.RawBinding[])) as [{ affectedRows: number }, unknown];
        if (w.claim && res.affectedRows !== 1) throw new LeaseLost(jobId);
      }
    }),
  );
}

const claim = (ctx: JobContext<DeliverPayload>, end: 'done' | 'extend'): Write => ({
  ...ctx.claimStatement(end),
  claim: true,
});

export async function deliverAttempt(app: App, ctx: JobContext<DeliverPayload>): Promise<void | typeof JOB_COMPLETED> {
  const { db, now } = ctx;
  const id = ctx.payload.deliveryId;
  // Deleting a webhook drops its deliveries; a job still queued for one has nothing left to do.
  const due = await readDue(db, id);
  if (!due) return;
  const { hook } = due;
  if (!bool(hook.enabled)) {
    await writeOutcome(ctx, [
      claim(ctx, 'done'),
      {
        sql:
          "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = ?, updated_at = ? " +
          'WHERE id = ?',
        params: ['webhook disabled: not sent', now, id],
      },
    ]);
    return JOB_COMPLETED;
  }
  // No write before the send: while this job is claimed the delivery reads `delivering` (store.ts inFlight).
  const r = await sendOnce(app, due, now);
  const retry = !r.ok && !ctx.lastAttempt;
  // The delivery's result, and the job's end in the same transaction (a retry is requeued by the queue, after it).
  const result = (status: 'delivered' | 'pending' | 'failed', nextAttemptAt: number | null): Write => ({
    sql:
      'UPDATE webhook_deliveries SET attempts = attempts + 1, last_status_code = ?, last_error = ?, updated_at = ?, ' +
      'status = ?, next_attempt_at = ? WHERE id = ?',
    params: [r.statusCode, r.error?.slice(0, 500) ?? null, now, status, nextAttemptAt, id],
  });
  const hookWrite = (set: string, params: unknown[], where = ''): Write => ({
    sql: `UPDATE webhooks SET ${set} WHERE id = ?${where}`,
    params: [...params, hook.id],
  });
  if (r.ok) {
    await writeOutcome(ctx, [
      claim(ctx, 'done'),
      result('delivered', null),
      ...(hook.failure_count ? [hookWrite('failure_count = 0', [])] : []),
    ]);
    return JOB_COMPLETED;
  }
  if (retry) {
    const wait = RETRY_BACKOFF_MS[Math.min(ctx.attempt - 1, RETRY_BACKOFF_MS.length - 1)];
    await writeOutcome(ctx, [claim(ctx, 'extend'), result('pending', now + wait)]);
    throw new RetryLater(id, r.error);
  }
  await writeOutcome(ctx, [
    claim(ctx, 'done'),
    result('failed', null),
    hookWrite('failure_count = failure_count + 1', []),
    {
      sql:
        "UPDATE webhooks SET enabled = 0, disabled_reason = 'auto_failures', updated_at = ? " +
        'WHERE id = ? AND enabled = 1 AND failure_count >= ?',
      params: [now, hook.id, FAILURES_TO_DISABLE],
    },
  ]);
  return JOB_COMPLETED;
}
