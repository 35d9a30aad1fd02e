// The entries of a memory (migration 027 `memory_entries`): every stored target value mirrored as a (source,
// target) pair of its project's memory, plus what an import adds. A cell's writers call rememberCells in the
// transaction that changes the cell (the AI fill, a person's edit or review, an imported value, a pre-translation),
// so an entry follows its cell: the same source keeps one entry per cell and language, updated with it; a changed
// source starts a new one and leaves the old pair as it was (still a true pair); an outdated value (written for an
// older source) adds nothing.
import type { Db } from '../../infra/db.js';
import { chunks, dialectOf, retryContended } from '../../infra/db.js';
import type { Logger } from '../../infra/log.js';
import type { ProjectRow } from '../../infra/tables.js';
import { memoryScope, memorySettings, scopeFor, type Sharing } from './settings.js';
import { dropOrphanSegments, ensureSegments, insertRows } from './segments.js';

export type EntryStatus = 'translated' | 'reviewed' | 'approved';
export type EntryOrigin = 'edit' | 'ai' | 'import' | 'memory';

/** What a project's memory needs of its row. */
export type MemoryProject = Pick<
  ProjectRow,
  'id' | 'workspace_id' | 'base_lang' | 'memory_sharing' | 'memory_pretranslate' | 'memory_threshold'
>;

interface RememberedCell {
  key_id: number | string;
  lang: string;
  value: string;
  status: string;
  origin: string | null;
  updated_at: number | string;
  source: string;
  ctx: string | null;
}

const runIn = <T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> =>
  db.isTransaction ? work(db) : db.transaction(work);

/**
 * Mirrors the cells `cells` of project `p` into its memory as they now are, in the caller's transaction. A cell
 * without a value, pending, or outdated adds nothing; a project whose memory is off writes none.
 */
export async function rememberCells(
  trx: Db,
  p: MemoryProject,
  cells: Array<{ keyId: number; lang: string }>,
): Promise<void> {
  const scope = memoryScope(p);
  if (!scope || !cells.length) return;
  const wanted = new Set(cells.map((c) => `${c.keyId}|${c.lang}`));
  const keyIds = [...new Set(cells.map((c) => c.keyId))];
  const langs = [...new Set(cells.map((c) => c.lang))];
  for (const part of chunks(keyIds, 400)) {
    const rows = (
      await trx('translations as t')
        .join('keys as k', 'k.id', 't.key_id')
        .whereIn('t.key_id', part)
        .whereIn('t.lang', langs)
        .whereNotNull('t.value')
        .whereNot('t.status', 'pending')
        .whereNull('t.outdated_at')
        .select<CellRead[]>(
          't.key_id',
          't.lang',
          't.value',
          't.status',
          't.origin',
          't.updated_at',
          'k.source',
          'k.ctx',
        )
    ).filter((r) => wanted.has(`${r.key_id}|${r.lang}`));
    if (rows.length) await upsertCells(trx, p, scope, rows);
  }
}

/**
 * rememberCells in a transaction of its own, once the cells' writer has committed: the AI fill's and a person's
 * writes hold locks that pushes and other saves wait for (the fill's pairs, an edited cell's row), and on MySQL a
 * longer hold is more deadlocks lost. It reads the cells as they then are, so it mirrors whatever they hold; it is
 * retried on contention, and a failure is logged and left to the cell's next change: the memory is derived from
 * the cells, which stand.
 */
export async function rememberAfter(
  db: Db,
  log: Logger,
  p: MemoryProject,
  cells: Array<{ keyId: number; lang: string }>,
): Promise<void> {
  if (!memoryScope(p) || !cells.length) return;
  try {
    await retryContended(() => db.transaction((trx) => rememberCells(trx, p, cells)));
  } catch (err) {
    log.warn({ err, projectId: p.id }, 'writing translation memory entries failed');
  }
}

/** A cell as rememberCells reads it: its value and status, and its key's source and ctx. */
export type CellRead = RememberedCell;

/** rememberCells for cells the caller has just read (with their key's source and ctx), in its transaction. */
export async function rememberRows(trx: Db, p: MemoryProject, rows: CellRead[]): Promise<void> {
  const scope = memoryScope(p);
  if (!scope || !rows.length) return;
  for (let i = 0; i < rows.length; i += 4_000) await upsertCells(trx, p, scope, rows.slice(i, i + 4_000));
}

async function upsertCells(trx: Db, p: MemoryProject, scope: string, rows: CellRead[]): Promise<void> {
  const keyOf = new Map<number, { source: string; ctx: string | null }>();
  for (const r of rows) keyOf.set(Number(r.key_id), { source: r.source, ctx: r.ctx });
  const keyIds = [...keyOf.keys()];
  const segIds = await ensureSegments(
    trx,
    scope,
    p.base_lang,
    keyIds.map((id) => keyOf.get(id)!),
    Date.now(),
  );
  const segmentOf = new Map(keyIds.map((id, i) => [id, segIds[i]]));
  const langs = [...new Set(rows.map((r) => r.lang))];
  const existing = new Map<string, { id: number; target: string; origin: string; status: string }>();
  // Through the segments' index: a cell's entry is its key's entry of its source's segment. No list of languages
  // in the statement: SQLite would probe every (segment, language, key) combination of three IN lists.
  const wantedLangs = new Set(langs);
  for (const e of (
    await trx('memory_entries')
      .whereIn('segment_id', [...new Set(segIds)])
      .whereIn('key_id', keyIds)
      .select('id', 'key_id', 'target_lang', 'segment_id', 'target', 'origin', 'status')
  ).filter((r) => wantedLangs.has(r.target_lang)))
    existing.set(`${e.key_id}|${e.target_lang}|${e.segment_id}`, {
      id: Number(e.id),
      target: e.target,
      origin: e.origin,
      status: e.status,
    });
  const inserts: Array<Record<string, unknown>> = [];
  // Entries whose target stays: one UPDATE per (status, origin, time) for all of them.
  const moves = new Map<string, number[]>();
  for (const r of rows) {
    const keyId = Number(r.key_id);
    const segment = segmentOf.get(keyId)!;
    const origin = r.origin ?? 'edit';
    const at = Number(r.updated_at);
    const e = existing.get(`${keyId}|${r.lang}|${segment}`);
    if (!e)
      inserts.push({
        segment_id: segment,
        target_lang: r.lang,
        // The key names the project (a cell's entry); the column is for imported entries, which have no key.
        project_id: null,
        key_id: keyId,
        target: r.value,
        origin,
        status: r.status,
        updated_at: at,
      });
    else if (e.target !== r.value)
      await trx('memory_entries')
        .where({ id: e.id })
        .update({ target: r.value, origin, status: r.status, updated_at: at });
    else if (e.origin !== origin || e.status !== r.status) {
      const group = `${r.status}\u0000${origin}\u0000${at}`;
      const ids = moves.get(group);
      if (ids) ids.push(e.id);
      else moves.set(group, [e.id]);
    }
  }
  await insertRows(trx, 'memory_entries', inserts);
  for (const [group, ids] of moves) {
    const [status, origin, at] = group.split('\u0000');
    for (const part of chunks(ids))
      await trx('memory_entries')
        .whereIn('id', part)
        .update({ status, origin, updated_at: Number(at) });
  }
}

/** An entry to add in bulk (an import), with no key or cell behind it. */
export interface NewEntry {
  sourceLang: string;
  targetLang: string;
  source: string;
  target: string;
  ctx?: string | null;
  status: EntryStatus;
}

/**
 * Adds imported entries (origin `import`, no key) to a workspace's shared memory (`{workspaceId}`) or to a
 * project's (`{project}`: its own when isolated or off, the shared one when shared, under the project's name). An
 * entry the memory already holds (the same source, ctx, languages, target, and place) is not added twice; one with
 * another status is given the new status. Runs in the caller's transaction, or in one of its own.
 */
export async function addEntries(
  db: Db,
  into: { workspaceId: string } | { project: MemoryProject },
  entries: NewEntry[],
  now = Date.now(),
): Promise<{ added: number; unchanged: number; updated: number }> {
  const isWorkspace = 'workspaceId' in into;
  const scope = isWorkspace
    ? into.workspaceId
    : scopeFor(into.project, memorySettings(into.project).sharing === 'shared' ? 'shared' : 'isolated');
  const projectId = isWorkspace ? null : into.project.id;
  const counts = { added: 0, unchanged: 0, updated: 0 };
  const bySourceLang = new Map<string, NewEntry[]>();
  for (const e of entries) {
    const list = bySourceLang.get(e.sourceLang);
    if (list) list.push(e);
    else bySourceLang.set(e.sourceLang, [e]);
  }
  await runIn(db, async (trx) => {
    for (const [sourceLang, list] of bySourceLang)
      for (const part of chunks(list, 400)) {
        const segIds = await ensureSegments(
          trx,
          scope,
          sourceLang,
          part.map((e) => ({ source: e.source, ctx: e.ctx ?? null })),
          now,
        );
        const held = new Map<string, { id: number; status: string }>();
        const q = trx('memory_entries')
          .whereIn('segment_id', [...new Set(segIds)])
          .whereNull('key_id')
          .select('id', 'segment_id', 'target_lang', 'target', 'status');
        if (projectId) q.where('project_id', projectId);
        else q.whereNull('project_id');
        for (const r of await q)
          held.set(`${r.segment_id}\u0000${r.target_lang}\u0000${r.target}`, { id: Number(r.id), status: r.status });
        const rows: Array<Record<string, unknown>> = [];
        for (const [n, e] of part.entries()) {
          const id = `${segIds[n]}\u0000${e.targetLang}\u0000${e.target}`;
          const h = held.get(id);
          if (h && h.status === e.status) counts.unchanged++;
          else if (h) {
            await trx('memory_entries').where({ id: h.id }).update({ status: e.status, updated_at: now });
            h.status = e.status;
            counts.updated++;
          } else {
            held.set(id, { id: 0, status: e.status });
            rows.push({
              segment_id: segIds[n],
              target_lang: e.targetLang,
              project_id: projectId,
              key_id: null,
              target: e.target,
              origin: 'import',
              status: e.status,
              updated_at: now,
            });
          }
        }
        await insertRows(trx, 'memory_entries', rows);
        counts.added += rows.length;
      }
  });
  return counts;
}

/** An entry as pageEntries reads it. */
export interface EntryView {
  id: number;
  sourceLang: string;
  targetLang: string;
  source: string;
  target: string;
  ctx: string | null;
  projectId: string | null;
  /** The key whose cell it mirrors, by name; null for an imported entry. */
  key: string | null;
  origin: EntryOrigin;
  status: EntryStatus;
  updatedAt: number;
}

interface SegmentRow {
  id: number | string;
  source_lang: string;
  source: string;
  ctx: string | null;
}

interface PageRow {
  id: number | string;
  segment_id: number | string;
  target_lang: string;
  target: string;
  project_id: string | null;
  key_name: string | null;
  origin: string;
  status: string;
  updated_at: number | string;
}

/** The entries of `segments` (of project `projectId` only, when given), with their key's name and project. */
async function entriesOfSegments(db: Db, segments: number[], projectId: string | null, afterEntry = 0) {
  const rows: PageRow[] = [];
  for (const part of chunks(segments)) {
    const q = db('memory_entries as e')
      .leftJoin('keys as k', 'k.id', 'e.key_id')
      .whereIn('e.segment_id', part)
      .select(
        'e.id',
        'e.segment_id',
        'e.target_lang',
        'e.target',
        db.raw('COALESCE(e.project_id, k.project_id) AS project_id'),
        'k.name as key_name',
        'e.origin',
        'e.status',
        'e.updated_at',
      );
    if (afterEntry) q.andWhere('e.id', '>', afterEntry);
    if (projectId)
      q.andWhere((w) => {
        w.where('e.project_id', projectId).orWhere('k.project_id', projectId);
      });
    rows.push(...((await q) as PageRow[]));
  }
  return rows;
}

/**
 * One page of the entries of a workspace's shared memory (`{workspaceId}`) or of the entries a project wrote or
 * imported (`{project}`, in the memory it now belongs to), after `cursor` (null: from the start), in a stable
 * order (the memory's segments by id, each segment's entries by id). Each read is a range of an index: the rest of
 * the segment the last page ended in, then the next segments by the segments' scope index and their entries by the
 * entries' segment index (a condition on both ids at once, `s.id > ? OR (s.id = ? AND e.id > ?)`, reads the scope
 * from its start on every page). `next` is the cursor of the page after, null after the last.
 */
export async function pageEntries(
  db: Db,
  of: { workspaceId: string } | { project: MemoryProject },
  cursor: string | null,
  limit = 500,
): Promise<{ entries: EntryView[]; next: string | null }> {
  const [afterSegment, afterEntry] = (cursor ?? '0.0').split('.').map((n) => Number(n) || 0);
  const scope =
    'workspaceId' in of
      ? of.workspaceId
      : scopeFor(of.project, memorySettings(of.project).sharing === 'shared' ? 'shared' : 'isolated');
  const projectId = 'project' in of ? of.project.id : null;
  const segments = new Map<number, SegmentRow>();
  const rows: PageRow[] = [];
  const byOrder = (a: PageRow, b: PageRow) =>
    Number(a.segment_id) - Number(b.segment_id) || Number(a.id) - Number(b.id);
  const columns = ['id', 'source_lang', 'source', 'ctx'];
  if (afterEntry) {
    const [seg] = await db('memory_segments')
      .where({ id: afterSegment, scope_id: scope })
      .select<SegmentRow[]>(...columns);
    if (seg) {
      segments.set(afterSegment, seg);
      rows.push(...(await entriesOfSegments(db, [afterSegment], projectId, afterEntry)).sort(byOrder));
    }
  }
  let after = afterSegment;
  let exhausted = false;
  while (rows.length <= limit && !exhausted) {
    // Segments a page at a time: most hold an entry or a few (a source in each of its languages).
    const want = Math.max(limit, 100);
    // MariaDB reads `scope_id = ? AND id > ?` as a ref of the scope index from its start, filtering the ids (ICP),
    // which is every earlier page again; told the index, it reads the range (scope_id, id) that follows the cursor.
    const segs: SegmentRow[] = await db(
      dialectOf(db) === 'mysql'
        ? db.raw('memory_segments FORCE INDEX (memory_segments_scope_index)')
        : 'memory_segments',
    )
      .where('scope_id', scope)
      .andWhere('id', '>', after)
      .orderBy('id')
      .limit(want)
      .select<SegmentRow[]>(...columns);
    exhausted = segs.length < want;
    if (!segs.length) break;
    for (const g of segs) segments.set(Number(g.id), g);
    after = Number(segs[segs.length - 1].id);
    rows.push(
      ...(
        await entriesOfSegments(
          db,
          segs.map((g) => Number(g.id)),
          projectId,
        )
      ).sort(byOrder),
    );
  }
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const more = rows.length > limit || !exhausted;
  return {
    entries: page.map((r) => {
      const seg = segments.get(Number(r.segment_id))!;
      return {
        id: Number(r.id),
        sourceLang: seg.source_lang,
        targetLang: r.target_lang,
        source: seg.source,
        target: r.target,
        ctx: seg.ctx,
        projectId: r.project_id,
        key: r.key_name ?? null,
        origin: r.origin as EntryOrigin,
        status: r.status as EntryStatus,
        updatedAt: Number(r.updated_at),
      };
    }),
    next: !more ? null : last ? `${Number(last.segment_id)}.${Number(last.id)}` : `${after}.0`,
  };
}

/**
 * Moves the entries project `p` wrote or imported from the memory `from` to the memory `to` (its sharing changed),
 * in the caller's transaction: each finds or adds its source in `to`, and a source left without entries in `from`
 * is removed. Entries of other projects and of the workspace stay where they are.
 */
async function moveProjectEntries(trx: Db, p: MemoryProject, from: string, to: string): Promise<number> {
  if (from === to) return 0;
  let moved = 0;
  let after = 0;
  const now = Date.now();
  for (;;) {
    const rows = await trx('memory_entries as e')
      .join('memory_segments as s', 's.id', 'e.segment_id')
      .leftJoin('keys as k', 'k.id', 'e.key_id')
      .where('s.scope_id', from)
      .andWhere((w) => {
        w.where('e.project_id', p.id).orWhere('k.project_id', p.id);
      })
      .andWhere('e.id', '>', after)
      .orderBy('e.id')
      .limit(1_000)
      .select<
        Array<{
          id: number | string;
          segment_id: number | string;
          source_lang: string;
          source: string;
          ctx: string | null;
        }>
      >('e.id', 'e.segment_id', 's.source_lang', 's.source', 's.ctx');
    if (!rows.length) return moved;
    after = Number(rows[rows.length - 1].id);
    const bySourceLang = new Map<string, typeof rows>();
    for (const r of rows) {
      const list = bySourceLang.get(r.source_lang);
      if (list) list.push(r);
      else bySourceLang.set(r.source_lang, [r]);
    }
    for (const [sourceLang, list] of bySourceLang) {
      const segIds = await ensureSegments(trx, to, sourceLang, list, now);
      const byTarget = new Map<number, number[]>();
      list.forEach((r, n) => {
        const ids = byTarget.get(segIds[n]);
        if (ids) ids.push(Number(r.id));
        else byTarget.set(segIds[n], [Number(r.id)]);
      });
      for (const [segment, ids] of byTarget)
        for (const part of chunks(ids)) await trx('memory_entries').whereIn('id', part).update({ segment_id: segment });
    }
    await dropOrphanSegments(
      trx,
      rows.map((r) => Number(r.segment_id)),
    );
    moved += rows.length;
  }
}

/**
 * What a change of the project's sharing (internalUpdateProject `memorySharing`) does to its memory, in the
 * caller's transaction: the entries it wrote move into the memory it now belongs to (its own for `isolated` and
 * `off`, where what it wrote stays frozen; the workspace's for `shared`).
 */
export async function changeSharing(trx: Db, p: MemoryProject, to: Sharing): Promise<number> {
  const own = (s: Sharing) => scopeFor(p, s === 'shared' ? 'shared' : 'isolated');
  return moveProjectEntries(trx, p, own(memorySettings(p).sharing), own(to));
}
