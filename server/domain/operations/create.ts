// POST /operations (spec: `createOperation`): validate and resolve the scope, then create or reuse.
// Reuse is decided by the database, not by memory: an operation that an equivalent create may still reuse holds
// `reuse_key` (unique). A create reads the holder; if it is reusable it is the answer, if not its key is cleared
// (conditionally) and a new row inserted; a lost insert race reads the winner again. So any number of
// concurrent equivalent creates, in any number of processes, end on one operation.
import type { components } from '../../../generated/openapi.js';
import { getProject } from '../project/projects.js';
import type { Config } from '../../infra/config.js';
import type { Db } from '../../infra/db.js';
import { contended, isUniqueViolation, newId } from '../../infra/db.js';
import { invalidArgument, notFound } from '../../infra/errors.js';
import { currentVersion, resolveVersion } from '../publish/versions.js';
import { resolveTargets } from '../catalog/targets.js';
import { canonicalJson, payloadSha256, sha256Hex } from './canonical.js';
import {
  EXPIRY_MS,
  MAX_ATTEMPTS,
  effectiveState,
  money,
  operationView,
  type OperationRow,
  type OperationView,
  type Scope,
} from './store.js';

type CreateBody = components['schemas']['OperationCreateRequest'];

/**
 * A batch a dry run previewed has a known unit count (previews.ts stores it under the batch's hash): a manifest that
 * names another is refused before a person is asked to approve it. A batch nobody previewed is held to its count
 * when it is sent (gate.ts).
 */
async function checkPreviewedCounts(
  db: Db,
  projectId: string,
  batches: Array<{ index: number; sha256: string; unit_count: number }>,
): Promise<void> {
  const counts = new Map<string, number>();
  const shas = [...new Set(batches.map((b) => b.sha256))];
  for (let i = 0; i < shas.length; i += 500) {
    const rows: Array<{ batch_sha256: string; unit_count: number }> = await db('batch_previews')
      .where('project_id', projectId)
      .whereIn('batch_sha256', shas.slice(i, i + 500))
      .select('batch_sha256', 'unit_count');
    for (const r of rows) counts.set(r.batch_sha256, Number(r.unit_count));
  }
  for (const b of batches) {
    const known = counts.get(b.sha256);
    if (known !== undefined && known !== b.unit_count)
      throw invalidArgument(
        `scope.batches[${b.index}].unit_count is ${b.unit_count}; the batch previewed under its sha256 holds ${known} units.`,
      );
  }
}

/** The scope as stored: defaults applied, `current` / `previous` resolved, languages normalized. */
async function resolveScope(db: Db, body: CreateBody, keyProjectId: string): Promise<Scope> {
  // A key sees only its own project: any other is not found, as on every project route.
  if (body.scope.project_id !== keyProjectId) throw notFound('Project not found.');
  const project = await getProject(db, keyProjectId);
  if (body.action === 'translate') {
    const s = body.scope;
    const langs = await resolveTargets(db, project, s.langs);
    if (!langs.length) throw invalidArgument('scope.langs names no AI target language of the project.');
    s.batches.forEach((b, i) => {
      if (b.index !== i) throw invalidArgument(`scope.batches[${i}].index must be ${i}: batches are listed in order.`);
    });
    const units = s.batches.reduce((n, b) => n + b.unit_count, 0);
    if (units !== s.unit_count)
      throw invalidArgument(`scope.unit_count (${s.unit_count}) is not the sum of the batches' unit_count (${units}).`);
    const batches = s.batches.map((b) => ({ index: b.index, sha256: b.sha256, unit_count: b.unit_count }));
    if (payloadSha256(batches) !== s.payload_sha256)
      throw invalidArgument('scope.payload_sha256 is not the SHA-256 of the canonical {"batches":[...]}.');
    await checkPreviewedCounts(db, project.id, batches);
    return {
      project_id: project.id,
      langs: [...langs].sort(),
      unit_count: s.unit_count,
      batches,
      payload_sha256: s.payload_sha256,
    };
  }
  if (body.action === 'publish') {
    const s = body.scope;
    return {
      project_id: project.id,
      approved_only: s.approved_only ?? false,
      require_complete: s.require_complete ?? false,
      ...(s.incomplete_mode !== undefined ? { incomplete_mode: s.incomplete_mode } : {}),
      ...(s.expected_pending !== undefined ? { expected_pending: s.expected_pending } : {}),
    };
  }
  const s = body.scope;
  const current = await currentVersion(db, project);
  if (!current) throw notFound('The project has no published version to roll back from.');
  const from = s.from_version === 'current' ? current : await resolveVersion(db, project, s.from_version);
  const to = await resolveVersion(db, project, s.to_version);
  return { project_id: project.id, from_version: from.id, to_version: to.id };
}

/** An operation an equivalent create may reuse (`createOperation`). */
async function reusable(db: Db, row: OperationRow, now: number): Promise<boolean> {
  const state = await effectiveState(db, row, now);
  if (state === 'pending_approval') return true;
  if (state !== 'approved') return false;
  const m = money(row);
  if (row.action === 'translate' && (m.charged > 0 || m.reserved > 0)) return false;
  if (m.authorized - m.charged - m.reserved < m.requested) return false;
  const attempts = await db('operation_seats').where({ operation_id: row.id }).countDistinct({ n: 'attempt_id' });
  return Number(attempts[0].n) < MAX_ATTEMPTS;
}

export async function createOperation(
  db: Db,
  config: Config,
  caller: { keyId: string; projectId: string },
  body: CreateBody,
  now = Date.now(),
): Promise<OperationView> {
  const scope = await resolveScope(db, body, caller.projectId);
  const requested = body.action === 'translate' ? body.max_credits * 1000 : 0;
  const equivalence = sha256Hex(canonicalJson([caller.keyId, body.action, scope, requested]));
  for (let attempt = 0; attempt < 8; attempt++) {
    const holder: OperationRow | undefined = await db('operations').where({ reuse_key: equivalence }).first();
    if (holder) {
      if (await reusable(db, holder, now)) return operationView(db, config, holder, now);
      await db('operations').where({ id: holder.id, reuse_key: equivalence }).update({ reuse_key: null });
    }
    const row: OperationRow = {
      id: newId('op', 12),
      project_id: scope.project_id,
      api_key_id: caller.keyId,
      action: body.action,
      state: 'pending_approval',
      scope: JSON.stringify(scope),
      reuse_key: equivalence,
      equivalence,
      requested_mc: requested,
      authorized_mc: 0,
      reserved_mc: 0,
      charged_mc: 0,
      absorbed_mc: 0,
      created_at: now,
      expires_at: now + EXPIRY_MS,
      approved_at: null,
      last_used_at: null,
      decided_by: null,
      decided_at: null,
    };
    try {
      await db('operations').insert(row);
      return operationView(db, config, row, now);
    } catch (err) {
      // An equivalent create got in first: read it again.
      if (!isUniqueViolation(err)) throw err;
    }
  }
  throw contended();
}
