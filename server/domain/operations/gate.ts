// The checks of a request that names an operation (spec/README.md, "Operations"), behind the platform's
// OperationGate (server/infra/approval.ts). Translate, sync and a re-translation of chosen cells (one batch of
// key and language pairs, hashed like the others): the batch must be the manifest's, seated at
// most once per (attemptId, batchIndex) unless its request failed, within three attempts and the budget; the
// batch then reserves its estimate through `budget`. Publish and restore: the scope must equal the request, and
// the single use is taken before the write and given back on a refusal that minted nothing.
import { conflict, operationNotFound } from '../../infra/errors.js';
import type { BoundOperation, OperationBudget, OperationCall, OperationGate } from '../../infra/approval.js';
import type { Db } from '../../infra/db.js';
import { dialectOf } from '../../infra/db.js';
import { getProject } from '../project/projects.js';
import { currentVersion, resolveVersion } from '../publish/versions.js';
import { resolveTargets } from '../catalog/targets.js';
import { batchSha256, batchUnitCount } from './canonical.js';
import {
  EXPIRY_MS,
  MAX_ATTEMPTS,
  effectiveState,
  money,
  readOperation,
  scopeOf,
  type OperationRow,
  type Scope,
} from './store.js';

const scopeChanged = (message: string) => conflict('scope_changed', message);

async function approvedRow(db: Db, call: OperationCall, now: number): Promise<OperationRow> {
  const row = await readOperation(db, call.operationId);
  // Another key's operation, or one of another project, is no operation of this key.
  if (!row || row.api_key_id !== call.keyId || row.project_id !== call.projectId) throw operationNotFound();
  const state = await effectiveState(db, row, now);
  if (state !== 'approved')
    throw conflict(
      'operation_not_approved',
      state === 'pending_approval' ? 'The operation is pending approval.' : `The operation is ${state}.`,
    );
  return row;
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

/**
 * The languages a batch fills: a re-translation's cells name theirs, a translate its `langs` (default every AI
 * target), a sync every AI target.
 */
function batchLangs(body: Record<string, unknown>): string[] | undefined {
  if (Array.isArray(body.cells)) return [...new Set((body.cells as Array<{ lang: string }>).map((c) => c.lang))];
  return body.units ? (body.langs as string[] | undefined) : undefined;
}

async function bindBatch(db: Db, call: OperationCall, now: number): Promise<BoundOperation> {
  const row = await approvedRow(db, call, now);
  if (row.action !== 'translate')
    throw scopeChanged(`The operation was approved for a ${row.action}, not a translation.`);
  const scope = scopeOf(row);
  const batches = scope.batches ?? [];
  if (!batches.length) throw scopeChanged('The operation carries no batch manifest.');
  const project = await getProject(db, call.projectId);
  const langs = await resolveTargets(db, project, batchLangs(call.body));
  if (!sameSet(langs, scope.langs ?? [])) throw scopeChanged('The operation was approved for other languages.');
  const index = call.body.batchIndex as number;
  if (index >= batches.length)
    throw conflict('batch_out_of_range', `batchIndex ${index} is outside the manifest (${batches.length} batches).`);
  const sha = batchSha256(call.body);
  if (call.body.batchSha256 !== sha) throw conflict('batch_mismatch', 'batchSha256 is not the hash of this body.');
  if (batches[index].sha256 !== sha)
    throw conflict('batch_mismatch', `The body does not hash to batches[${index}].sha256.`);
  // The manifest's count is what the approval page shows a person: held to the batch like its hash.
  const units = batchUnitCount(call.body, project.base_lang);
  if (units !== batches[index].unit_count)
    throw conflict(
      'batch_mismatch',
      `The body holds ${units} units; batches[${index}].unit_count is ${batches[index].unit_count}.`,
    );
  const m = money(row);
  if (m.charged + m.reserved >= m.authorized) throw budgetExhausted();
  await seat(db, row, call, now);
  return { id: row.id, budget: budgetOf(row.id) };
}

const budgetExhausted = () =>
  conflict('budget_exhausted', "The operation's budget is spent or reserved; request a new operation.");

/**
 * Seats the request on (attemptId, batchIndex). The operation's row is written first, which serializes the
 * seating of one operation (MySQL: the row lock; SQLite: the write lock), so the attempt count and the live seat
 * are read and written by one request at a time; the unique index stands behind it.
 */
async function seat(db: Db, row: OperationRow, call: OperationCall, now: number): Promise<void> {
  const attemptId = call.body.attemptId as string;
  const batchIndex = call.body.batchIndex as number;
  const requestId = call.body.requestId as string;
  await db.transaction(async (trx) => {
    const n = await trx('operations')
      .where({ id: row.id, state: 'approved' })
      .update({ last_used_at: now, expires_at: now + EXPIRY_MS });
    if (n !== 1) throw conflict('operation_not_approved', 'The operation is no longer approved.');
    const attempts: Array<{ attempt_id: string }> = await trx('operation_seats')
      .where({ operation_id: row.id })
      .distinct('attempt_id');
    if (!attempts.some((a) => a.attempt_id === attemptId) && attempts.length >= MAX_ATTEMPTS)
      throw conflict('attempts_exhausted', `The operation has run its ${MAX_ATTEMPTS} attempts.`);
    const live = await trx('operation_seats')
      .where({ operation_id: row.id, attempt_id: attemptId, batch_index: batchIndex, live: 1 })
      .first('id', 'api_key_id', 'request_id');
    if (live) {
      const record = await trx('request_records')
        .where({ api_key_id: live.api_key_id, request_id: live.request_id as string })
        .first('state');
      if (record && record.state !== 'failed')
        throw conflict(
          'batch_replayed',
          `Attempt ${attemptId} already has a non-failed request for batch ${batchIndex}; after a failed one, resend under a new requestId.`,
        );
      await trx('operation_seats').where({ id: live.id }).update({ live: null });
    }
    await trx('operation_seats').insert({
      operation_id: row.id,
      attempt_id: attemptId,
      batch_index: batchIndex,
      api_key_id: call.keyId,
      request_id: requestId,
      live: 1,
      created_at: now,
    });
  });
}

function budgetOf(operationId: string): OperationBudget {
  return {
    operationId,
    async remaining(trx) {
      const q = trx('operations').where({ id: operationId }).first();
      if (dialectOf(trx) === 'mysql') q.forUpdate();
      const row = (await q) as OperationRow;
      if (row.state !== 'approved') throw conflict('operation_not_approved', `The operation is ${row.state}.`);
      const m = money(row);
      const left = m.authorized - m.charged - m.reserved;
      if (left <= 0) throw budgetExhausted();
      return left;
    },
    async reserve(trx, mc) {
      const now = Date.now();
      const n = await trx('operations')
        .where({ id: operationId, state: 'approved' })
        .andWhereRaw('charged_mc + reserved_mc + ? <= authorized_mc', [mc])
        .update({ reserved_mc: trx.raw('reserved_mc + ?', [mc]), last_used_at: now, expires_at: now + EXPIRY_MS });
      if (n !== 1) throw budgetExhausted();
    },
  };
}

/** Publish and restore: the scope must be what the request does. */
async function checkUse(db: Db, call: OperationCall, row: OperationRow, scope: Scope): Promise<void> {
  if (call.action === 'publish') {
    if (row.action !== 'publish') throw scopeChanged(`The operation was approved for a ${row.action}, not a publish.`);
    const b = call.body;
    if (
      (b.approvedOnly ?? false) !== scope.approved_only ||
      (b.require_complete ?? false) !== scope.require_complete ||
      (b.incompleteMode ?? null) !== (scope.incomplete_mode ?? null)
    )
      throw scopeChanged('The operation was approved for other publish flags.');
    return;
  }
  if (row.action !== 'rollback') throw scopeChanged(`The operation was approved for a ${row.action}, not a rollback.`);
  const project = await getProject(db, call.projectId);
  const current = await currentVersion(db, project);
  if (current?.id !== scope.from_version) throw scopeChanged('from_version is no longer current.');
  const to = await resolveVersion(db, project, String(call.params.versionId));
  if (to.id !== scope.to_version)
    throw scopeChanged(`The operation was approved to restore ${scope.to_version}, not ${to.id}.`);
}

async function bindUse(db: Db, call: OperationCall, now: number): Promise<BoundOperation> {
  const row = await approvedRow(db, call, now);
  await checkUse(db, call, row, scopeOf(row));
  // Single use, taken before the write.
  const n = await db('operations')
    .where({ id: row.id, state: 'approved' })
    .andWhere('expires_at', '>', now)
    .update({ state: 'exhausted', last_used_at: now });
  if (n !== 1) throw conflict('operation_not_approved', 'The operation is no longer approved.');
  const [seatId] = await db('operation_seats').insert({
    operation_id: row.id,
    attempt_id: call.action,
    batch_index: null,
    api_key_id: call.keyId,
    request_id: null,
    live: null,
    outcome: 'processing',
    created_at: now,
  });
  const outcome = (value: string) =>
    db('operation_seats')
      .where({ id: Number(seatId) })
      .update({ outcome: value });
  return {
    id: row.id,
    async succeeded() {
      await outcome('done');
    },
    async refused() {
      // Refused without minting (fill_incomplete, export_collision, output-format conflicts, a cap, ...): given back.
      await db('operations').where({ id: row.id, state: 'exhausted' }).update({ state: 'approved' });
      await outcome('failed');
    },
  };
}

export const operationGate: OperationGate = {
  bind(db, call) {
    const now = Date.now();
    return call.action === 'translate' ? bindBatch(db, call, now) : bindUse(db, call, now);
  },
};
