// Idempotent requests (`requestId`; spec: `RequestId`, `RequestRecord`, `getRequestRecord`), shared by translate and sync. The record is written
// before anything else; the same id and body within 24 hours replays the first answer byte for byte; another
// body is 409 request_mismatch; a running one is 409 request_in_progress; after 24 hours 409 request_expired.
// A request that dies mid-way leaves a processing record whose lease expires; GET or the sweep then recovers
// it: if it had enqueued work its captured answer becomes the result, otherwise it becomes failed/orphaned.
import { createHash } from 'node:crypto';
import type { Approval } from './approval.js';
import type { Db } from './db.js';
import { bool, isContention, isUniqueViolation } from './db.js';
import { ApiError, isRefusal, type Refusal } from './errors.js';
import { errorStatuses } from '../../generated/errors.js';
import type { components } from '../../generated/openapi.js';
import type { RequestRecordRow } from './tables.js';

type RequestRecordView = components['schemas']['RequestRecord'];

/** How long a claim (a request record here, an Idempotency-Key in idempotency.ts) holds for its request. */
export const LEASE_MS = 60_000;

/**
 * Claims a request's row by inserting it, before any work: true when this insert made it, false when the row was
 * there already (an earlier or concurrent request under the same id), which the caller reads and judges.
 */
export async function claimRow(db: Db, table: 'request_records' | 'idempotency_keys', row: object): Promise<boolean> {
  try {
    await db(table).insert(row);
    return true;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return false;
  }
}
/**
 * A recorded answer of an idempotent request (requestId), answered byte for byte with the status it had: the
 * first answer, or its replay. Only this module makes one; server/http/contract.ts lets a handler return it.
 */
export type Recorded = string & { readonly __recorded: true };
export interface RecordedAnswer {
  status: number;
  body: Recorded;
  type: string;
  /** `Glossa-Replayed: true` on a replay (spec: `RequestId`): the body is the first answer's, nothing new was done. */
  headers?: Record<string, string>;
}

const REPLAY_MS = 24 * 3600_000;
const KEEP_MS = 90 * 24 * 3600_000;
const RECOVERY_VERSION = 1;

/** A canonical hash of the action and body: key order does not matter, every value does. */
function bodyHash(action: string, body: unknown): string {
  const canon = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canon)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canon((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash('sha256')
    .update(JSON.stringify([action, canon(body)]))
    .digest('hex');
}

/** What the handler hands back so the record can keep it: the reply and the job's tracking token, if any. */
interface RecordedReply<R> {
  reply: R;
  trackingToken?: string | null;
}

export interface RequestScope {
  /** Call inside the transaction that enqueues work, so a crash after it still yields this answer. */
  capture(trx: Db, reply: { status?: number; body?: unknown; trackingToken?: string | null }): Promise<void>;
}

/**
 * The request a record is kept for: the calling key, its project, the body (its requestId, if any), and its
 * approval, whose checks run inside the record so a refusal is recorded like any other.
 */
interface RecordedRequest {
  keyId: string;
  projectId: string;
  body: { requestId?: string };
  approval: Approval;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const answer = (status: number, text: string): RecordedAnswer => ({ status, body: text as Recorded, type: JSON_TYPE });

const keyOf = (r: { api_key_id: string; request_id: string }) => ({
  api_key_id: r.api_key_id,
  request_id: r.request_id,
});

/**
 * A request that stopped before it finished answers as the datastore refusal it was (the spec's 503 `unavailable`: re-run
 * the call, never replay it). Records orphaned before this was decided hold a 500 with an undocumented code.
 */
const ORPHANED = {
  status: 503,
  body: {
    error: 'unavailable',
    message: 'The request stopped before it finished; nothing it started remains. Resend under a new requestId.',
  },
};

function replay(row: RequestRecordRow): RecordedAnswer {
  if (bool(row.orphaned)) return answer(ORPHANED.status, JSON.stringify(ORPHANED.body));
  return answer(row.status ?? 200, row.response ?? '');
}

/** Lost a race and rolled back (503 contended): the record goes, so the same requestId may simply be sent again. */
const lostRace = (err: unknown) => isContention(err) || (isRefusal(err) && err.code === 'contended');

/** The status a refusal is answered with: its own, or its code's as server/http/refusals.ts answers a Refusal. */
const statusOf = (err: Refusal | ApiError) => (err instanceof ApiError ? err.status : errorStatuses[err.code]);

/**
 * Runs `run` under the request record of `req.body.requestId` (or plainly without one). With a record, the
 * answer is the recorded text, so the first answer and every replay are the same bytes.
 */
export async function withRequestRecord<R extends { status?: number; body?: unknown }>(
  db: Db,
  req: RecordedRequest,
  action: string,
  run: (scope: RequestScope) => Promise<RecordedReply<R>>,
): Promise<R | RecordedAnswer> {
  const requestId = req.body.requestId;
  const noop: RequestScope = { async capture() {} };
  if (!requestId) {
    await req.approval.begin();
    return (await run(noop)).reply;
  }
  const now = Date.now();
  const id = { api_key_id: req.keyId, request_id: requestId };
  const hash = bodyHash(action, req.body);
  const claimed = await claimRow(db, 'request_records', {
    ...id,
    project_id: req.projectId,
    action,
    body_hash: hash,
    state: 'processing',
    lease_until: now + LEASE_MS,
    recovery_version: RECOVERY_VERSION,
    created_at: now,
  });
  if (!claimed) return answerExisting(db, await recover(db, id, now), hash, now);
  const scope: RequestScope = {
    async capture(trx, reply) {
      await trx('request_records')
        .where(id)
        .update({
          captured_response: JSON.stringify(reply.body),
          status: reply.status ?? 200,
          tracking_token: reply.trackingToken ?? null,
        });
    },
  };
  try {
    await req.approval.begin();
    const { reply, trackingToken } = await run(scope);
    const text = JSON.stringify(reply.body);
    await db('request_records')
      .where(id)
      .update({
        state: 'done',
        status: reply.status ?? 200,
        response: text,
        tracking_token: trackingToken ?? null,
        lease_until: null,
        closed_at: Date.now(),
      });
    return answer(reply.status ?? 200, text);
  } catch (err) {
    if (isRefusal(err) && statusOf(err) < 500) {
      await db('request_records')
        .where(id)
        .update({
          state: 'failed',
          status: statusOf(err),
          response: JSON.stringify(err.body()),
          lease_until: null,
          closed_at: Date.now(),
        });
    }
    if (lostRace(err)) await db('request_records').where(id).andWhere({ state: 'processing' }).delete();
    // Anything else leaves the record processing: its lease expires and recovery decides.
    throw err;
  }
}

function answerExisting(_db: Db, row: RequestRecordRow | undefined, hash: string, now: number): RecordedAnswer {
  if (!row) throw new ApiError(503, 'contended', 'The request record changed under this request; retry it.');
  if (replayOver(row, now)) {
    throw new ApiError(
      409,
      'request_expired',
      'This requestId resolved more than 24 hours ago; its answer is no longer kept. Do not resend it.',
    );
  }
  if (row.body_hash !== hash)
    throw new ApiError(409, 'request_mismatch', 'This requestId was used with another action or body.');
  if (row.state === 'processing') {
    throw new ApiError(409, 'request_in_progress', 'A request with this requestId is still running.', {
      leaseUntil: new Date(Number(row.lease_until)).toISOString(),
    });
  }
  return { ...replay(row), headers: { 'Glossa-Replayed': 'true' } };
}

/**
 * Takes over an expired lease (recoverable records only): a captured answer (work was enqueued) becomes the
 * result; otherwise the record fails as orphaned. Holds are taken in the same transaction as the job and
 * the captured answer, so an orphan holds no credits; its pending markers stay for the next push, as after
 * a 402. Returns the current row.
 */
async function recover(
  db: Db,
  id: { api_key_id: string; request_id: string },
  now: number,
): Promise<RequestRecordRow | undefined> {
  const row = await db('request_records').where(id).first();
  if (
    !row ||
    row.state !== 'processing' ||
    row.lease_until == null ||
    Number(row.lease_until) > now ||
    row.recovery_version == null
  )
    return row;
  const update =
    row.captured_response != null
      ? { state: 'done', response: row.captured_response, lease_until: null, closed_at: now }
      : {
          state: 'failed',
          status: ORPHANED.status,
          orphaned: true,
          response: JSON.stringify(ORPHANED.body),
          lease_until: null,
          closed_at: now,
        };
  await db('request_records').where(id).andWhere({ state: 'processing', lease_until: row.lease_until }).update(update);
  return db('request_records').where(id).first();
}

/** GET /requests/{requestId}: the record by state, scoped to the calling key. */
export async function readRecord(
  db: Db,
  apiKeyId: string,
  projectId: string,
  requestId: string,
  now = Date.now(),
): Promise<RequestRecordView> {
  const row = await recover(db, { api_key_id: apiKeyId, request_id: requestId }, now);
  if (!row || row.project_id !== projectId) return { state: 'unknown' };
  const closedAt = row.closed_at == null ? undefined : new Date(Number(row.closed_at)).toISOString();
  if (row.closed_at != null && now - Number(row.closed_at) >= KEEP_MS) return { state: 'unknown' };
  const tracking = row.tracking_token ? { trackingToken: row.tracking_token } : {};
  if (row.state === 'processing')
    return { state: 'processing', leaseUntil: new Date(Number(row.lease_until)).toISOString() };
  if (replayOver(row, now))
    return { state: 'expired', stateWas: row.state as 'done' | 'failed', ...tracking, closedAt };
  if (row.state === 'done')
    return {
      state: 'done',
      status: row.status ?? 200,
      response: JSON.parse(row.response ?? 'null') as RequestRecordView['response'],
      ...tracking,
      closedAt,
    };
  if (bool(row.orphaned)) return { state: 'failed', ...ORPHANED, orphaned: true, closedAt };
  return {
    state: 'failed',
    status: row.status ?? undefined,
    body: JSON.parse(row.response ?? 'null') as RequestRecordView['body'],
    closedAt,
  };
}

/**
 * Resolved 24 hours ago or more: by the clock, or as the sweep stored it (the sweep judges by the `now` it is
 * given, which run-due may simulate).
 */
export const replayOver = (row: Pick<RequestRecordRow, 'closed_at' | 'expired_at'>, now: number) =>
  row.expired_at != null || (row.closed_at != null && now - Number(row.closed_at) >= REPLAY_MS);

/**
 * Sweep: recover expired leases, store the end of the replay window of records resolved 24 hours before `now`,
 * and forget records 90 days after they closed.
 */
export async function sweepRequestRecords(db: Db, now: number): Promise<void> {
  const stale = await db('request_records')
    .where('state', 'processing')
    .andWhere('lease_until', '<', now)
    .whereNotNull('recovery_version')
    .limit(500)
    .select('api_key_id', 'request_id');
  for (const r of stale) await recover(db, keyOf(r), now);
  await db('request_records')
    .whereNull('expired_at')
    .andWhere('closed_at', '<=', now - REPLAY_MS)
    .update({ expired_at: now });
  await db('request_records')
    .where('closed_at', '<', now - KEEP_MS)
    .delete();
}
