// Daily quotas per project (docs/guides/api.md: 500 content pushes, 500 content runs a day). The count lives in the
// database and moves by one conditional UPDATE in the caller's transaction, so concurrent requests in any number
// of processes never pass the limit, and a request that rolls back never used any of it.
import type { Db } from '../../infra/db.js';
import { insertOrKeep } from '../../infra/db.js';

/** The UTC day a count belongs to. */
const dayOf = (now: number) => new Date(now).toISOString().slice(0, 10);

/** Counts one use of `kind` today; false (and nothing counted) when `limit` uses were already counted. */
export async function countDaily(
  trx: Db,
  projectId: string,
  kind: string,
  limit: number,
  now: number,
): Promise<boolean> {
  const key = { project_id: projectId, kind, day: dayOf(now) };
  await insertOrKeep(trx, 'daily_counts', { ...key, n: 0 }, ['project_id', 'kind', 'day'], 'n');
  const n = await trx('daily_counts')
    .where(key)
    .andWhere('n', '<', limit)
    .update({ n: trx.raw('n + 1') });
  return n === 1;
}

/** The uses of `kind` counted today (a read: what a request checks before work it would count). */
export async function usedDaily(db: Db, projectId: string, kind: string, now: number): Promise<number> {
  const row = await db('daily_counts')
    .where({ project_id: projectId, kind, day: dayOf(now) })
    .first('n');
  return Number(row?.n ?? 0);
}

/** Counts older than two days are never read again. */
export async function sweepDailyCounts(db: Db, now: number): Promise<void> {
  await db('daily_counts')
    .where('day', '<', dayOf(now - 2 * 86_400_000))
    .delete();
}
