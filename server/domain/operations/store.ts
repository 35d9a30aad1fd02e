// Operations as stored (migration 010) and as shown (spec: `Operation`). The stored state
// moves only by a decision, a use, or the sweep (sweep.ts); reads compute the effective state for display
// (a pending operation past `expires_at` reads `expired` before the sweep stores it) and never write.
import type { components } from '../../../generated/openapi.js';
import type { Config } from '../../infra/config.js';
import type { Db } from '../../infra/db.js';
import { parseJson } from '../../infra/db.js';
import { replayOver } from '../../infra/requests.js';
import type { OperationRow } from '../../infra/tables.js';

export type OperationView = components['schemas']['Operation'];
type OperationState = OperationView['state'];

/** Pending: 30 minutes after creation; approved publish or rollback: after approval; approved translate: after its last use. */
export const EXPIRY_MS = 30 * 60_000;
/** Attempts (`attemptId`) an operation runs at most. */
export const MAX_ATTEMPTS = 3;

export type { OperationRow };

export interface Scope {
  project_id: string;
  approved_only?: boolean;
  require_complete?: boolean;
  incomplete_mode?: 'source' | 'skip' | 'hold';
  expected_pending?: number;
  from_version?: string;
  to_version?: string;
  langs?: string[];
  unit_count?: number;
  batches?: Array<{ index: number; sha256: string; unit_count: number }>;
  payload_sha256?: string;
}

export const scopeOf = (row: OperationRow) => parseJson<Scope>(row.scope, { project_id: row.project_id });

/** The money columns as numbers (MySQL hands BIGINT back as strings). */
export function money(row: OperationRow) {
  return {
    requested: Number(row.requested_mc),
    authorized: Number(row.authorized_mc),
    reserved: Number(row.reserved_mc),
    charged: Number(row.charged_mc),
    absorbed: Number(row.absorbed_mc),
  };
}

export const readOperation = (db: Db, id: string): Promise<OperationRow | undefined> =>
  db('operations').where({ id }).first();

/** Whether a fill job of the operation is still queued or running (an approved translate does not expire then). */
async function hasLiveJob(db: Db, operationId: string): Promise<boolean> {
  const row = await db('fill_jobs')
    .where({ operation_id: operationId })
    .whereIn('status', ['queued', 'running'])
    .first('id');
  return row !== undefined;
}

/** The state time has moved the operation to, whether or not the sweep stored it yet. */
export async function effectiveState(db: Db, row: OperationRow, now: number): Promise<OperationState> {
  const due = Number(row.expires_at) <= now;
  if (row.state === 'pending_approval') return due ? 'expired' : row.state;
  if (row.state !== 'approved' || !due) return row.state;
  if (row.action === 'translate' && (await hasLiveJob(db, row.id))) return row.state;
  return 'expired';
}

interface SeatRow {
  attempt_id: string;
  batch_index: number | null;
  request_id: string | null;
  outcome: string | null;
  rec_state: string | null;
  rec_closed_at: number | string | null;
  rec_expired_at: number | string | null;
}

type AttemptState = OperationView['attempts'][number]['state'];

/** Every request seated on the operation's batches (or uses), oldest first, with its request record's state. */
async function attemptsOf(db: Db, row: OperationRow, now: number): Promise<OperationView['attempts']> {
  const seats: SeatRow[] = await db('operation_seats as s')
    .leftJoin('request_records as r', (j) => {
      j.on('r.api_key_id', '=', 's.api_key_id').andOn('r.request_id', '=', 's.request_id');
    })
    .where('s.operation_id', row.id)
    .orderBy('s.id')
    .select(
      's.attempt_id',
      's.batch_index',
      's.request_id',
      's.outcome',
      'r.state as rec_state',
      'r.closed_at as rec_closed_at',
      'r.expired_at as rec_expired_at',
    );
  return seats.map((s) => {
    let state: AttemptState;
    if (s.request_id == null) state = (s.outcome ?? 'processing') as AttemptState;
    else if (s.rec_state == null) state = 'unknown';
    else if (replayOver({ closed_at: s.rec_closed_at, expired_at: s.rec_expired_at }, now)) state = 'expired';
    else state = s.rec_state as AttemptState;
    return {
      attempt_id: s.attempt_id,
      batch_index: s.batch_index == null ? null : Number(s.batch_index),
      request_id: s.request_id,
      state,
    };
  });
}

/** The operation as the public API shows it (`Operation`). */
export async function operationView(db: Db, config: Config, row: OperationRow, now: number): Promise<OperationView> {
  const m = money(row);
  return {
    operation_id: row.id,
    action: row.action,
    state: await effectiveState(db, row, now),
    scope: scopeOf(row),
    requested_mc: m.requested,
    authorized_mc: m.authorized,
    reserved_mc: m.reserved,
    charged_mc: m.charged,
    absorbed_mc: m.absorbed,
    approval_url: `${config.publicAppUrl}/approve/${encodeURIComponent(row.id)}`,
    expires_at: new Date(Number(row.expires_at)).toISOString(),
    attempts: await attemptsOf(db, row, now),
  };
}

/** The public view plus who decided and when (internal API: `InternalOperation`, without the plan). */
export async function internalView(db: Db, config: Config, row: OperationRow, now: number) {
  return {
    ...(await operationView(db, config, row, now)),
    project_id: row.project_id,
    created_at: new Date(Number(row.created_at)).toISOString(),
    decided_by: row.decided_by,
    decided_at: row.decided_at == null ? null : new Date(Number(row.decided_at)).toISOString(),
  };
}
