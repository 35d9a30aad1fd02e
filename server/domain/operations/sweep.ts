// Time moves operations (`Operation`) only here, on the job queue (server/app/jobs.ts), judged by the sweep's `now`
// (which `POST /internal/v1/jobs/run-due` may simulate): pending 30 minutes after creation; approved publish or
// rollback 30 minutes after approval; approved translate 30 minutes after its last use, once no job of its own
// is live. Expiry stores the state and releases what the operation still reserved. Batch preview samples past
// their 24 hours are deleted.
import type { Db } from '../../infra/db.js';

export async function sweepOperations(db: Db, now: number, projectId?: string): Promise<void> {
  // `projectId`: that project's alone (run-due scoped to a project, server/infra/jobs.ts runDueForProject).
  const of = (table: 'operations' | 'batch_previews') =>
    db(table).where(projectId === undefined ? {} : { project_id: projectId });
  await of('operations')
    .where({ state: 'pending_approval' })
    .andWhere('expires_at', '<=', now)
    .update({ state: 'expired', reuse_key: null });
  await of('operations')
    .where({ state: 'approved' })
    .whereIn('action', ['publish', 'rollback'])
    .andWhere('expires_at', '<=', now)
    .update({ state: 'expired', reuse_key: null });
  await of('operations')
    .where({ state: 'approved', action: 'translate' })
    .andWhere('expires_at', '<=', now)
    .whereNotExists(
      db('fill_jobs')
        .whereRaw('fill_jobs.operation_id = operations.id')
        .whereIn('status', ['queued', 'running'])
        .select(db.raw('1')),
    )
    .update({ state: 'expired', reuse_key: null, reserved_mc: 0 });
  await of('batch_previews').where('expires_at', '<=', now).delete();
}
