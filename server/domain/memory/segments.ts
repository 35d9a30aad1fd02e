// The segments of a memory (migration 027 `memory_segments`): one row per distinct (scope, source language, source,
// ctx), and the candidate index over their words: SQLite's FTS5 table `memory_fts`, MySQL's FULLTEXT index on
// `tokens`. Every write of a segment goes through here, so the index and the table never part.
import type { Db } from '../../infra/db.js';
import { chunks, dialectOf } from '../../infra/db.js';
import { indexTokens, normKey, normalize, type Normalized } from './normalize.js';

/** A source to find or add in a memory. */
export interface SegmentKey {
  source: string;
  ctx: string | null;
  read?: Normalized;
}

export interface SegmentRow {
  id: number;
  source: string;
  ctx: string | null;
}

/** The salt of a memory's index tokens (normalize.ts indexTokens): its scope and source language. */
export const tokenSalt = (scope: string, sourceLang: string) => `${scope}\u0000${sourceLang}`;

const identity = (source: string, ctx: string | null) => `${ctx ?? '\u0000'}\u0001${source}`;

/** The segments of `scope`/`sourceLang` whose normalised source has one of `keys` (normKey), with their text. */
export async function segmentsByKey(
  db: Db,
  scope: string,
  sourceLang: string,
  keys: number[],
): Promise<Array<SegmentRow & { norm_key: number }>> {
  const out: Array<SegmentRow & { norm_key: number }> = [];
  for (const part of chunks([...new Set(keys)], 500)) {
    const rows = await db('memory_segments')
      .where({ scope_id: scope, source_lang: sourceLang })
      .whereIn('norm_key', part)
      .select('id', 'source', 'ctx', 'norm_key');
    for (const r of rows) out.push({ id: Number(r.id), source: r.source, ctx: r.ctx, norm_key: Number(r.norm_key) });
  }
  return out;
}

/**
 * The segment of each source in `scope`/`sourceLang`, added where the memory has none yet (and indexed), in the
 * caller's transaction. Two writers adding the same source at once may each add one: both are true, and both are
 * found.
 */
export async function ensureSegments(
  trx: Db,
  scope: string,
  sourceLang: string,
  items: SegmentKey[],
  now: number,
): Promise<number[]> {
  const reads = items.map((it) => it.read ?? normalize(it.source));
  const keys = reads.map((r) => normKey(r.norm));
  const found = new Map<string, number>();
  for (const s of await segmentsByKey(trx, scope, sourceLang, keys)) {
    const id = identity(s.source, s.ctx);
    const known = found.get(id);
    if (known === undefined || s.id < known) found.set(id, s.id);
  }
  const missing = new Map<string, number>();
  items.forEach((it, i) => {
    const id = identity(it.source, it.ctx);
    if (!found.has(id) && !missing.has(id)) missing.set(id, i);
  });
  if (missing.size) {
    const mysql = dialectOf(trx) === 'mysql';
    const salt = tokenSalt(scope, sourceLang);
    const rows = [...missing.values()].map((i) => ({
      scope_id: scope,
      source_lang: sourceLang,
      source: items[i].source,
      ctx: items[i].ctx,
      norm_key: keys[i],
      created_at: now,
      ...(mysql ? { tokens: indexTokens(reads[i].norm, salt).join(' ') } : {}),
    }));
    for (const part of chunks(rows, 200)) await trx('memory_segments').insert(part);
    // The new rows' ids, read back by their keys (a multi-row insert reports one id on MySQL, the last on SQLite).
    const added = await segmentsByKey(
      trx,
      scope,
      sourceLang,
      rows.map((r) => r.norm_key),
    );
    const fresh: Array<{ id: number; tokens: string }> = [];
    for (const s of added) {
      const id = identity(s.source, s.ctx);
      if (found.has(id) || !missing.has(id)) continue;
      found.set(id, s.id);
      if (!mysql) fresh.push({ id: s.id, tokens: indexTokens(reads[missing.get(id)!].norm, salt).join(' ') });
    }
    for (const part of chunks(fresh, 200))
      await trx.raw(
        `INSERT INTO memory_fts (rowid, tokens) VALUES ${part.map(() => '(?, ?)').join(', ')}`,
        part.flatMap((f) => [f.id, f.tokens]),
      );
  }
  return items.map((it) => found.get(identity(it.source, it.ctx))!);
}

/** Removes the segments among `ids` that no entry names any more, with their index rows. */
export async function dropOrphanSegments(trx: Db, ids: number[]): Promise<number> {
  let dropped = 0;
  for (const part of chunks([...new Set(ids)], 400)) {
    const used = new Set(
      (await trx('memory_entries').whereIn('segment_id', part).distinct('segment_id')).map((r) => Number(r.segment_id)),
    );
    const orphans = part.filter((id) => !used.has(id));
    if (!orphans.length) continue;
    if (dialectOf(trx) === 'sqlite')
      await trx.raw(`DELETE FROM memory_fts WHERE rowid IN (${orphans.map(() => '?').join(', ')})`, orphans);
    dropped += await trx('memory_segments').whereIn('id', orphans).delete();
  }
  return dropped;
}

/** Up to `limit` segment ids whose words best match `tokens` (normalize.ts indexTokens), best first. */
export async function candidateSegments(db: Db, tokens: string[], limit: number): Promise<number[]> {
  if (!tokens.length) return [];
  if (dialectOf(db) === 'mysql') {
    const words = tokens.join(' ');
    const [rows] = (await db.raw(
      'SELECT id FROM memory_segments WHERE MATCH (tokens) AGAINST (?) ORDER BY MATCH (tokens) AGAINST (?) DESC LIMIT ?',
      [words, words, limit],
    )) as [Array<{ id: number | string }>, unknown];
    return rows.map((r) => Number(r.id));
  }
  const rows = (await db.raw('SELECT rowid AS id FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank LIMIT ?', [
    tokens.join(' OR '),
    limit,
  ])) as Array<{ id: number }>;
  return rows.map((r) => Number(r.id));
}
