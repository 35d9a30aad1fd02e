// Daily quotas per project, one counter per kind and UTC day: content pushes and runs (500 a day each), publishes
// and restores (`publish`, 30 a day; publish/versions.ts) and new captured keys (`capture`, 5,000 a day;
// http/routes/capture.ts). The count lives in the database and moves by conditional UPDATEs, in the caller's
// transaction where it has one, so concurrent requests in any number of processes never pass the limit, and a
// request that rolls back never used any of it.
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

/**
 * Takes up to `want` uses of `kind` today at once, fewer when fewer are left (a capture keeps what fits); returns
 * how many it took. Each try is one conditional UPDATE; a try that lost to a concurrent one reads what is left.
 */
export async function reserveDaily(
  db: Db,
  projectId: string,
  kind: string,
  want: number,
  limit: number,
  now: number,
): Promise<number> {
  const key = { project_id: projectId, kind, day: dayOf(now) };
  await insertOrKeep(db, 'daily_counts', { ...key, n: 0 }, ['project_id', 'kind', 'day'], 'n');
  for (let tries = 0; tries < 5 && want > 0; tries++) {
    const n = await db('daily_counts')
      .where(key)
      .andWhere('n', '<=', limit - want)
      .update({ n: db.raw('n + ?', [want]) });
    if (n === 1) return want;
    const row = await db('daily_counts').where(key).first('n');
    want = Math.min(want, limit - Number(row!.n));
  }
  return 0;
}

/** Gives back `n` uses of `kind` taken today by reserveDaily and not used after all. */
export async function releaseDaily(db: Db, projectId: string, kind: string, n: number, now: number): Promise<void> {
  if (n > 0)
    await db('daily_counts')
      .where({ project_id: projectId, kind, day: dayOf(now) })
      .update({ n: db.raw('n - ?', [n]) });
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
