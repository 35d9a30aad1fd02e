// The score of a stored entry against a request (docs/decisions/0021-translation-memory.md, "The score"), from 0 to
// 101, and the bands a leverage analysis counts by:
//   101  the same source (as written), the same ctx and the same key name: a match in context;
//   100  the same normalised source (normalize.ts: case, whitespace, placeholder names) and the same ctx, with
//        placeholders that map one to one: the stored target, placeholders renamed, is the translation;
//   <100 otherwise: floor(100 x similarity) of the normalised texts, at most 99. An entry whose ctx differs from
//        the request's, or whose placeholders do not map one to one, is at most 99 too: a reference, never the
//        translation.
// similarity = max(1 - dChars / max(charsA, charsB), 1 - dWords / max(wordsA, wordsB)): Levenshtein distance on
// characters (a placeholder is one character) and on words (a word, a placeholder or a punctuation mark is one
// token). A copy edit of a letter scores high on characters, a changed word in a long sentence on words.
import { distance } from 'fastest-levenshtein';
import { adaptTarget, normalize, placeholderMap, type Normalized } from './normalize.js';

const IN_CONTEXT = 101;
export const EXACT = 100;

/** The request side of a match. */
export interface MatchRequest {
  source: string;
  ctx: string | null;
  /** The key name it is asked for, if any (a 101 needs the same one). */
  key: string | null;
  read: Normalized;
}

/** A stored entry's side. */
interface MatchCandidate {
  source: string;
  ctx: string | null;
  key: string | null;
  target: string;
  read?: Normalized;
}

export function matchRequest(source: string, ctx: string | null = null, key: string | null = null): MatchRequest {
  return { source, ctx, key, read: normalize(source) };
}

// Word tokens for the word distance: words, CJK and Thai characters one by one, each other non-space character.
const WORD_TOKENS =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]|[\p{L}\p{M}\p{N}]+|[^\s\p{L}\p{M}\p{N}]/gu;

/** Both texts as strings of one code unit per word, so a character distance counts words. */
function asWordStrings(a: string, b: string): [string, string] {
  const ids = new Map<string, string>();
  let next = 0x100;
  const code = (w: string) => {
    let c = ids.get(w);
    if (c === undefined) {
      // Past the surrogates: every code stays one UTF-16 unit.
      if (next === 0xd800) next = 0xe000;
      c = String.fromCharCode(Math.min(next++, 0xffff));
      ids.set(w, c);
    }
    return c;
  };
  const words = (s: string) => (s.match(WORD_TOKENS) ?? []).map(code).join('');
  return [words(a), words(b)];
}

/** The similarity (0..1) of two normalised texts, as the header defines it. */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  const longest = Math.max(a.length, b.length);
  if (!longest) return 1;
  const chars = 1 - distance(a, b) / longest;
  const [wa, wb] = asWordStrings(a, b);
  const wordLongest = Math.max(wa.length, wb.length);
  const words = wordLongest ? 1 - distance(wa, wb) / wordLongest : 0;
  return Math.max(chars, words);
}

interface Scored {
  score: number;
  /** The stored target with its placeholders renamed into the request's (as stored when they do not map). */
  target: string;
}

/**
 * The score of a stored source against the request, before the key is looked at: equal normalised texts score 100
 * (99 when ctx differs or the placeholders do not map one to one), others their similarity. `map` renames the
 * stored target's placeholders (exact texts only). One stored source serves all its languages' entries.
 */
export function scoreSource(
  r: MatchRequest,
  c: { source: string; ctx: string | null; read?: Normalized },
): { score: number; map: Map<string, string> | null } {
  const read = c.read ?? normalize(c.source);
  if (read.norm === r.read.norm) {
    const map = placeholderMap(read.placeholders, r.read.placeholders);
    const sameCtx = (c.ctx ?? null) === (r.ctx ?? null);
    return { score: sameCtx && map ? EXACT : 99, map };
  }
  return { score: Math.min(99, Math.floor(100 * similarity(read.norm, r.read.norm) + 1e-9)), map: null };
}

/** An entry's score from its source's (scoreSource): 101 for the same source as written and the same key name. */
export function scoreEntry(
  r: MatchRequest,
  source: { source: string; score: number; map: Map<string, string> | null },
  entry: { key: string | null; target: string },
): Scored {
  const target = source.map ? adaptTarget(entry.target, source.map) : entry.target;
  const inContext = source.score === EXACT && source.source === r.source && r.key !== null && entry.key === r.key;
  return { score: inContext ? IN_CONTEXT : source.score, target };
}

/** The score of `c` against `r`, and the target to suggest. */
export function scoreMatch(r: MatchRequest, c: MatchCandidate): Scored {
  return scoreEntry(r, { source: c.source, ...scoreSource(r, c) }, c);
}

/** The leverage bands, best first (spec: MemoryLeverage). A best match under 50 counts as none. */
export const BANDS = ['101', '100', '95-99', '85-94', '75-84', '50-74', 'none'] as const;
export type Band = (typeof BANDS)[number];

export function bandOf(score: number | null): Band {
  if (score === null || score < 50) return 'none';
  if (score >= 101) return '101';
  if (score === 100) return '100';
  if (score >= 95) return '95-99';
  if (score >= 85) return '85-94';
  if (score >= 75) return '75-84';
  return '50-74';
}

/** Entry statuses and origins, best first among equal scores. */
const STATUS_RANK: Record<string, number> = { approved: 3, reviewed: 2, translated: 1 };

/**
 * Whether an entry may pre-translate: one a person made, imported or signed off, or a copy of one (`memory`).
 * A value the engine produced that nobody reviewed is a suggestion only.
 */
export const trusted = (e: { origin: string; status: string }) => !(e.origin === 'ai' && e.status === 'translated');

/** Orders matches: score, then approved over reviewed over translated, trusted over not, then the newest. */
export function compareMatches(
  a: { score: number; status: string; origin: string; updatedAt: number },
  b: { score: number; status: string; origin: string; updatedAt: number },
): number {
  return (
    b.score - a.score ||
    (STATUS_RANK[b.status] ?? 0) - (STATUS_RANK[a.status] ?? 0) ||
    Number(trusted(b)) - Number(trusted(a)) ||
    b.updatedAt - a.updatedAt
  );
}
