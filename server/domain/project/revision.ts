// What a publish reads (keys, cells, languages, synced catalogs) carries a revision per project, so a publish
// can tell whether the render prepared ahead of it (publish/prepare.ts) still describes the project.
import type { Db } from '../../infra/db.js';

/**
 * Marks the project's content changed. Every transaction that writes keys, translations, languages or synced
 * catalogs calls this as its last statement: on MySQL the row's lock is then held only while the transaction
 * commits, so no writer waits on it while holding another lock.
 */
export async function contentChanged(trx: Db, projectId: string, now: number): Promise<void> {
  await trx('project_content')
    .where({ project_id: projectId })
    .update({ content_rev: trx.raw('content_rev + 1'), changed_at: now });
}

/**
 * Moves the revision without marking the content changed: a publish prepared before no longer matches, and none is
 * prepared again for this (a change whose effect a background job applies marks the content changed when it ends:
 * server/domain/checks/recheck.ts).
 */
export async function revisionMoved(trx: Db, projectId: string): Promise<void> {
  await trx('project_content')
    .where({ project_id: projectId })
    .update({ content_rev: trx.raw('content_rev + 1') });
}

/** The project's content revision now. */
export async function contentRev(db: Db, projectId: string): Promise<number> {
  return Number((await db('project_content').where({ project_id: projectId }).first('content_rev'))?.content_rev ?? -1);
}
