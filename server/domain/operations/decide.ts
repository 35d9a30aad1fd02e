// A person's side of an operation (spec/internal.yaml; docs/guides/dashboard.md): approve, deny, read with its plan,
// list a project's. Exported for the internal routes and for the dashboard's approval page, which call them
// in-process with the signed-in person as `decidedBy`.
import type { components } from '../../../generated/internal.js';
import type { Config } from '../../infra/config.js';
import type { Db } from '../../infra/db.js';
import type { ProjectRow } from '../../infra/tables.js';
import { Refusal, invalidArgument, notFound } from '../../infra/errors.js';
import type { App } from '../../infra/app.js';
import { previewPublish } from '../publish/diff.js';
import { readCredit } from '../billing/credits.js';
import { EXPIRY_MS, effectiveState, internalView, money, readOperation, scopeOf, type OperationRow } from './store.js';

type InternalOperation = components['schemas']['InternalOperation'];
type Plan = components['schemas']['OperationPlan'];

/** Who decided when the caller names no one: the admin token. */
const DEFAULT_DECIDER = 'admin';

async function pendingRow(db: Db, id: string, now: number): Promise<OperationRow> {
  const row = await readOperation(db, id);
  if (!row) throw notFound('Operation not found.');
  const state = await effectiveState(db, row, now);
  if (state !== 'pending_approval') throw notPending(state);
  return row;
}

const notPending = (state: string) =>
  new Refusal('operation_not_pending', `The operation is no longer pending approval (${state}).`, { state });

/** After a conditional update that changed nothing: the state that got there first. */
async function lostDecision(db: Db, id: string, now: number): Promise<never> {
  const row = (await readOperation(db, id))!;
  throw notPending(await effectiveState(db, row, now));
}

/**
 * Approves a pending operation. `authorizedCredits` (whole credits) defaults to the request and may lower it,
 * never raise it: the agent asked for that ceiling and showed what it covers.
 */
export async function approveOperation(
  db: Db,
  config: Config,
  id: string,
  opts: { authorizedCredits?: number; decidedBy?: string },
  now = Date.now(),
): Promise<InternalOperation> {
  const row = await pendingRow(db, id, now);
  const requested = money(row).requested;
  const authorized = opts.authorizedCredits === undefined ? requested : opts.authorizedCredits * 1000;
  if (authorized > requested)
    throw invalidArgument(
      `authorizedCredits may lower the request (${requested / 1000} credits), never raise it; nothing changed.`,
    );
  const n = await db('operations')
    .where({ id, state: 'pending_approval' })
    .andWhere('expires_at', '>', now)
    .update({
      state: 'approved',
      authorized_mc: authorized,
      approved_at: now,
      last_used_at: now,
      expires_at: now + EXPIRY_MS,
      decided_by: opts.decidedBy ?? DEFAULT_DECIDER,
      decided_at: now,
    });
  if (n !== 1) return lostDecision(db, id, now);
  return internalView(db, config, (await readOperation(db, id))!, now);
}

export async function denyOperation(
  db: Db,
  config: Config,
  id: string,
  opts: { decidedBy?: string },
  now = Date.now(),
): Promise<InternalOperation> {
  await pendingRow(db, id, now);
  const n = await db('operations')
    .where({ id, state: 'pending_approval' })
    .andWhere('expires_at', '>', now)
    // A denied operation is reused by no create: an equivalent one asks again.
    .update({ state: 'denied', reuse_key: null, decided_by: opts.decidedBy ?? DEFAULT_DECIDER, decided_at: now });
  if (n !== 1) return lostDecision(db, id, now);
  return internalView(db, config, (await readOperation(db, id))!, now);
}

/** A project's operations, newest first, optionally only those in one effective state. */
/** A page of the project's operations, newest first; `more`: older ones follow. */
export async function listOperations(
  db: Db,
  config: Config,
  projectId: string,
  opts: { state?: InternalOperation['state']; offset?: number; limit?: number },
  now = Date.now(),
): Promise<{ operations: InternalOperation[]; more: boolean }> {
  const { state, offset = 0, limit = 200 } = opts;
  const project = await db('projects').where({ id: projectId }).whereNull('deleted_at').first('id');
  if (!project) throw notFound('Project not found.');
  // One row past the page says whether more follow. `id` breaks ties of one millisecond, so pages never overlap.
  const q = db('operations')
    .where({ project_id: projectId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .offset(offset)
    .limit(limit + 1);
  // A stored state narrows the read; the effective state (time may have expired some) decides.
  if (state === 'pending_approval' || state === 'denied' || state === 'exhausted') q.where({ state });
  else if (state) q.whereIn('state', ['pending_approval', 'approved', state]);
  const rows = await q;
  const operations: InternalOperation[] = [];
  for (const row of rows.slice(0, limit)) {
    const view = await internalView(db, config, row, now);
    if (!state || view.state === state) operations.push(view);
  }
  return { operations, more: rows.length > limit };
}

/** The operation with what it would do (`plan`), for the approval page. Writes nothing but what a publish preview stores. */
export async function operationWithPlan(app: App, id: string, now = Date.now()): Promise<InternalOperation> {
  const row = await readOperation(app.db, id);
  if (!row) throw notFound('Operation not found.');
  return { ...(await internalView(app.db, app.config, row, now)), plan: await planOf(app, row, now) };
}

/** Keys listed per kind and language in a publish plan (the totals count all). */
const PLAN_DIFF_CAP = 20;

async function planOf(app: App, row: OperationRow, now: number): Promise<Plan> {
  const { db } = app;
  const scope = scopeOf(row);
  const project: ProjectRow = (await db('projects').where({ id: row.project_id }).first())!;
  const key = await db('api_keys').where({ id: row.api_key_id }).first<{ name: string | null } | undefined>('name');
  const base = {
    balance_mc: (await readCredit(db, project.workspace_id, now)).available,
    api_key_id: row.api_key_id,
    api_key_name: key?.name ?? null,
  };
  if (row.action === 'translate') {
    const batches = scope.batches ?? [];
    const previews = new Map<string, { sample: string[]; estimate: number | null }>();
    const shas = [...new Set(batches.map((b) => b.sha256))];
    if (shas.length)
      for (const p of await db('batch_previews')
        .where({ project_id: row.project_id })
        .whereIn('batch_sha256', shas)
        .andWhere('expires_at', '>', now)
        .select('batch_sha256', 'sample', 'estimate_mc'))
        previews.set(p.batch_sha256, {
          sample: JSON.parse(p.sample) as string[],
          estimate: p.estimate_mc == null ? null : Number(p.estimate_mc),
        });
    // The batches' own estimate, from their dry runs: beside the agent's ceiling it shows a ceiling asked in the
    // wrong unit (millicredits passed as credits) or for other work than the batches hold.
    const estimates = batches.map((b) => previews.get(b.sha256)?.estimate ?? null).filter((e) => e !== null);
    return {
      action: 'translate',
      ...base,
      translate: {
        langs: scope.langs ?? [],
        unit_count: scope.unit_count ?? 0,
        batch_count: batches.length,
        payload_sha256: scope.payload_sha256 ?? '',
        requested_mc: money(row).requested,
        estimate_mc: estimates.length ? estimates.reduce((a, b) => a + b, 0) : null,
        estimated_batches: estimates.length,
        batches: batches.map((b) => ({ ...b, sample: previews.get(b.sha256)?.sample ?? null })),
      },
    };
  }
  const currentId = project.current_version;
  if (row.action === 'rollback') {
    const keyCount = async (v: string | undefined) => {
      const r = v ? await db('versions').where({ project_id: row.project_id, id: v }).first('key_count') : undefined;
      return r ? Number(r.key_count) : null;
    };
    return {
      action: 'rollback',
      ...base,
      rollback: {
        from_version: scope.from_version ?? '',
        to_version: scope.to_version ?? '',
        from_key_count: await keyCount(scope.from_version),
        to_key_count: await keyCount(scope.to_version),
        from_is_current: currentId === scope.from_version,
      },
    };
  }
  // Publish: what it would mint against the current version, computed as the publish page computes it (the
  // preview builds the snapshot by the publish's own steps), never guessed from timestamps: after a restore the
  // live content can differ from the current version in keys no one touched since.
  const preview = await previewPublish(
    app,
    project,
    {
      ...(scope.incomplete_mode ? { incompleteMode: scope.incomplete_mode } : {}),
      approvedOnly: scope.approved_only ?? false,
    },
    PLAN_DIFF_CAP,
  );
  const sum = (bases: boolean) =>
    preview.languages
      .filter((d) => d.isBase === bases)
      .reduce((n, d) => n + d.addedTotal + d.changedTotal + d.removedTotal, 0);
  return {
    action: 'publish',
    ...base,
    publish: {
      approved_only: scope.approved_only ?? false,
      require_complete: scope.require_complete ?? false,
      incomplete_mode: scope.incomplete_mode ?? null,
      expected_pending: scope.expected_pending ?? null,
      current_version: currentId ?? null,
      keys_total: preview.keyCount,
      keys_changed: sum(true),
      cells_changed: sum(false),
      identical: preview.identical,
      languages: preview.languages,
    },
  };
}

/**
 * The asking key withdraws its operation (spec: `cancelOperation`): pending, or approved with nothing reserved (no
 * batch of it running), it becomes `cancelled` and leaves the person's queue; no create reuses it. A cancelled one
 * is answered again. The caller has checked that the key is the one that asked.
 */
export async function cancelOperation(db: Db, row: OperationRow, now = Date.now()): Promise<void> {
  const state = await effectiveState(db, row, now);
  if (state === 'cancelled') return;
  const refuse = (s: string, why = `is ${s}`) =>
    new Refusal('operation_not_cancellable', `The operation ${why}; it can no longer be cancelled.`, { state: s });
  if (state !== 'pending_approval' && state !== 'approved') throw refuse(state);
  const n = await db('operations')
    .where({ id: row.id, state: row.state, reserved_mc: 0 })
    .andWhere('expires_at', '>', now)
    .update({ state: 'cancelled', reuse_key: null });
  if (n === 1) return;
  const again = (await readOperation(db, row.id))!;
  const s = await effectiveState(db, again, now);
  if (s === 'cancelled') return;
  throw refuse(s, s === 'approved' ? 'holds a reservation: a batch of it is running' : `is ${s}`);
}
