// Stored cells (translation rows) and whether a pending marker is in flight: one reading of them for
// translate, sync and publish.
import type { Db } from '../platform/db.js';
import { chunks } from '../platform/db.js';
import type { TranslationRow } from '../platform/tables.js';

const LIVE_JOB = ['queued', 'running'];

type CellRow = Pick<TranslationRow, 'key_id' | 'lang' | 'value' | 'status' | 'origin' | 'job_id'>;
export interface CellState {
  row: CellRow;
  /** A value is stored. */ value: boolean;
  /** A marker whose job is queued or running. */ liveJob: boolean;
}

/** The ids among `jobIds` of fill jobs still queued or running. */
export async function liveJobIds(db: Db, jobIds: number[]): Promise<Set<number>> {
  const live = new Set<number>();
  const ids = [...new Set(jobIds)];
  for (const part of chunks(ids))
    for (const j of await db('fill_jobs').whereIn('id', part).whereIn('status', LIVE_JOB).select('id'))
      live.add(Number(j.id));
  return live;
}

/** Stored cells of `keyIds` (in `langs`, or all), by `keyId|lang`. */
export async function cellStates(db: Db, keyIds: number[], langs?: string[]): Promise<Map<string, CellState>> {
  const rows: CellRow[] = [];
  for (const part of chunks(keyIds)) {
    const q = db('translations')
      .whereIn('key_id', part)
      .select('key_id', 'lang', 'value', 'status', 'origin', 'job_id');
    if (langs) q.whereIn('lang', langs);
    rows.push(...(await q));
  }
  const live = await liveJobIds(
    db,
    rows.filter((r) => r.status === 'pending' && r.job_id != null).map((r) => Number(r.job_id)),
  );
  const out = new Map<string, CellState>();
  for (const row of rows) {
    const pending = row.status === 'pending';
    out.set(`${row.key_id}|${row.lang}`, {
      row,
      value: !pending,
      liveJob: pending && row.job_id != null && live.has(Number(row.job_id)),
    });
  }
  return out;
}
