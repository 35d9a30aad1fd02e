// The segments of a memory (migration 027 `memory_segments`): one row per distinct (scope, source language, source,
// ctx), and the candidate index over their words (`memory_tokens`, normalize.ts indexTokens). Every write of a
// segment goes through here, so the index and the table never part.
import type { Db } from '../../infra/db.js';
import { chunks, dialectOf, hotRead } from '../../infra/db.js';
import { indexTokens, normKey, normalize, type Normalized } from './normalize.js';

/**
 * Inserts `rows` (objects of the same columns) as multi-row VALUES statements of up to 500 rows: Knex writes a
 * multi-row insert for SQLite as a chain of SELECT ... UNION ALL, several times slower to compile and run
 * (server/domain/fill/fill.ts storeValues says the same), and the memory writes tens of thousands of rows a push.
 */
export async function insertRows(trx: Db, table: string, rows: Array<Record<string, unknown>>): Promise<void> {
  if (!rows.length) return;
  const columns = Object.keys(rows[0]);
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  for (const part of chunks(rows, 500))
    await trx.raw(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${part.map(() => tuple).join(', ')}`,
      part.flatMap((r) => columns.map((c) => r[c] as string | number | null)),
    );
}

/** A source to find or add in a memory. */
interface SegmentKey {
  source: string;
  ctx: string | null;
  read?: Normalized;
}

interface SegmentRow {
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
    const salt = tokenSalt(scope, sourceLang);
    const rows = [...missing.values()].map((i) => ({
      scope_id: scope,
      source_lang: sourceLang,
      source: items[i].source,
      ctx: items[i].ctx,
      norm_key: keys[i],
      created_at: now,
    }));
    await insertRows(trx, 'memory_segments', rows);
    // The new rows' ids, read back by their keys (a multi-row insert reports one id on MySQL, the last on SQLite).
    const added = await segmentsByKey(
      trx,
      scope,
      sourceLang,
      rows.map((r) => r.norm_key),
    );
    const postings: Array<[number, number]> = [];
    for (const s of added) {
      const id = identity(s.source, s.ctx);
      if (found.has(id) || !missing.has(id)) continue;
      found.set(id, s.id);
      for (const token of indexTokens(reads[missing.get(id)!].norm, salt)) postings.push([token, s.id]);
    }
    await addPostings(trx, postings);
  }
  return items.map((it) => found.get(identity(it.source, it.ctx))!);
}

async function addPostings(trx: Db, postings: Array<[number, number]>): Promise<void> {
  for (const part of chunks(postings, 400))
    await trx.raw(
      `INSERT INTO memory_tokens (token, segment_id) VALUES ${part.map(() => '(?, ?)').join(', ')}`,
      part.flat(),
    );
}

/** Removes the segments among `ids` that no entry names any more, with their index rows. */
export async function dropOrphanSegments(trx: Db, ids: number[]): Promise<number> {
  let dropped = 0;
  for (const part of chunks([...new Set(ids)], 400)) {
    const used = new Set(
      (await trx('memory_entries').whereIn('segment_id', part).distinct('segment_id')).map((r) => Number(r.segment_id)),
    );
    const orphans = await trx('memory_segments')
      .whereIn(
        'id',
        part.filter((id) => !used.has(id)),
      )
      .select('id', 'scope_id', 'source_lang', 'source');
    if (!orphans.length) continue;
    // The index rows are keyed by token first: the segment's tokens are computed again from its source.
    const postings = orphans.flatMap((o) =>
      indexTokens(normalize(o.source).norm, tokenSalt(o.scope_id, o.source_lang)).map((t) => [t, Number(o.id)]),
    );
    for (const slice of chunks(postings, 400))
      await trx.raw(
        `DELETE FROM memory_tokens WHERE ${slice.map(() => '(token = ? AND segment_id = ?)').join(' OR ')}`,
        slice.flat(),
      );
    dropped += await trx('memory_segments')
      .whereIn(
        'id',
        orphans.map((o) => Number(o.id)),
      )
      .delete();
  }
  return dropped;
}

/** Segments read per token: a common word's list is cut to its newest segments, a rare word's is read whole. */
const POSTINGS_PER_TOKEN = 500;
/** Tokens a lookup reads: the first ones of indexTokens (pairs of words first). */
const QUERY_TOKENS = 32;

/**
 * Up to `limit` segment ids sharing the most informative tokens with `tokens` (normalize.ts indexTokens), best
 * first: each token read as one range of the index, at most POSTINGS_PER_TOKEN rows; a segment scores the sum of
 * 1/n over the tokens it shares, n being how many segments that token's read returned (a rare word, read whole,
 * counts much more than a common one, whose read was cut short).
 */
export async function candidateSegments(db: Db, tokens: number[], limit: number): Promise<number[]> {
  return (await candidateSegmentsMany(db, [tokens], limit))[0];
}

/** Tokens read per statement (SQLite allows 500 terms in a compound SELECT). */
const TOKENS_PER_STATEMENT = 200;

/** candidateSegments for several requests at once: a token they share is read once (the fill's references). */
export async function candidateSegmentsMany(db: Db, lists: number[][], limit: number): Promise<number[][]> {
  const asked = lists.map((tokens) => tokens.slice(0, QUERY_TOKENS));
  const postings = await readPostings(db, [...new Set(asked.flat())]);
  return asked.map((tokens) => {
    const weight = new Map<number, number>();
    for (const t of new Set(tokens)) {
      const ids = postings.get(t);
      if (!ids) continue;
      for (const id of ids) weight.set(id, (weight.get(id) ?? 0) + 1 / ids.length);
    }
    return [...weight]
      .sort((a, b) => b[1] - a[1] || b[0] - a[0])
      .slice(0, limit)
      .map(([id]) => id);
  });
}

/** The segments of each token (its newest POSTINGS_PER_TOKEN), in statements of one range read per token. */
async function readPostings(db: Db, tokens: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  const one = `SELECT token, segment_id FROM memory_tokens WHERE token = ? ORDER BY segment_id DESC LIMIT ${POSTINGS_PER_TOKEN}`;
  if (dialectOf(db) === 'sqlite' && !db.isTransaction) {
    // One prepared statement run per token, its ids read as plain numbers: a fill's keys read some hundred thousand
    // rows, and row objects through Knex cost more than the reads themselves.
    return hotRead(db, (prepare) => {
      const stmt = (
        prepare(
          `SELECT segment_id FROM memory_tokens WHERE token = ? ORDER BY segment_id DESC LIMIT ${POSTINGS_PER_TOKEN}`,
        ) as unknown as {
          pluck(on: boolean): { all(token: number): number[] };
        }
      ).pluck(true);
      for (const t of tokens) {
        const ids = stmt.all(t);
        if (ids.length) out.set(t, ids);
      }
      return out;
    });
  }
  const mysql = dialectOf(db) === 'mysql';
  for (const part of chunks(tokens, TOKENS_PER_STATEMENT)) {
    const sql = part.map(() => (mysql ? `(${one})` : `SELECT * FROM (${one})`)).join(' UNION ALL ');
    const raw = (await db.raw(sql, part)) as unknown;
    // mysql2 answers [rows, fields]; better-sqlite3 the rows.
    const rows = (mysql ? (raw as [unknown[]])[0] : raw) as Array<{
      token: number | string;
      segment_id: number | string;
    }>;
    for (const r of rows) {
      const t = Number(r.token);
      const list = out.get(t);
      if (list) list.push(Number(r.segment_id));
      else out.set(t, [Number(r.segment_id)]);
    }
  }
  return out;
}
