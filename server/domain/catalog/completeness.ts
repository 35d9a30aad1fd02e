// Each target language's completeness over the enabled keys: the dashboard's overview and the public status read
// (getProjectStatus) count the same way.
import type { Db } from '../../infra/db.js';
import type { ProjectRow } from '../../infra/tables.js';
import { liveJobIds } from './cells.js';

interface Completeness {
  missing: number;
  pending: number;
  failed: number;
  translated: number;
  reviewed: number;
  approved: number;
  /** Values whose source changed since they were written (outdated.ts): counted here, not under their status. */
  outdated: number;
}

/**
 * Each target language's cells of the enabled keys by state: a pending marker whose last fill failed and that no
 * live job holds is `failed` (as the key reads of the translate group tell it), a value whose source changed since
 * it was written `outdated` (not done: outdated.ts), the keys with no cell `missing`.
 */
export async function completeness(db: Db, p: ProjectRow, keys: number) {
  const rows = await db('translations as t')
    .join('keys as k', 'k.id', 't.key_id')
    .where({ 't.project_id': p.id, 'k.enabled': true, 'k.captured': false })
    .groupBy('t.lang', 't.status', 'f', 'fj', 'o')
    .select<
      Array<{
        lang: string;
        status: string;
        fj: number | string | null;
        f: number | string;
        o: number | string;
        n: number | string;
      }>
    >(
      't.lang',
      't.status',
      db.raw('CASE WHEN t.fail_reason IS NOT NULL THEN 1 ELSE 0 END AS f'),
      db.raw("CASE WHEN t.outdated_at IS NOT NULL AND t.status <> 'pending' THEN 1 ELSE 0 END AS o"),
      // The job matters only to a failed marker (is it queued again?): other cells are not grouped by it.
      db.raw("CASE WHEN t.status = 'pending' AND t.fail_reason IS NOT NULL THEN t.job_id ELSE NULL END AS fj"),
      db.raw('COUNT(*) AS n'),
    );
  const live = await liveJobIds(
    db,
    rows.filter((r) => r.status === 'pending' && Number(r.f) === 1 && r.fj != null).map((r) => Number(r.fj)),
  );
  const by = new Map<string, Completeness>();
  for (const r of rows) {
    const c = by.get(r.lang) ?? {
      missing: 0,
      pending: 0,
      failed: 0,
      translated: 0,
      reviewed: 0,
      approved: 0,
      outdated: 0,
    };
    by.set(r.lang, c);
    const n = Number(r.n);
    if (r.status === 'pending') {
      const failed = Number(r.f) === 1 && !(r.fj != null && live.has(Number(r.fj)));
      c[failed ? 'failed' : 'pending'] += n;
    } else if (Number(r.o) === 1) c.outdated += n;
    else if (r.status === 'translated' || r.status === 'reviewed' || r.status === 'approved') c[r.status] += n;
  }
  for (const c of by.values())
    c.missing = Math.max(0, keys - c.pending - c.failed - c.translated - c.reviewed - c.approved - c.outdated);
  return (lang: string) =>
    by.get(lang) ?? { missing: keys, pending: 0, failed: 0, translated: 0, reviewed: 0, approved: 0, outdated: 0 };
}

/** The enabled keys of a project (captured keys awaiting review not counted): what completeness is counted over. */
export async function enabledKeyCount(db: Db, projectId: string): Promise<number> {
  const row = (await db('keys')
    .where({ project_id: projectId, enabled: true, captured: false })
    .count({ n: '*' })
    .first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}

/** Failed pairs named per language (spec: ProjectStatus `failedKeys`). */
const FAILED_LISTED = 20;

/**
 * The first failed pairs of each language in `langs` (enabled, non-captured keys, by creation) with why their last
 * fill failed: `glossa status` names them instead of only counting. A marker a live job holds again is not failed.
 */
export async function failedKeys(
  db: Db,
  projectId: string,
  langs: string[],
): Promise<Map<string, Array<{ key: string; reason: string }>>> {
  const out = new Map<string, Array<{ key: string; reason: string }>>();
  for (const lang of langs) {
    const rows: Array<{ name: string; reason: string; job: number | string | null }> = await db('translations as t')
      .join('keys as k', 'k.id', 't.key_id')
      .where({
        't.project_id': projectId,
        't.lang': lang,
        't.status': 'pending',
        'k.enabled': true,
        'k.captured': false,
      })
      .whereNotNull('t.fail_reason')
      .orderBy('k.id')
      .limit(FAILED_LISTED * 2)
      .select('k.name as name', 't.fail_reason as reason', 't.job_id as job');
    const live = await liveJobIds(
      db,
      rows.filter((r) => r.job != null).map((r) => Number(r.job)),
    );
    const failed = rows
      .filter((r) => !(r.job != null && live.has(Number(r.job))))
      .slice(0, FAILED_LISTED)
      .map((r) => ({ key: r.name, reason: r.reason }));
    if (failed.length) out.set(lang, failed);
  }
  return out;
}
