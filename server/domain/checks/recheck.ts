// The background re-check (job `checks.recheck`, server/app/jobs.ts): after a change of what the checks read besides
// the cells (the settings, the output formats, the markup origins: settings.ts `requestRecheck`), every key's source
// and stored values are checked again and their rows replaced, a slice of keys at a time, in key order. A slice is
// read in short statements, checked on the worker threads (pool.ts) while the next is read, and written in a
// transaction of its own that also records how far the job got, so a job that another claim takes over (or a process
// that dies) resumes there. A writer that changed a key of the slice meanwhile stored that key's results itself (with
// the new settings); such keys are left as the writer left them. When the settings move again while it runs, it
// starts over with them; when it has passed over every key, the project's results follow the revision it read.
import type { App } from '../../infra/app.js';
import type { Db } from '../../infra/db.js';
import { chunks, retryContended } from '../../infra/db.js';
import type { JobContext } from '../../infra/jobs.js';
import { contentChanged, contentRev } from '../project/revision.js';
import {
  onlySeverities,
  remapRow,
  type CheckContext,
  type CheckResult,
  type CheckRow,
  type KeyInput,
} from './compute.js';
import { checkContext } from './context.js';
import { checkSliceOn } from './pool.js';
import { replaceRows } from './store.js';
import type { SliceInput } from './tasks.js';
import { checkState, contextText, type RecheckPayload } from './settings.js';

/** Stored values per slice: one read statement of about this many rows (server/infra/slices.ts: 4 to 7 ms). */
const CELLS_PER_SLICE = 1_000;

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Slice {
  input: SliceInput;
  first: number;
  last: number;
  /** The project's content revision when the slice was read: unchanged at its write, nothing in it moved. */
  contentRev: number;
}

/** The next `count` keys after `after`, and their stored values (none for pending markers). */
async function readSlice(db: Db, projectId: string, ctx: CheckContext, after: number, count: number) {
  const rev = await contentRev(db, projectId);
  const rows = await db('keys')
    .where('project_id', projectId)
    .andWhere('id', '>', after)
    .orderBy('id')
    .limit(count)
    .select('id', 'name', 'source', 'ctx', 'comment');
  if (!rows.length) return null;
  const keys: KeyInput[] = rows.map((k) => ({
    id: Number(k.id),
    name: k.name,
    source: k.source,
    ctx: k.ctx,
    comment: k.comment,
  }));
  const index = new Map(keys.map((k, i) => [k.id, i]));
  const cells = await cellsOf(db, keys[0].id, keys[keys.length - 1].id, index);
  const slice: Slice = {
    input: { ctx, keys, cells },
    first: keys[0].id,
    last: keys[keys.length - 1].id,
    contentRev: rev,
  };
  return slice;
}

/** The stored values of the keys `first`..`last` (a range of the primary key), as [key index, lang, value]. */
async function cellsOf(db: Db, first: number, last: number, index: Map<number, number>) {
  const cells: Array<[number, string, string]> = [];
  const rows = await db('translations')
    .where('key_id', '>=', first)
    .andWhere('key_id', '<=', last)
    .whereNot('status', 'pending')
    .whereNotNull('value')
    .select('key_id', 'lang', 'value');
  for (const r of rows) {
    const i = index.get(Number(r.key_id));
    if (i !== undefined) cells.push([i, r.lang, r.value!]);
  }
  return cells;
}

/** What the checks of a key read, as one string: equal strings, equal results. */
function fingerprints(input: SliceInput): Map<number, string> {
  const parts = input.keys.map((k) => [k.name, k.source, k.ctx, k.comment] as unknown[]);
  for (const [i, lang, value] of [...input.cells].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)))
    parts[i].push(lang, value);
  return new Map(input.keys.map((k, i) => [k.id, JSON.stringify(parts[i])]));
}

/**
 * Writes a slice's rows in place of the stored ones, unless the revision moved (false: start over). Keys a writer
 * changed since the slice was read keep what that writer stored.
 */
async function writeSlice(
  db: Db,
  job: JobContext<RecheckPayload>,
  projectId: string,
  rev: number,
  slice: Slice,
  rows: CheckRow[],
): Promise<boolean> {
  // A deadlock with a writer (MySQL) costs the slice another try, not the job its attempt.
  return retryContended(() => writeSliceOnce(db, job, projectId, rev, slice, rows));
}

async function writeSliceOnce(
  db: Db,
  job: JobContext<RecheckPayload>,
  projectId: string,
  rev: number,
  slice: Slice,
  rows: CheckRow[],
): Promise<boolean> {
  return db.transaction(async (trx) => {
    await job.fence(trx);
    if ((await checkState(trx, projectId)).rev !== rev) return false;
    const skip = new Set<number>();
    if ((await contentRev(trx, projectId)) !== slice.contentRev) {
      const before = fingerprints(slice.input);
      const index = new Map(slice.input.keys.map((k, i) => [k.id, i]));
      const keys: KeyInput[] = [];
      for (const part of chunks([...index.keys()]))
        for (const k of await trx('keys').whereIn('id', part).select('id', 'name', 'source', 'ctx', 'comment'))
          keys[index.get(Number(k.id))!] = {
            id: Number(k.id),
            name: k.name,
            source: k.source,
            ctx: k.ctx,
            comment: k.comment,
          };
      const now = fingerprints({
        ctx: slice.input.ctx,
        keys: slice.input.keys.map((k, i) => keys[i] ?? { ...k, source: '\u0000gone' }),
        cells: await cellsOf(trx, slice.first, slice.last, index),
      });
      for (const [id, print] of before) if (now.get(id) !== print) skip.add(id);
    }
    const existing = (
      await trx('cell_checks')
        .where({ project_id: projectId })
        .andWhere('key_id', '>=', slice.first)
        .andWhere('key_id', '<=', slice.last)
        .select('key_id', 'lang')
    ).filter((r) => !skip.has(Number(r.key_id)));
    await replaceRows(trx, projectId, existing, skip.size ? rows.filter((r) => !skip.has(r.key_id)) : rows, Date.now());
    await trx('project_checks')
      .where({ project_id: projectId, rev })
      .update({ cursor_key: slice.last, cursor_rev: rev });
    return true;
  });
}

/** One pass over the project at the revision `ctx` was read at; false when the revision moved meanwhile. */
async function pass(
  app: App,
  job: JobContext<RecheckPayload>,
  projectId: string,
  ctx: CheckContext & { rev: number },
  after: number,
): Promise<boolean> {
  const { db } = app;
  const langs = await db('project_languages').where({ project_id: projectId }).count({ n: '*' });
  const [keyCount] = await db('keys').where({ project_id: projectId }).count({ n: '*' });
  // As the publisher decides (server/domain/publish/pool.ts threadsFor): a small project is checked on the event loop,
  // a few milliseconds at a time, sparing it a thread's start.
  const threads = Number(keyCount.n) <= app.config.publishInlineKeys ? 0 : app.config.checkThreads;
  const perSlice = Math.max(1, Math.floor(CELLS_PER_SLICE / (Number(langs[0].n) + 1)));
  // Slices checked on the threads while the next ones are read: as many in flight as there are threads.
  const inFlight: Array<{ slice: Slice; rows: Promise<CheckRow[]> }> = [];
  const settle = async () => {
    const { slice, rows } = inFlight.shift()!;
    return writeSlice(db, job, projectId, ctx.rev, slice, await rows);
  };
  let cursor = after;
  for (;;) {
    const slice = await readSlice(db, projectId, ctx, cursor, perSlice);
    if (!slice) break;
    cursor = slice.last;
    const rows = checkSliceOn(threads, slice.input);
    // Handled where it is awaited (settle); a rejection before then is not unhandled.
    rows.catch(() => {});
    inFlight.push({ slice, rows });
    if (inFlight.length > Math.max(1, threads) && !(await settle())) return false;
    await yieldTurn();
  }
  while (inFlight.length) if (!(await settle())) return false;
  return retryContended(() => finishPass(db, job, projectId, ctx));
}

/** Records that the stored results follow the revision `ctx` was read at, and what it read, unless it moved. */
function finishPass(
  db: Db,
  job: JobContext<RecheckPayload>,
  projectId: string,
  ctx: CheckContext & { rev: number },
): Promise<boolean> {
  return db.transaction(async (trx) => {
    await job.fence(trx);
    const n = await trx('project_checks')
      .where({ project_id: projectId, rev: ctx.rev })
      .update({ checked_rev: ctx.rev, checked_context: contextText(ctx), cursor_key: 0, cursor_rev: 0 });
    // The results a publish counts (and may leave out by) changed: a prepared publish no longer describes them.
    if (n) await contentChanged(trx, projectId, Date.now());
    return n === 1;
  });
}

/** Stored rows read per statement by a remap. */
const ROWS_PER_SLICE = 2_000;

/** Stored rows, remapped: those that change, and those left without results (ids ''), to delete. */
function remapAll(ctx: CheckContext, rows: Array<{ key_id: number | string; lang: string; results: string }>) {
  const out: CheckRow[] = [];
  for (const r of rows) {
    const row = remapRow(ctx, Number(r.key_id), r.lang, JSON.parse(r.results) as CheckResult[]);
    if (!row) out.push({ ...emptyRow, key_id: Number(r.key_id), lang: r.lang });
    else if (row.results !== r.results) out.push(row);
  }
  return out;
}

/**
 * A pass that runs no check: the stored rows, whose settings differ from the new ones only by severities and checks
 * switched off (compute.ts onlySeverities), each given the new severities (remapRow). A row a writer stored meanwhile
 * was checked with the new settings, and remaps to itself; one a writer replaced after the read is remapped as it is
 * now, in the transaction that writes.
 */
async function remapPass(
  db: Db,
  job: JobContext<RecheckPayload>,
  projectId: string,
  ctx: CheckContext & { rev: number },
): Promise<boolean> {
  const read = (q: Db, after: number, upTo?: number) => {
    const rows = q('cell_checks').where({ project_id: projectId }).andWhere('key_id', '>', after).orderBy('key_id');
    if (upTo === undefined) rows.limit(ROWS_PER_SLICE);
    else rows.andWhere('key_id', '<=', upTo);
    return rows.select('key_id', 'lang', 'results');
  };
  for (let after = -1; ;) {
    const rev = await contentRev(db, projectId);
    const rows = await read(db, after);
    if (!rows.length) break;
    // The whole last key, so a key's rows are written in one transaction.
    const last = Number(rows[rows.length - 1].key_id);
    const next =
      rows.length < ROWS_PER_SLICE
        ? rows
        : rows.filter((r) => Number(r.key_id) !== last || rows[0].key_id === r.key_id);
    const upTo = Number(next[next.length - 1].key_id);
    const seen = new Map(next.map((r) => [`${r.key_id}|${r.lang}`, r.results]));
    const prepared: CheckRow[] = [];
    for (let i = 0; i < next.length; i += 200) {
      prepared.push(...remapAll(ctx, next.slice(i, i + 200)));
      await yieldTurn();
    }
    const byKey = new Map(prepared.map((r) => [`${r.key_id}|${r.lang}`, r]));
    const again = async (trx: Db, from: number, to: number) => {
      const out: CheckRow[] = [];
      for (const f of await read(trx, from, to)) {
        const pk = `${f.key_id}|${f.lang}`;
        if (seen.get(pk) !== f.results) out.push(...remapAll(ctx, [f]));
        else if (byKey.has(pk)) out.push(byKey.get(pk)!);
      }
      return out;
    };
    const done = await retryContended(() =>
      db.transaction(async (trx) => {
        await job.fence(trx);
        if ((await checkState(trx, projectId)).rev !== ctx.rev) return false;
        // A write since the read: its rows (the few that differ from what was read) are remapped as they are now.
        const remapped = (await contentRev(trx, projectId)) === rev ? prepared : await again(trx, after, upTo);
        const gone = remapped.filter((r) => r.ids === '');
        await replaceRows(
          trx,
          projectId,
          gone,
          remapped.filter((r) => r.ids !== ''),
          Date.now(),
        );
        return true;
      }),
    );
    if (!done) return false;
    after = upTo;
    await yieldTurn();
  }
  return retryContended(() => finishPass(db, job, projectId, ctx));
}

/** A row remapRow left without results: deleted. */
const emptyRow = { errors: 0, warnings: 0, infos: 0, ids: '', results: '[]' };

/** The languages a project's rows may be of: its languages, removed ones too, and the base (the sources). */
async function languagesOf(db: Db, projectId: string, baseLang: string): Promise<string[]> {
  return [baseLang, ...(await db('project_languages').where({ project_id: projectId }).pluck('code'))];
}

export async function runRecheck(app: App, job: JobContext<RecheckPayload>): Promise<void> {
  const { db } = app;
  const projectId = job.payload.projectId;
  for (;;) {
    const state = await checkState(db, projectId);
    if (state.checkedRev >= state.rev) return;
    const project = await db('projects').where({ id: projectId }).whereNull('deleted_at').first('id');
    if (!project) {
      await db('project_checks').where({ project_id: projectId }).update({ checked_rev: state.rev });
      return;
    }
    const ctx = await checkContext(db, projectId);
    // One change since the results were last brought up to date, which only moves severities (or switches checks
    // off): the stored results are remapped, no check runs.
    const before = state.checkedRev === ctx.rev - 1 ? state.checkedContext : null;
    if (before && onlySeverities(before, ctx, await languagesOf(db, projectId, ctx.baseLang))) {
      if (await remapPass(db, job, projectId, ctx)) return;
      continue;
    }
    // A pass another claim began at this revision resumes after its last slice.
    const after = state.cursorRev === ctx.rev ? state.cursorKey : 0;
    if (await pass(app, job, projectId, ctx, after)) return;
  }
}
