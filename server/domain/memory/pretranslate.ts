// Pre-translation (docs/decisions/0021-translation-memory.md): a pair a push, a sync or a retry would queue for the
// AI fill, whose source the memory holds with a trusted translation at 100 or 101 (lookup.ts exactMatches), is filled
// at once with that translation (placeholders renamed), origin `memory`, status `translated`, at no charge, in the
// caller's transaction, before the fill is planned. The callers leave those pairs out of the estimate and the job.
import type { Db } from '../../infra/db.js';
import { bool, chunks, dialectOf } from '../../infra/db.js';
import { checkCells } from '../checks/store.js';
import { rememberRows, type CellRead, type MemoryProject } from './entries.js';
import { exactMatches, type Match, type MemoryQuery } from './lookup.js';
import { insertRows } from './segments.js';
import { memoryScope, memorySettings } from './settings.js';

/** Whether the project pre-translates from its memory. */
const preTranslates = (p: MemoryProject): boolean => memoryScope(p) !== null && memorySettings(p).preTranslate;

/** The pre-translations of `queries` (empty when the project does not pre-translate), by index. */
export async function preTranslations(db: Db, p: MemoryProject, queries: MemoryQuery[]): Promise<Map<number, Match>> {
  if (!preTranslates(p)) return new Map();
  return exactMatches(db, p, queries);
}

export interface MemoryFill {
  keyId: number;
  lang: string;
  value: string;
}

// The statuses of a fill job that still holds its markers (server/domain/catalog/cells.ts LIVE_JOB).
const UNHELD =
  "(translations.job_id IS NULL OR translations.job_id NOT IN (SELECT id FROM fill_jobs WHERE status IN ('queued', 'running')))";
const COLUMNS = '(key_id, lang, project_id, value, status, origin, job_id, updated_at)';

/**
 * Writes `fills` over cells that have no value (no row, or a pending marker no live job holds), recorded in the
 * cells' history (actor `memory`), checked (their results stored) and mirrored in the memory. Returns the cells written; a cell that got a value or
 * a live job meanwhile is left alone.
 */
export async function fillFromMemory(
  trx: Db,
  p: MemoryProject,
  fills: MemoryFill[],
  now: number,
): Promise<Array<{ keyId: number; lang: string }>> {
  if (!fills.length) return [];
  const mysql = dialectOf(trx) === 'mysql';
  for (const part of chunks(fills, mysql ? 500 : 100)) {
    // Every value bound, none written into the text: one text per slice length, prepared once per connection.
    const values = `(?, ?, ?, ?, 'translated', 'memory', NULL, ?)`;
    const head = `INSERT INTO translations ${COLUMNS} VALUES ${Array(part.length).fill(values).join(', ')}`;
    const when = `status = 'pending' AND ${UNHELD.replace(/translations\./g, '')}`;
    const sql = mysql
      ? // Assignments run left to right: the columns the condition reads (status, job_id) are assigned last.
        `${head} ON DUPLICATE KEY UPDATE value = IF(${when}, VALUES(value), value), origin = IF(${when}, VALUES(origin), origin), fail_reason = IF(${when}, NULL, fail_reason), fail_token = IF(${when}, NULL, fail_token), outdated_at = IF(${when}, NULL, outdated_at), updated_at = IF(${when}, VALUES(updated_at), updated_at), job_id = IF(${when}, NULL, job_id), status = IF(status = 'pending' AND value IS NOT NULL, 'translated', status)`
      : `${head} ON CONFLICT (key_id, lang) DO UPDATE SET value = excluded.value, status = excluded.status, origin = excluded.origin, job_id = NULL, fail_reason = NULL, fail_token = NULL, outdated_at = NULL, updated_at = excluded.updated_at WHERE translations.status = 'pending' AND ${UNHELD}`;
    await trx.raw(
      sql,
      part.flatMap((f) => [f.keyId, f.lang, p.id, f.value, now]),
    );
  }
  const keyIds = [...new Set(fills.map((f) => f.keyId))];
  const langs = [...new Set(fills.map((f) => f.lang))];
  // The cells this write filled (the ones carrying its instant and origin), read with what the memory needs.
  const wanted = new Set(fills.map((f) => `${f.keyId}|${f.lang}`));
  const rows: CellRead[] = [];
  for (const part of chunks(keyIds))
    for (const r of await trx('translations as t')
      .join('keys as k', 'k.id', 't.key_id')
      // By the primary key alone (key_id, lang): with the project in the condition, MySQL may read the project's
      // cells of these languages through (project_id, lang), more of them at every push.
      .where({ 't.origin': 'memory', 't.updated_at': now })
      .whereIn('t.key_id', part)
      .whereIn('t.lang', langs)
      .select<CellRead[]>('t.key_id', 't.lang', 't.value', 't.status', 't.origin', 't.updated_at', 'k.source', 'k.ctx'))
      if (wanted.has(`${r.key_id}|${r.lang}`)) rows.push(r);
  // The cells' history (as server/domain/catalog/history.ts records every writer's), written as plain VALUES.
  await insertRows(
    trx,
    'translation_history',
    rows.map((r) => ({
      project_id: p.id,
      key_id: Number(r.key_id),
      lang: r.lang,
      value: r.value,
      status: r.status,
      origin: 'memory',
      actor: 'memory',
      created_at: now,
    })),
  );
  await rememberRows(trx, p, rows);
  // Their quality-check results, as every writer of a value stores them (server/domain/checks/store.ts,
  // docs/decisions/0025-stored-check-results.md): a push checked its keys before this write filled them.
  await checkCells(
    trx,
    p.id,
    rows.map((r) => ({ keyId: Number(r.key_id), lang: r.lang, value: r.value })),
    undefined,
    now,
  );
  return rows.map((r) => ({ keyId: Number(r.key_id), lang: r.lang }));
}

/**
 * Pre-translates the keyed pairs `pairs` (a retry's) from the memory in the caller's transaction: the ones filled,
 * and the ones left for the AI fill, in their order.
 */
export async function preTranslatePairs<T extends { keyId: number; lang: string }>(
  trx: Db,
  p: MemoryProject,
  pairs: T[],
  now: number,
): Promise<{ filled: T[]; rest: T[] }> {
  if (!pairs.length || !preTranslates(p)) return { filled: [], rest: pairs };
  const keys = new Map<number, { source: string; ctx: string | null; name: string; enabled: unknown }>();
  for (const part of chunks([...new Set(pairs.map((q) => q.keyId))]))
    for (const k of await trx('keys').whereIn('id', part).select('id', 'source', 'ctx', 'name', 'enabled'))
      keys.set(Number(k.id), k);
  const queries = pairs.map((q) => {
    const k = keys.get(q.keyId);
    return { source: k?.source ?? '', ctx: k?.ctx ?? null, key: k?.name ?? null, lang: q.lang };
  });
  const hits = await exactMatches(trx, p, queries);
  const fills = pairs.flatMap((q, i) => {
    const hit = hits.get(i);
    return hit && bool(keys.get(q.keyId)?.enabled) ? [{ keyId: q.keyId, lang: q.lang, value: hit.target }] : [];
  });
  const written = new Set((await fillFromMemory(trx, p, fills, now)).map((c) => `${c.keyId}|${c.lang}`));
  return {
    filled: pairs.filter((q) => written.has(`${q.keyId}|${q.lang}`)),
    rest: pairs.filter((q) => !written.has(`${q.keyId}|${q.lang}`)),
  };
}
