// Storing check results where values and sources are written (docs/decisions/0025-stored-check-results.md): each
// writer calls these in the transaction that changes the cells or the keys, so the stored results always describe
// what is stored. The checks run on the event loop, a few milliseconds at a time with a turn for other requests
// between (a cell takes about 40 µs, bench/checks.ts); the whole-project re-check runs on threads (recheck.ts).
import type { Db } from '../../infra/db.js';
import { chunks, dialectOf } from '../../infra/db.js';
import {
  checkTranslation,
  rowOf,
  rowsOfKey,
  type CheckContext,
  type CheckResult,
  type CheckRow,
  type KeyInput,
} from './compute.js';
import { checkContext } from './context.js';

/** How long checks run before a turn of the event loop lets other requests in. */
const SLICE_MS = 4;

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `fn` over `items`, with a turn of the event loop whenever SLICE_MS have passed. */
export async function inSlices<T, R>(items: readonly T[], fn: (item: T) => R): Promise<R[]> {
  const out: R[] = [];
  let since = performance.now();
  for (const item of items) {
    out.push(fn(item));
    if (performance.now() - since > SLICE_MS) {
      await yieldTurn();
      since = performance.now();
    }
  }
  return out;
}

/** The keys the checks read, by id. */
export async function readKeys(db: Db, ids: number[]): Promise<Map<number, KeyInput>> {
  const keys = new Map<number, KeyInput>();
  for (const part of chunks([...new Set(ids)]))
    for (const k of await db('keys').whereIn('id', part).select('id', 'name', 'source', 'ctx', 'comment'))
      keys.set(Number(k.id), { id: Number(k.id), name: k.name, source: k.source, ctx: k.ctx, comment: k.comment });
  return keys;
}

const COLUMNS = ['key_id', 'lang', 'project_id', 'errors', 'warnings', 'infos', 'ids', 'results', 'checked_at'];
/** Rows per INSERT: one statement of a few hundred bound values, a millisecond or two on SQLite. */
const INSERT_SLICE = 100;

/**
 * Inserts rows (whose (key_id, lang) no row holds any more: the caller deleted them) with one multi-row VALUES list
 * per slice: Knex writes SQLite's multi-row insert as a chain of SELECT ... UNION ALL, slower to compile and run.
 */
export async function insertRows(trx: Db, projectId: string, rows: CheckRow[], now: number): Promise<void> {
  const values = `(${COLUMNS.map(() => '?').join(', ')})`;
  for (const part of chunks(rows, INSERT_SLICE)) {
    const bindings: Array<string | number> = [];
    for (const r of part)
      bindings.push(r.key_id, r.lang, projectId, r.errors, r.warnings, r.infos, r.ids, r.results, now);
    await trx.raw(
      `INSERT INTO cell_checks (${COLUMNS.join(', ')}) VALUES ${Array(part.length).fill(values).join(', ')}`,
      bindings,
    );
    if (dialectOf(trx) === 'sqlite') await yieldTurn();
  }
}

/** A cell to store results for; without `value`, the stored one is read (null or pending: no value, no results). */
export interface CellRef {
  keyId: number;
  lang: string;
  value?: string | null;
}

/** The stored values of `cells` (none for a pending marker), by `keyId|lang`. */
async function storedValues(trx: Db, cells: CellRef[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const byLang = new Map<string, number[]>();
  for (const c of cells) byLang.set(c.lang, [...(byLang.get(c.lang) ?? []), c.keyId]);
  for (const [lang, ids] of byLang)
    for (const part of chunks([...new Set(ids)]))
      for (const r of await trx('translations')
        .where({ lang })
        .whereIn('key_id', part)
        .whereNot('status', 'pending')
        .whereNotNull('value')
        .select('key_id', 'value'))
        out.set(`${r.key_id}|${lang}`, r.value!);
  return out;
}

/**
 * Checks `cells` as they are written and stores their results in place of what was stored (in the writer's
 * transaction). `ctx`: the project's check context when the caller has it.
 */
export async function checkCells(
  trx: Db,
  projectId: string,
  cells: CellRef[],
  ctx?: CheckContext,
  now = Date.now(),
): Promise<void> {
  if (!cells.length) return;
  const context = ctx ?? (await checkContext(trx, projectId));
  const read = await storedValues(
    trx,
    cells.filter((c) => c.value === undefined),
  );
  const keys = await readKeys(
    trx,
    cells.map((c) => c.keyId),
  );
  const rows = (
    await inSlices(cells, (c) => {
      const value = c.value === undefined ? read.get(`${c.keyId}|${c.lang}`) : c.value;
      const key = keys.get(c.keyId);
      if (value == null || !key || c.lang === context.baseLang) return null;
      return rowOf(c.keyId, c.lang, checkTranslation(context, key, c.lang, value));
    })
  ).filter((r): r is CheckRow => r !== null);
  const byLang = new Map<string, number[]>();
  for (const c of cells) byLang.set(c.lang, [...(byLang.get(c.lang) ?? []), c.keyId]);
  for (const [lang, ids] of byLang)
    for (const part of chunks([...new Set(ids)]))
      await trx('cell_checks').where({ project_id: projectId, lang }).whereIn('key_id', part).delete();
  await insertRows(trx, projectId, rows, now);
}

/**
 * Checks whole keys (their sources and every stored value) after their sources, names or comments changed, or after
 * they were created, and stores the results in place of what was stored. Returns each key's source results.
 */
export async function checkKeys(
  trx: Db,
  projectId: string,
  keyIds: number[],
  now = Date.now(),
): Promise<Map<number, CheckResult[]>> {
  const sources = new Map<number, CheckResult[]>();
  if (!keyIds.length) return sources;
  const ctx = await checkContext(trx, projectId);
  const keys = await readKeys(trx, keyIds);
  const cells = new Map<number, Array<{ lang: string; value: string }>>();
  for (const part of chunks([...keys.keys()]))
    for (const r of await trx('translations')
      .whereIn('key_id', part)
      .whereNot('status', 'pending')
      .whereNotNull('value')
      .select('key_id', 'lang', 'value'))
      cells.set(Number(r.key_id), [...(cells.get(Number(r.key_id)) ?? []), { lang: r.lang, value: r.value! }]);
  const rows = (await inSlices([...keys.values()], (k) => rowsOfKey(ctx, k, cells.get(k.id) ?? [], true))).flat();
  for (const r of rows) if (r.lang === ctx.baseLang) sources.set(r.key_id, JSON.parse(r.results) as CheckResult[]);
  for (const part of chunks([...keys.keys()]))
    await trx('cell_checks').where({ project_id: projectId }).whereIn('key_id', part).delete();
  await insertRows(trx, projectId, rows, now);
  return sources;
}
