// Fixed 60-second windows per project, counted in the database with one atomic upsert so every server
// process sharing the database enforces one limit (the spec's `RateLimited` response).
import type { Db } from './db.js';
import { dialectOf, hotWrite } from './db.js';
import { ApiError } from './errors.js';

export const RATE_LIMIT = 120;
export const WINDOW_MS = 60_000;

export const windowStart = (now: number) => now - (now % WINDOW_MS);

/** Counts one request in its project's window and returns the new count (SQLite, `?` = project, window). */
export const SQLITE_COUNT_SQL =
  'INSERT INTO rate_windows (project_id, window_start, count) VALUES (?, ?, 1) ' +
  'ON CONFLICT (project_id, window_start) DO UPDATE SET count = count + 1 RETURNING count';

// LAST_INSERT_ID(expr) hands the new count back in the OK packet: one round trip, no read-after-write.
const MYSQL_COUNT_SQL =
  'INSERT INTO rate_windows (project_id, window_start, count) VALUES (?, ?, LAST_INSERT_ID(1)) ' +
  'ON DUPLICATE KEY UPDATE count = LAST_INSERT_ID(count + 1)';

export async function countRequest(db: Db, projectId: string, now = Date.now()): Promise<number> {
  if (dialectOf(db) === 'mysql')
    return Number((await hotWrite<{ insertId: number }>(db, MYSQL_COUNT_SQL, [projectId, windowStart(now)])).insertId);
  return Number((await hotWrite<{ count: number }>(db, SQLITE_COUNT_SQL, [projectId, windowStart(now)])).count);
}

/**
 * `429 rate_limited`, the one refusal of every limit (the request window here, the daily publish cap of
 * server/domain/publish/versions.ts): the message names the limit, Retry-After says when trying again can succeed.
 */
export const rateLimited = (message: string, retryAfterSeconds: number) =>
  new ApiError(429, 'rate_limited', message, {}, { 'Retry-After': String(retryAfterSeconds) });

/** The project's request window is full (spec/openapi.yaml: `Retry-After: 60`). */
export const windowFull = () =>
  rateLimited(`More than ${RATE_LIMIT} requests in this 60-second window; retry after it ends.`, WINDOW_MS / 1000);

/** Sweep: windows older than the current one are never read again. */
export async function sweepRateWindows(db: Db, now: number): Promise<void> {
  await db('rate_windows')
    .where('window_start', '<', now - WINDOW_MS)
    .delete();
}
