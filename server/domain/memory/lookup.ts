// Reading a memory: the matches of a request (scored by score.ts) from two sources of candidates, never a scan of
// the entries: the segments with the same normalised source (the `norm_key` index), and the segments the full-text
// index ranks best for the request's words (segments.ts candidateSegments). Candidates are segments; their entries
// in the languages asked for are then read by segment and scored in JS.
import type { Db } from '../../infra/db.js';
import { chunks } from '../../infra/db.js';
import { indexTokens, normKey, normalize, type Normalized } from './normalize.js';
import { compareMatches, matchRequest, scoreEntry, scoreSource, trusted, EXACT, type MatchRequest } from './score.js';
import { candidateSegments, candidateSegmentsMany, segmentsByKey, tokenSalt } from './segments.js';
import { memoryScope, memorySettings } from './settings.js';
import type { EntryOrigin, EntryStatus, MemoryProject } from './entries.js';

/** A scored entry. */
export interface Match {
  entryId: number;
  score: number;
  /** The stored source as written. */
  source: string;
  /** The stored target, its placeholders renamed into the request's where the match is exact. */
  target: string;
  ctx: string | null;
  origin: EntryOrigin;
  status: EntryStatus;
  projectId: string | null;
  key: string | null;
  updatedAt: number;
  /** Whether it may pre-translate (score.ts trusted): a person made, imported, reviewed or approved it. */
  trusted: boolean;
}

/** A request to the memory: a source in the project's base language, for one target language. */
export interface MemoryQuery {
  source: string;
  ctx: string | null;
  key: string | null;
  lang: string;
}

/** How many segments the index is asked for per request: a suggestion, and a key of a fill (references). */
const CANDIDATES = 40;
const KEY_CANDIDATES = 20;
/** Sources read beyond a key's `limit` best, for languages some of them lack. */
const SPARE_SOURCES = 5;

interface SegmentText {
  id: number;
  source: string;
  ctx: string | null;
  read: Normalized;
}

interface EntryRow {
  id: number | string;
  segment_id: number | string;
  target_lang: string;
  target: string;
  origin: string;
  status: string;
  project_id: string | null;
  updated_at: number | string;
  key_name: string | null;
}

/** The segments `ids` of `scope`/`sourceLang` (ids of another memory, a hash's false friends, are dropped). */
async function segmentTexts(
  db: Db,
  scope: string,
  sourceLang: string,
  ids: number[],
): Promise<Map<number, SegmentText>> {
  const out = new Map<number, SegmentText>();
  for (const part of chunks([...new Set(ids)], 500))
    for (const r of await db('memory_segments')
      .whereIn('id', part)
      .where({ scope_id: scope, source_lang: sourceLang })
      .select('id', 'source', 'ctx'))
      out.set(Number(r.id), { id: Number(r.id), source: r.source, ctx: r.ctx, read: normalize(r.source) });
  return out;
}

/**
 * The entries of `segments` in `langs`, by segment; `keys`: with the name of the key each mirrors and its project
 * (a 101 needs the name). Without, the key's row is not read.
 */
async function entriesOf(db: Db, segments: number[], langs: string[], keys = true): Promise<Map<number, EntryRow[]>> {
  const out = new Map<number, EntryRow[]>();
  for (const part of chunks([...new Set(segments)], 500)) {
    const q = db('memory_entries as e').whereIn('e.segment_id', part).whereIn('e.target_lang', langs);
    const rows = keys
      ? await q
          .leftJoin('keys as k', 'k.id', 'e.key_id')
          .select<EntryRow[]>(
            'e.id',
            'e.segment_id',
            'e.target_lang',
            'e.target',
            'e.origin',
            'e.status',
            db.raw('COALESCE(e.project_id, k.project_id) AS project_id'),
            'e.updated_at',
            'k.name as key_name',
          )
      : await q.select<EntryRow[]>(
          'e.id',
          'e.segment_id',
          'e.target_lang',
          'e.target',
          'e.origin',
          'e.status',
          'e.project_id',
          'e.updated_at',
          db.raw('NULL AS key_name'),
        );
    for (const r of rows) {
      const list = out.get(Number(r.segment_id));
      if (list) list.push(r);
      else out.set(Number(r.segment_id), [r]);
    }
  }
  return out;
}

/** The matches of `req` among `segments`' entries in `lang`, best first. */
function scoreAll(req: MatchRequest, lang: string, segments: SegmentText[], entries: Map<number, EntryRow[]>): Match[] {
  return scoreLangs(req, [lang], segments, entries).get(lang) ?? [];
}

/** The matches of `req` among `segments`' entries, by language of `langs`, best first: each source scored once. */
function scoreLangs(
  req: MatchRequest,
  langs: string[],
  segments: SegmentText[],
  entries: Map<number, EntryRow[]>,
  minScore = 0,
): Map<string, Match[]> {
  const out = new Map<string, Match[]>(langs.map((l) => [l, []]));
  for (const s of segments) {
    const mine = entries.get(s.id);
    if (!mine?.length) continue;
    const src = { source: s.source, ...scoreSource(req, s) };
    // A 101 is one more than the source's own score: a source under the floor by more cannot reach it.
    if (src.score + 1 < minScore) continue;
    for (const e of mine) {
      const list = out.get(e.target_lang);
      if (!list) continue;
      const m = scoreEntry(req, src, { key: e.key_name ?? null, target: e.target });
      if (m.score < minScore) continue;
      list.push({
        entryId: Number(e.id),
        score: m.score,
        source: s.source,
        target: m.target,
        ctx: s.ctx,
        origin: e.origin as EntryOrigin,
        status: e.status as EntryStatus,
        projectId: e.project_id,
        key: e.key_name ?? null,
        updatedAt: Number(e.updated_at),
        trusted: trusted(e),
      });
    }
  }
  for (const list of out.values()) list.sort(compareMatches);
  return out;
}

/**
 * For each query, the best match that may pre-translate it: a score of 100 or 101 from a trusted entry (score.ts
 * `trusted`), by index in `queries`. Only the `norm_key` index is read. Empty when the project's memory is off.
 */
export async function exactMatches(db: Db, p: MemoryProject, queries: MemoryQuery[]): Promise<Map<number, Match>> {
  const out = new Map<number, Match>();
  const scope = memoryScope(p);
  if (!scope || !queries.length) return out;
  const reqs = queries.map((q) => matchRequest(q.source, q.ctx, q.key));
  const keys = reqs.map((r) => normKey(r.read.norm));
  const rows = await segmentsByKey(db, scope, p.base_lang, keys);
  if (!rows.length) return out;
  const byNorm = new Map<string, SegmentText[]>();
  for (const r of rows) {
    const read = normalize(r.source);
    const list = byNorm.get(read.norm);
    const s = { id: r.id, source: r.source, ctx: r.ctx, read };
    if (list) list.push(s);
    else byNorm.set(read.norm, [s]);
  }
  const langs = [...new Set(queries.map((q) => q.lang))];
  const entries = await entriesOf(
    db,
    rows.map((r) => r.id),
    langs,
  );
  queries.forEach((q, i) => {
    const segments = byNorm.get(reqs[i].read.norm);
    if (!segments) return;
    const best = scoreAll(reqs[i], q.lang, segments, entries).find((m) => m.score >= EXACT && m.trusted);
    if (best) out.set(i, best);
  });
  return out;
}

/** The candidate segments of a request: the same normalised source, and the full-text index's best. */
async function candidatesOf(db: Db, scope: string, sourceLang: string, req: MatchRequest): Promise<number[]> {
  const exact = await segmentsByKey(db, scope, sourceLang, [normKey(req.read.norm)]);
  const fuzzy = await candidateSegments(db, indexTokens(req.read.norm, tokenSalt(scope, sourceLang)), CANDIDATES);
  return [...new Set([...exact.map((s) => s.id), ...fuzzy])];
}

/**
 * The best matches of a request (spec: getMemorySuggestions), at least `minScore`, best first, at most `limit`; the
 * same source and target offered twice (two projects' identical entries) is offered once, as its best.
 */
export async function suggest(
  db: Db,
  p: MemoryProject,
  q: MemoryQuery,
  opts: { limit: number; minScore: number },
): Promise<Match[]> {
  const scope = memoryScope(p);
  if (!scope) return [];
  const req = matchRequest(q.source, q.ctx, q.key);
  const ids = await candidatesOf(db, scope, p.base_lang, req);
  if (!ids.length) return [];
  const segments = [...(await segmentTexts(db, scope, p.base_lang, ids)).values()].filter(
    (s) => scoreSource(req, s).score + 1 >= opts.minScore,
  );
  const entries = await entriesOf(
    db,
    segments.map((s) => s.id),
    [q.lang],
  );
  const seen = new Set<string>();
  const out: Match[] = [];
  for (const m of scoreAll(req, q.lang, segments, entries)) {
    if (m.score < opts.minScore) break;
    const id = `${m.source}\u0000${m.ctx ?? ''}\u0000${m.target}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(m);
    if (out.length >= opts.limit) break;
  }
  return out;
}

/** A key asking the memory for every language in `langs` at once (the fill's references, the leverage). */
export interface KeyQuery {
  keyId: number;
  source: string;
  ctx: string | null;
  name: string;
}

/**
 * The matches of each key in each of `langs` scoring at least `minScore`, best first, at most `limit` per pair,
 * by `keyId|lang`. One full-text query per key (the candidates hold for every language).
 */
export async function matchesForKeys(
  db: Db,
  p: MemoryProject,
  keys: KeyQuery[],
  langs: string[],
  opts: { limit: number; minScore: number },
): Promise<Map<string, Match[]>> {
  const out = new Map<string, Match[]>();
  const scope = memoryScope(p);
  if (!scope || !keys.length || !langs.length) return out;
  // An empty memory (a new workspace, a first push) answers at once.
  if (!(await db('memory_segments').where({ scope_id: scope, source_lang: p.base_lang }).first('id'))) return out;
  const reqs = keys.map((k) => matchRequest(k.source, k.ctx, k.name));
  const salt = tokenSalt(scope, p.base_lang);
  const exact = new Map<number, number[]>();
  for (const s of await segmentsByKey(
    db,
    scope,
    p.base_lang,
    reqs.map((r) => normKey(r.read.norm)),
  )) {
    const list = exact.get(s.norm_key);
    if (list) list.push(s.id);
    else exact.set(s.norm_key, [s.id]);
  }
  const fuzzy = await candidateSegmentsMany(
    db,
    reqs.map((r) => indexTokens(r.read.norm, salt)),
    KEY_CANDIDATES,
  );
  const ids = reqs.map((r, i) => [...new Set([...(exact.get(normKey(r.read.norm)) ?? []), ...fuzzy[i]])]);
  const segments = await segmentTexts(db, scope, p.base_lang, ids.flat());
  // Sources under the floor are dropped before their entries are read (most candidates are); of the rest, the best
  // `limit` are read first, and the next ones only for the languages those lack.
  const ranked = ids.map((list, i) =>
    list
      .map((id) => segments.get(id))
      .filter((s): s is SegmentText => s !== undefined)
      .map((s) => ({ s, score: scoreSource(reqs[i], s).score }))
      .filter((x) => x.score + 1 >= opts.minScore)
      .sort((a, b) => b.score - a.score)
      .map((x) => x.s),
  );
  // Matches in context (101) are the exact lookup's: here an entry's key is not read.
  const first = await entriesOf(
    db,
    ranked.flatMap((r) => r.slice(0, opts.limit).map((s) => s.id)),
    langs,
    false,
  );
  const short = new Set<number>();
  keys.forEach((k, i) => {
    const found = scoreLangs(reqs[i], langs, ranked[i].slice(0, opts.limit), first, opts.minScore);
    for (const [lang, matches] of found) {
      if (matches.length) out.set(`${k.keyId}|${lang}`, matches);
      if (matches.length < opts.limit && ranked[i].length > opts.limit) short.add(i);
    }
  });
  if (!short.size) return out;
  const spare = (i: number) => ranked[i].slice(opts.limit, opts.limit + SPARE_SOURCES);
  const more = await entriesOf(
    db,
    [...short].flatMap((i) => spare(i).map((s) => s.id)),
    langs,
    false,
  );
  for (const i of short)
    for (const [lang, matches] of scoreLangs(reqs[i], langs, spare(i), more, opts.minScore)) {
      const pair = `${keys[i].keyId}|${lang}`;
      const all = [...(out.get(pair) ?? []), ...matches].sort(compareMatches).slice(0, opts.limit);
      if (all.length) out.set(pair, all);
    }
  return out;
}

/** How many references a pair's engine request carries at most. */
const MAX_REFERENCES = 3;

/** A fuzzy match as the engine gets it (server/infra/engines/types.ts TranslationReference). */
export interface Reference {
  source: string;
  target: string;
  score: number;
}

/**
 * The references of the fill's pairs: each key's best matches in each language at or above the project's
 * threshold, by `keyId|lang`. Empty when the project's memory is off.
 */
export async function referencesFor(
  db: Db,
  p: MemoryProject,
  keys: KeyQuery[],
  langs: string[],
): Promise<Map<string, Reference[]>> {
  const found = await matchesForKeys(db, p, keys, langs, {
    limit: MAX_REFERENCES,
    minScore: memorySettings(p).threshold,
  });
  const out = new Map<string, Reference[]>();
  for (const [pair, matches] of found)
    out.set(
      pair,
      matches.map((m) => ({ source: m.source, target: m.target, score: Math.min(m.score, EXACT) })),
    );
  return out;
}
