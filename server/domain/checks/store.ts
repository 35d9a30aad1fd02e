// Storing check results where values and sources are written (docs/decisions/0025-stored-check-results.md): each
// writer calls these in the transaction that changes the cells or the keys, so the stored results always describe
// what is stored. The checks run on the event loop, a few milliseconds at a time with a turn for other requests
// between (a cell takes about 40 µs, bench/checks.ts); the whole-project re-check runs on threads (recheck.ts), and a
// large fill hands in results computed there before its transaction (AheadChecks).
import type { Db } from '../../infra/db.js';
import { cellGroups, chunks, dialectOf, retryContended } from '../../infra/db.js';
import { enqueueJob, type JobContext } from '../../infra/jobs.js';
import { checkTranslation, rowOf, rowsOfKey, type CheckContext, type CheckRow, type KeyInput } from './compute.js';
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
async function readKeys(db: Db, ids: number[]): Promise<Map<number, KeyInput>> {
  const keys = new Map<number, KeyInput>();
  for (const part of chunks([...new Set(ids)]))
    for (const k of await db('keys').whereIn('id', part).select('id', 'name', 'source', 'ctx', 'comment'))
      keys.set(Number(k.id), { id: Number(k.id), name: k.name, source: k.source, ctx: k.ctx, comment: k.comment });
  return keys;
}

const COLUMNS = ['key_id', 'lang', 'project_id', 'errors', 'warnings', 'infos', 'ids', 'results', 'checked_at'];
const UPDATED = COLUMNS.slice(3);
/** Rows per INSERT: one statement of a few hundred bound values, a millisecond or two on SQLite. */
const INSERT_SLICE = 100;

/** A stored row's primary key. */
interface RowKey {
  key_id: number | string;
  lang: string;
}

/**
 * Replaces the stored rows `existing` (read by the caller: the rows of the cells it checked) with `rows`: the rows
 * that are not among the new ones are deleted by their primary keys, the new ones upserted, one multi-row VALUES list
 * per slice (Knex writes SQLite's multi-row insert as a chain of SELECT ... UNION ALL, slower to compile and run).
 * Nothing is deleted by a range: on MySQL a range delete locks the gaps around it, and two writers that then insert
 * into the same gap deadlock; deletes of existing rows and upserts lock those rows only.
 */
export async function replaceRows(
  trx: Db,
  projectId: string,
  existing: RowKey[],
  rows: CheckRow[],
  now: number,
): Promise<void> {
  const kept = new Set(rows.map((r) => `${r.key_id}|${r.lang}`));
  const gone = new Map<number, string[]>();
  for (const e of existing)
    if (!kept.has(`${e.key_id}|${e.lang}`)) gone.set(Number(e.key_id), [...(gone.get(Number(e.key_id)) ?? []), e.lang]);
  for (const [keyId, langs] of gone) await trx('cell_checks').where({ key_id: keyId }).whereIn('lang', langs).delete();
  const mysql = dialectOf(trx) === 'mysql';
  const values = `(${COLUMNS.map(() => '?').join(', ')})`;
  const upsert = mysql
    ? ` ON DUPLICATE KEY UPDATE ${UPDATED.map((c) => `${c} = VALUES(${c})`).join(', ')}`
    : ` ON CONFLICT (key_id, lang) DO UPDATE SET ${UPDATED.map((c) => `${c} = excluded.${c}`).join(', ')}`;
  for (const part of chunks(rows, INSERT_SLICE)) {
    const bindings: Array<string | number> = [];
    for (const r of part)
      bindings.push(r.key_id, r.lang, projectId, r.errors, r.warnings, r.infos, r.ids, r.results, now);
    await trx.raw(
      `INSERT INTO cell_checks (${COLUMNS.join(', ')}) VALUES ${Array(part.length).fill(values).join(', ')}${upsert}`,
      bindings,
    );
    if (!mysql) await yieldTurn();
  }
}

/** A cell to store results for; without `value`, the stored one is read (null or pending: no value, no results). */
interface CellRef {
  keyId: number;
  lang: string;
  value?: string | null;
}

/**
 * Cells a writer checks itself, at most: about 80 ms of checks, spread over turns of the event loop. A larger write
 * (a sync of a multi-language file, a source change in a project of many languages) clears the cells' rows and leaves
 * their checks to a job queued in its transaction (CHECK_KEYS_JOB), which runs them seconds later: the writer's answer
 * does not wait on them.
 */
const INLINE_CELLS = 2_000;

/** Keys per read of cells: with every language of a project (about 100), some 10,000 bound values at most. */
const CELL_GROUP_KEYS = 100;

/** The job that checks keys a large write left to it (registered in server/app/jobs.ts). */
export const CHECK_KEYS_JOB = 'checks.keys';

export interface CheckKeysPayload {
  projectId: string;
  keyIds: number[];
}

/** Keys per job: a payload of a few kilobytes. */
const KEYS_PER_JOB = 1_000;

/** The stored values of `cells` (none for a pending marker), by `keyId|lang`. */
async function storedValues(trx: Db, cells: CellRef[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const { keyIds, langs } of cellGroups(cells, CELL_GROUP_KEYS))
    for (const r of await trx('translations')
      .whereIn('key_id', keyIds)
      .whereIn('lang', langs)
      .whereNot('status', 'pending')
      .whereNotNull('value')
      .select('key_id', 'lang', 'value'))
      out.set(`${r.key_id}|${r.lang}`, r.value!);
  return out;
}

/** The stored rows of `cells`. */
async function rowsOfCells(trx: Db, cells: CellRef[]): Promise<RowKey[]> {
  const existing: RowKey[] = [];
  for (const { keyIds, langs } of cellGroups(cells, CELL_GROUP_KEYS))
    existing.push(
      ...(await trx('cell_checks').whereIn('key_id', keyIds).whereIn('lang', langs).select('key_id', 'lang')),
    );
  return existing;
}

/** Clears `existing` and queues the checks of `keyIds` (CHECK_KEYS_JOB), in the writer's transaction. */
async function defer(trx: Db, projectId: string, keyIds: number[], existing: RowKey[], now: number): Promise<void> {
  await replaceRows(trx, projectId, existing, [], now);
  for (const part of chunks([...new Set(keyIds)], KEYS_PER_JOB))
    await enqueueJob(trx, CHECK_KEYS_JOB, { projectId, keyIds: part } satisfies CheckKeysPayload, { now });
}

/**
 * Results a writer computed before its transaction, off the event loop (the fill: server/domain/fill/fill.ts), for
 * the values it meant to store, under the context (`rev`, `termsStamp`) and the keys it read then. checkCells uses
 * one only where the cell holds that value and nothing it was computed from has changed; any other cell is checked
 * as it is.
 */
export interface AheadChecks {
  rev: number;
  termsStamp: string | undefined;
  keys: Map<number, KeyInput>;
  /** By `keyId|lang`: the value checked, and its row (null: it passed every check). */
  rows: Map<string, { value: string; row: CheckRow | null }>;
}

const sameKey = (a: KeyInput | undefined, b: KeyInput) =>
  a !== undefined && a.name === b.name && a.source === b.source && a.ctx === b.ctx && a.comment === b.comment;

/**
 * Checks `cells` as they are written and stores their results in place of what was stored (in the writer's
 * transaction); more than INLINE_CELLS are left to a job. `ctx`: the project's check context when the caller has it;
 * `ahead`: results the writer computed before (AheadChecks).
 */
export async function checkCells(
  trx: Db,
  projectId: string,
  cells: CellRef[],
  ctx?: CheckContext,
  now = Date.now(),
  ahead?: AheadChecks,
): Promise<void> {
  if (!cells.length) return;
  const existing = await rowsOfCells(trx, cells);
  if (cells.length > INLINE_CELLS)
    return defer(
      trx,
      projectId,
      cells.map((c) => c.keyId),
      existing,
      now,
    );
  const context = ctx ?? (await checkContext(trx, projectId));
  const read = await storedValues(
    trx,
    cells.filter((c) => c.value === undefined),
  );
  const keys = await readKeys(
    trx,
    cells.map((c) => c.keyId),
  );
  const current =
    ahead && 'rev' in context && ahead.rev === context.rev && ahead.termsStamp === context.termsStamp
      ? ahead
      : undefined;
  const rows = (
    await inSlices(cells, (c) => {
      const value = c.value === undefined ? read.get(`${c.keyId}|${c.lang}`) : c.value;
      const key = keys.get(c.keyId);
      if (value == null || !key || c.lang === context.baseLang) return null;
      const pre = current?.rows.get(`${c.keyId}|${c.lang}`);
      if (pre && pre.value === value && sameKey(current!.keys.get(c.keyId), key)) return pre.row;
      return rowOf(c.keyId, c.lang, checkTranslation(context, key, c.lang, value));
    })
  ).filter((r): r is CheckRow => r !== null);
  await replaceRows(trx, projectId, existing, rows, now);
}

/**
 * Checks whole keys (their sources and every stored value) after their sources, names or comments changed, or after
 * they were created, and stores the results in place of what was stored; keys of more than INLINE_CELLS values are
 * left to a job, unless `inline` (the job itself).
 */
export async function checkKeys(
  trx: Db,
  projectId: string,
  keyIds: number[],
  now = Date.now(),
  inline = false,
  locking = false,
): Promise<void> {
  if (!keyIds.length) return;
  const ids = [...new Set(keyIds)];
  // A background pass beside writers (`locking`) reads the latest committed cells and results, and holds them until
  // it has written: MySQL's plain read is the transaction's snapshot, older than a fill that committed meanwhile,
  // whose results the rewrite below would then delete. Writers never lock here (two writers of one key would deadlock).
  const current = <Q extends { forShare(): Q }>(q: Q): Q => (locking && dialectOf(trx) === 'mysql' ? q.forShare() : q);
  const cells = new Map<number, Array<{ lang: string; value: string }>>();
  let count = 0;
  for (const part of chunks(ids))
    for (const r of await current(
      trx('translations')
        .whereIn('key_id', part)
        .whereNot('status', 'pending')
        .whereNotNull('value')
        .select('key_id', 'lang', 'value'),
    )) {
      const list = cells.get(Number(r.key_id));
      if (list) list.push({ lang: r.lang, value: r.value! });
      else cells.set(Number(r.key_id), [{ lang: r.lang, value: r.value! }]);
      count++;
    }
  const existing: RowKey[] = [];
  for (const part of chunks(ids))
    existing.push(...(await current(trx('cell_checks').whereIn('key_id', part).select('key_id', 'lang'))));
  if (!inline && count + ids.length > INLINE_CELLS) return defer(trx, projectId, ids, existing, now);
  const ctx = await checkContext(trx, projectId);
  const keys = await readKeys(trx, ids);
  const rows = (await inSlices([...keys.values()], (k) => rowsOfKey(ctx, k, cells.get(k.id) ?? [], true))).flat();
  await replaceRows(trx, projectId, existing, rows, now);
}

/** Keys per transaction of the job: a few hundred values checked, a short transaction. */
const JOB_SLICE = 25;

/** The job a large write queued: its keys checked as a writer would have, a few at a time. */
export async function runCheckKeys(db: Db, job: JobContext<CheckKeysPayload>): Promise<void> {
  const { projectId, keyIds } = job.payload;
  for (const part of chunks(keyIds, JOB_SLICE))
    await retryContended(() =>
      db.transaction(async (trx) => {
        await job.fence(trx);
        // A background pass beside writers, like the term re-check (checks/terms.ts): it reads what they committed.
        await checkKeys(trx, projectId, part, Date.now(), true, true);
      }),
    );
}
