// The AI fill's guards (docs/guides/translation.md, "Guards"): before, what the engine must not change goes to it as
// opaque tokens (⟦1⟧): placeholders and formatted arguments, markup tags, printf specifiers and the names the
// termbase keeps as they are; after, the answer's tokens are counted and put back, and the value is held to the
// fill gate (ICU with the target language's plural categories, markup, printf: gates.ts), the termbase (the
// glossary check's matcher, terms/check.ts) and the key's length limit (the max-length check). A problem of tokens,
// ICU, markup or printf is `hard` (never stored as translated); a term or a length is `soft` (stored, recorded).
import { TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { Cell } from './checks/cell.js';
import { firstProblem } from './checks/engine.js';
import type { Term } from './checks/types.js';
import { checkFill } from './gates.js';
import { conformPlurals, escapeIcuText, parseIcu, pluralCategories, type IcuAst } from './icu.js';
import type { MarkupPolicy } from './markup.js';
import { printfSpecifiers } from './printf.js';
import { glossaryFindings } from './terms/check.js';
import { TermIndex, type TermPattern } from './terms/matcher.js';

/** A source as the engine gets it: its protected parts replaced by ⟦n⟧, n-1 indexing `tokens`. */
export interface Masked {
  text: string;
  /** Each token's original spelling; one token per distinct spelling. */
  tokens: string[];
  /** How often each token occurs in `text`. */
  counts: number[];
  /** Whether the source has plural or select branches (a token then occurs once per branch, in any number). */
  branched: boolean;
}

const TOKEN = /⟦(\d{1,4})⟧/g;
/** Markup that is not ICU rich text (`<a href="/terms">`, `<br/>`, react-i18next's `<1>…</1>`), as pseudo.ts reads it. */
const TAG = /<\/?[A-Za-z][^<>{}]*>|<\/?\d+\s*\/?>/g;

type Span = [start: number, end: number];

function locOf(el: MessageFormatElement): Span | null {
  const loc = el.location;
  return loc ? [loc.start.offset, loc.end.offset] : null;
}

/** What an index holds: the names kept as they are, or the terms with a required translation (not forbidden). */
type Which = 'kept' | 'required';

const patternOf: Record<Which, (t: Term) => TermPattern> = {
  kept: (t) => ({ text: t.nonTranslatable ? t.source : '', exact: true }),
  required: (t) => ({
    text: !t.nonTranslatable && !t.forbidden && t.targets.length ? t.source : '',
    caseSensitive: t.caseSensitive,
    exact: false,
  }),
};

/** Term indexes by list, kind and language (built once per termbase, as terms/check.ts does). */
const indexes = new WeakMap<readonly Term[], Map<string, TermIndex>>();
function termIndex(terms: readonly Term[], which: Which, lang: string): TermIndex {
  let byKind = indexes.get(terms);
  if (!byKind) indexes.set(terms, (byKind = new Map<string, TermIndex>()));
  let index = byKind.get(`${which} ${lang}`);
  if (!index) byKind.set(`${which} ${lang}`, (index = new TermIndex(terms.map(patternOf[which]), lang)));
  return index;
}

/**
 * The masked form of `source`, or null when it cannot be masked (it does not parse, or already holds the token
 * brackets): the engine then gets the source as it is and the checks afterwards still hold. `only`: `all` for a
 * model; `kept`, the names kept as they are alone; `pseudo`, those and each use of a term with a required
 * translation, as a token spelled as that translation (the pseudo engine, which translates nothing itself, so
 * follows the termbase as a translator would).
 */
export function maskSource(
  source: string,
  sourceLang: string,
  terms: readonly Term[] = [],
  only: 'all' | 'kept' | 'pseudo' = 'all',
): Masked | null {
  if (source.includes('⟦') || source.includes('⟧')) return null;
  let ast: IcuAst;
  try {
    ast = parseIcu(source, 'rich');
  } catch {
    try {
      ast = parseIcu(source, 'text');
    } catch {
      return null;
    }
  }
  const spans: Span[] = [];
  const literals: Span[] = [];
  let branched = false;
  const walk = (nodes: MessageFormatElement[]) => {
    for (const el of nodes) {
      const at = locOf(el);
      if (el.type === TYPE.literal) {
        if (at) literals.push(at);
      } else if (
        el.type === TYPE.argument ||
        el.type === TYPE.number ||
        el.type === TYPE.date ||
        el.type === TYPE.time
      ) {
        if (at) spans.push(at);
      } else if (el.type === TYPE.tag) {
        if (!at) continue;
        const openEnd = source.indexOf('>', at[0]) + 1;
        const closeStart = source.lastIndexOf('</', at[1] - 1);
        if (openEnd > 0 && closeStart >= openEnd) {
          spans.push([at[0], openEnd], [closeStart, at[1]]);
          walk(el.children);
        } else spans.push(at);
      } else if (el.type === TYPE.plural || el.type === TYPE.select) {
        branched = true;
        for (const opt of Object.values(el.options)) walk(opt.value);
      }
    }
  };
  walk(ast);
  // `kept` and `pseudo`: no structure (the pseudo engine keeps it itself, as written).
  if (only !== 'all') spans.length = 0;
  // Inside the text: printf specifiers, markup the ICU reading takes as text, names kept as they are, and (pseudo)
  // the uses of terms, each spelled as its required translation.
  const kept = terms.some((t) => t.nonTranslatable) ? termIndex(terms, 'kept', sourceLang) : null;
  const required = only === 'pseudo' && terms.length ? termIndex(terms, 'required', sourceLang) : null;
  /** The required translation of a term's span, by `start:end`. */
  const spelledAs = new Map<string, string>();
  for (const [from, to] of literals) {
    const text = source.slice(from, to);
    if (only === 'all') {
      for (const p of printfSpecifiers(text)) spans.push([from + p.index, from + p.index + p.spec.length]);
      for (const m of text.matchAll(TAG)) spans.push([from + m.index, from + m.index + m[0].length]);
    }
    if (kept) for (const h of kept.find(text)) spans.push([from + h.start, from + h.end]);
    if (required)
      for (const h of required.find(text)) {
        spans.push([from + h.start, from + h.end]);
        // The translation is text: as ICU text, so a `{` or `#` in it cannot break the message it goes into.
        spelledAs.set(`${from + h.start}:${from + h.end}`, escapeIcuText(terms[h.pattern].targets[0]));
      }
  }
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const tokens: string[] = [];
  const counts: number[] = [];
  let text = '';
  let last = 0;
  for (const [from, to] of spans) {
    if (from < last) continue; // inside a span already masked
    const spelling = spelledAs.get(`${from}:${to}`) ?? source.slice(from, to);
    let n = tokens.indexOf(spelling);
    if (n < 0) {
      n = tokens.push(spelling) - 1;
      counts.push(0);
    }
    counts[n]++;
    text += `${source.slice(last, from)}⟦${n + 1}⟧`;
    last = to;
  }
  if (!tokens.length) return null;
  return { text: text + source.slice(last), tokens, counts, branched };
}

/** The answer with its tokens put back, or what is wrong with its tokens (missing, repeated, unknown). */
export function unmask(answer: string, masked: Masked): { value: string } | { problem: string } {
  const seen = new Array<number>(masked.tokens.length).fill(0);
  const unknown: string[] = [];
  for (const m of answer.matchAll(TOKEN)) {
    const n = Number(m[1]) - 1;
    if (n >= 0 && n < seen.length) seen[n]++;
    else unknown.push(m[0]);
  }
  // A model that writes a token's original spelling instead of the token has kept it too.
  masked.tokens.forEach((spelling, n) => (seen[n] += answer.split(spelling).length - 1));
  const problems: string[] = [];
  if (unknown.length) problems.push(`${[...new Set(unknown)].join(', ')} is not in the source`);
  masked.tokens.forEach((spelling, n) => {
    const token = `⟦${n + 1}⟧ (${spelling})`;
    if (seen[n] === 0) problems.push(`${token} is missing`);
    else if (!masked.branched && seen[n] !== masked.counts[n])
      problems.push(`${token} appears ${seen[n]} times; the source has it ${masked.counts[n]} time(s)`);
  });
  if (problems.length) return { problem: `tokens: ${problems.join('; ')}; keep every ⟦n⟧ exactly as in the source` };
  return { value: answer.replace(TOKEN, (_, n: string) => masked.tokens[Number(n) - 1]) };
}

/** What a value is held to besides its source. */
interface GuardInput {
  source: string;
  sourceLang: string;
  targetLang: string;
  markup?: MarkupPolicy;
  terms?: readonly Term[];
  maxLength?: number | null;
}

interface Verdict {
  /** The value to store (its plural categories conformed), when it has no hard problem. */
  value?: string;
  /** Why it may not be stored as translated: tokens, ICU (plural categories included), markup, printf. */
  hard?: string;
  /** What it does against the termbase or the length limit: stored, recorded, scored lower. */
  soft: string[];
}

/** The plural arguments of `value` that lack a category `lang` needs (an added one would only copy `other`). */
function missingCategories(value: string, lang: string): string | null {
  let ast: IcuAst;
  let cats: string[];
  try {
    ast = parseIcu(value);
    cats = pluralCategories(lang);
  } catch {
    return null; // checkFill names it
  }
  const out: string[] = [];
  const walk = (nodes: MessageFormatElement[]) => {
    for (const el of nodes) {
      if (el.type === TYPE.plural && el.pluralType !== 'ordinal') {
        const lacks = cats.filter((c) => !(c in el.options));
        if (lacks.length) out.push(`plural {${el.value}} lacks ${lacks.join(', ')} (${lang} needs ${cats.join(', ')})`);
      }
      if (el.type === TYPE.plural || el.type === TYPE.select) for (const o of Object.values(el.options)) walk(o.value);
      if (el.type === TYPE.tag) walk(el.children);
    }
  };
  walk(ast);
  return out.length ? out.join('; ') : null;
}

/** A value (tokens already put back) held to every guard. */
export function judgeValue(raw: string, input: GuardInput): Verdict {
  if (!raw.trim() && input.source.trim()) return { hard: 'empty translation', soft: [] };
  const missing = missingCategories(raw, input.targetLang);
  if (missing) return { hard: missing, soft: [] };
  const value = conformPlurals(raw, input.targetLang);
  const hard = checkFill(input.source, value, input.targetLang, input.markup);
  if (hard) return { hard, soft: [] };
  const soft: string[] = [];
  if (input.terms?.length)
    for (const f of glossaryFindings(input.terms, input.source, value, input.sourceLang, input.targetLang))
      soft.push(`term: ${f.message}`);
  if (input.maxLength) {
    const cell = new Cell({
      source: input.source,
      target: value,
      sourceLang: input.sourceLang,
      targetLang: input.targetLang,
      key: '',
      maxLength: input.maxLength,
    });
    const over = firstProblem(cell, ['max-length']);
    if (over) soft.push(`length: ${over}`);
  }
  return { value, soft };
}

/** What a stored AI value is scored from (docs/guides/translation.md, "The score"). */
interface ScoreInput {
  value: string;
  /** Soft problems the value still has (terms, length): `term: …`, `length: …`. */
  failures?: readonly string[];
  /** The value answers a repair request: its first answer had a problem. */
  repaired?: boolean;
  /** The engine's own assessment, 0 to 1, when it gave one. */
  confidence?: number;
  /** The translation memory's matches sent with the item: {target, score 0-100}. */
  references?: ReadonlyArray<{ target: string; score: number }>;
}

/** Penalties of the deterministic part, each taken once per kind (a term's per failing term, at most two). */
const SCORE_PENALTY = { term: 0.25, length: 0.3, repaired: 0.1, memory: 0.15 } as const;
/** The least memory match whose translation a value is expected to agree with. */
const AGREEING_MATCH = 95;

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * A score from 0 to 1 and its short reason: 1 less the penalties of what the checks found (each failing term, the
 * length limit, a repair request needed, disagreement with a memory match of 95 or more), then, when the engine gave
 * its own confidence c, the lower of that and 0.6·deterministic + 0.4·c: the engine can lower a score, never raise
 * it past what the checks allow.
 */
export function scoreValue(input: ScoreInput): { score: number; reason: string } {
  const reasons: string[] = [];
  let score = 1;
  const terms = (input.failures ?? []).filter((f) => f.startsWith('term:'));
  if (terms.length) {
    score -= SCORE_PENALTY.term * Math.min(2, terms.length);
    reasons.push(terms.length === 1 ? 'a term not followed' : `${terms.length} terms not followed`);
  }
  if ((input.failures ?? []).some((f) => f.startsWith('length:'))) {
    score -= SCORE_PENALTY.length;
    reasons.push('over the length limit');
  }
  if (input.repaired) {
    score -= SCORE_PENALTY.repaired;
    reasons.push('needed a repair request');
  }
  const best = [...(input.references ?? [])].sort((a, b) => b.score - a.score)[0];
  if (best && best.score >= AGREEING_MATCH) {
    if (best.target.trim() === input.value.trim()) reasons.push(`agrees with a ${best.score}% memory match`);
    else {
      score -= SCORE_PENALTY.memory;
      reasons.push(`differs from a ${best.score}% memory match`);
    }
  }
  score = Math.max(0, score);
  if (input.confidence !== undefined) {
    score = Math.min(score, 0.6 * score + 0.4 * input.confidence);
    reasons.push(`engine confidence ${round2(input.confidence)}`);
  }
  if (!reasons.length) reasons.push('placeholders, terms and length checked');
  return { score: round2(score), reason: reasons.join('; ') };
}
