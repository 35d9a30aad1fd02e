// Stored cells (translation rows) and whether a pending marker is in flight: one reading of them for
// translate, sync and publish.
import type { Db } from '../../infra/db.js';
import { chunks } from '../../infra/db.js';
import type { TranslationRow } from '../../infra/tables.js';

const LIVE_JOB = ['queued', 'running'];

type CellRow = Pick<
  TranslationRow,
  | 'key_id'
  | 'lang'
  | 'value'
  | 'status'
  | 'origin'
  | 'job_id'
  | 'fail_reason'
  | 'outdated_at'
  | 'ai_score'
  | 'ai_reason'
>;
export interface CellState {
  row: CellRow;
  /** A value is stored. */ value: boolean;
  /** A marker whose job is queued or running. */ liveJob: boolean;
  /** Why the marker's last fill failed, when no live job holds it now. */ failed: string | null;
  /**
   * A failed marker that pushes and syncs leave alone: the engine refused the pair itself and the key's source is
   * still the one it refused, so asking again would give the same answer and cost the estimate again.
   */
  stuck: boolean;
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
  const rows: Array<CellRow & { stuck: number | string }> = [];
  for (const part of chunks(keyIds)) {
    // The key's token beside the failure's: a failure stands only for the source it was reported for.
    const q = db('translations')
      .leftJoin('keys', 'keys.id', 'translations.key_id')
      .whereIn('translations.key_id', part)
      .select(
        'translations.key_id',
        'translations.lang',
        'translations.value',
        'translations.status',
        'translations.origin',
        'translations.job_id',
        'translations.fail_reason',
        'translations.outdated_at',
        'translations.ai_score',
        'translations.ai_reason',
        db.raw(
          'CASE WHEN translations.fail_token IS NOT NULL AND translations.fail_token = keys.token THEN 1 ELSE 0 END AS stuck',
        ),
      );
    if (langs) q.whereIn('translations.lang', langs);
    rows.push(...((await q) as typeof rows));
  }
  const live = await liveJobIds(
    db,
    rows.filter((r) => r.status === 'pending' && r.job_id != null).map((r) => Number(r.job_id)),
  );
  const out = new Map<string, CellState>();
  for (const { stuck, ...row } of rows) {
    const pending = row.status === 'pending';
    const liveJob = pending && row.job_id != null && live.has(Number(row.job_id));
    const failed = pending && !liveJob && row.fail_reason ? row.fail_reason : null;
    out.set(`${row.key_id}|${row.lang}`, {
      row,
      value: !pending,
      liveJob,
      failed,
      stuck: failed !== null && Number(stuck) === 1,
    });
  }
  return out;
}

/** An AI value's score as the API shows it (0 to 1) and its reason; null unless the fill stored the value as it is. */
export function aiScoreOf(row: Pick<TranslationRow, 'origin' | 'status' | 'ai_score' | 'ai_reason'>) {
  if (row.origin !== 'ai' || row.status === 'pending' || row.ai_score == null) return null;
  return { aiScore: Number(row.ai_score) / 1000, aiReason: row.ai_reason ?? '' };
}
