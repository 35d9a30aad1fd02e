// The publish gates (API.md 2.8, 4.4): a cell whose value would break the app at runtime is refused by publish and
// reported as a warning by restore. Two independent verdicts, so a cell can fail either or both:
// - icu: the value must parse, name the same arguments as its source, and give every cardinal plural exactly the
//   target language's CLDR categories (`=N` may be added);
// - markup: the value must carry the same tags as its source, counted by name.
import {
  parse,
  TYPE,
  type MessageFormatElement,
  type PluralElement,
  type PluralOrSelectOption,
  type SelectElement,
} from '@formatjs/icu-messageformat-parser';
import { pluralCategories, simpleArguments } from './icu.js';

type Ast = MessageFormatElement[];
type Choice = PluralElement | SelectElement;

export interface GateVerdict {
  /** Why the value is not acceptable ICU for `lang`; absent when it is. */
  icu?: string;
  /** Why the value's markup differs from the source's; absent when it does not. */
  markup?: string;
}

export const REJECTED_CAP = 50;

/** How a refused cell is listed in `icuRejected` / `markupRejected` and in 409 bodies. */
export const rejectionLabel = (key: string, lang: string): string => `${key} [${lang}]`;

/** The first `cap` items: the listed part of a rejection list, whose `*Total` companion is `list.length`. */
export function capList<T>(list: readonly T[], cap = REJECTED_CAP): T[] {
  return list.slice(0, Math.max(0, cap));
}

/**
 * With `richText`, the parse of icu.ts's parseIcu (the fill's ICU gate: `<b>…</b>` is structure); without, tags are
 * plain text. Unlike parseIcu this keeps locations, which the markup gate needs to cut branches out of the raw string.
 */
// A publish gates every cell of a key against the same source: its parses are kept (bounded) rather than redone.
const parsed = new Map<string, Ast | Error>();

function parseAs(msg: string, richText: boolean, cache = false): Ast {
  if (!cache) return parse(msg, { ignoreTag: !richText, captureLocation: true });
  const key = `${richText ? 'r' : 't'}${msg}`;
  let hit = parsed.get(key);
  if (hit === undefined) {
    try { hit = parse(msg, { ignoreTag: !richText, captureLocation: true }); } catch (e) { hit = e as Error; }
    if (parsed.size >= 20_000) parsed.clear();
    parsed.set(key, hit);
  }
  if (hit instanceof Error) throw hit;
  return hit;
}

/** The AST in the first mode that parses it (rich text first), or null when neither does. */
function parseAny(msg: string, cache = false): Ast | null {
  for (const richText of [true, false]) {
    try {
      return parseAs(msg, richText, cache);
    } catch {
      // try the next mode
    }
  }
  return null;
}

function walk(ast: Ast, visit: (el: MessageFormatElement) => void): void {
  for (const el of ast) {
    visit(el);
    if (el.type === TYPE.plural || el.type === TYPE.select) for (const opt of Object.values(el.options)) walk(opt.value, visit);
    else if (el.type === TYPE.tag) walk(el.children, visit);
  }
}

/** Argument names, as icu.ts's `placeholders` counts them, for an AST parsed in either mode. */
function argumentsOf(ast: Ast): Set<string> {
  const names = new Set<string>();
  walk(ast, (el) => {
    if (el.type !== TYPE.literal && el.type !== TYPE.pound && el.type !== TYPE.tag) names.add(el.value);
  });
  return names;
}

const isExact = (key: string) => /^=\s*-?\d+(\.\d+)?$/.test(key);
const braces = (names: Iterable<string>) => [...names].map((n) => `{${n}}`).join(', ');

function argumentProblem(want: Set<string>, have: Set<string>): string | undefined {
  const missing = [...want].filter((n) => !have.has(n));
  if (missing.length) return `missing placeholder ${braces(missing)}`;
  const extra = [...have].filter((n) => !want.has(n));
  if (extra.length) return `unknown placeholder ${braces(extra)}`;
  return undefined;
}

function icuGate(source: string, value: string, lang: string): string | undefined {
  // Two simple messages without tags (most cells): no plural to hold to CLDR, only their arguments to compare.
  if (!source.includes('<') && !value.includes('<')) {
    const want = simpleArguments(source);
    const have = want && simpleArguments(value);
    if (want && have) return argumentProblem(new Set(want), new Set(have));
  }
  // A source that is only valid with its tags read as text (`<br>`, `<a href='…'>`: HTML, not ICU rich text) lets its
  // translations be read the same way; a rich-text source holds them to rich text, so a broken `<b>` is caught.
  let richText = true;
  let src: Ast;
  try {
    src = parseAs(source, true, true);
  } catch {
    richText = false;
    try {
      src = parseAs(source, false, true);
    } catch (e) {
      return `source is not valid ICU: ${(e as Error).message}`;
    }
  }
  let val: Ast;
  try {
    val = parseAs(value, richText);
  } catch (e) {
    return `invalid ICU syntax: ${(e as Error).message}`;
  }

  let problem = argumentProblem(argumentsOf(src), argumentsOf(val));
  if (problem) return problem;
  walk(val, (el) => {
    // Ordinal plurals use another CLDR rule set; only cardinals are held to the language's categories.
    if (problem || el.type !== TYPE.plural || el.pluralType !== 'cardinal') return;
    let cats: string[];
    try {
      cats = pluralCategories(lang);
    } catch (e) {
      problem = (e as Error).message;
      return;
    }
    const keys = Object.keys(el.options).filter((k) => !isExact(k));
    if (keys.length !== cats.length || !keys.every((k) => cats.includes(k))) {
      problem = `plural {${el.value}} has ${keys.join(', ') || 'no categories'}; ${lang} needs ${cats.join(', ')}`;
    }
  });
  return problem;
}

// Opening, closing and self-closing tags, attributes and namespaces included (`<xliff:g id="x">`, `<a href='…'>`).
const TAG = /<(\/?)([A-Za-z][\w:.-]*)(?:\s[^<>]*)?\/?>/g;

/** Tags of a raw string as a sorted multiset: `b` for `<b>` and `<b/>`, `/b` for `</b>` (right after its `b`). */
function tagScan(text: string): string[] {
  const order = (t: string) => (t.startsWith('/') ? `${t.slice(1)}\u0001` : t);
  return [...text.matchAll(TAG)].map((m) => `${m[1]}${m[2]}`).sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

/** Plurals and selects of a node list, through tags but not through other choices (those are reached by projection). */
function choicesIn(nodes: Ast, out: Choice[] = []): Choice[] {
  for (const el of nodes) {
    if (el.type === TYPE.plural || el.type === TYPE.select) out.push(el);
    else if (el.type === TYPE.tag) choicesIn(el.children, out);
  }
  return out;
}

function optionKeys(ast: Ast): Set<string> {
  const keys = new Set<string>();
  walk(ast, (el) => {
    if (el.type === TYPE.plural || el.type === TYPE.select) for (const k of Object.keys(el.options)) keys.add(k);
  });
  return keys;
}

/** The raw text of `msg[from, to)` with every plural/select replaced by its `key` branch (else `other`), recursively. */
function project(msg: string, nodes: Ast, from: number, to: number, key: string): string {
  let out = '';
  let at = from;
  for (const el of choicesIn(nodes)) {
    const options: Record<string, PluralOrSelectOption> = el.options;
    // Own options only: a key named `constructor` that this choice lacks must fall back on `other`, not find Object.
    const opt = Object.hasOwn(options, key) ? options[key] : options.other;
    if (!el.location || !opt?.location) continue;
    out += msg.slice(at, el.location.start.offset);
    // An option's location spans its braces.
    out += project(msg, opt.value, opt.location.start.offset + 1, opt.location.end.offset - 1, key);
    at = el.location.end.offset;
  }
  return out + msg.slice(at, to);
}

const showTags = (tags: string[]) => tags.map((t) => `<${t}>`).join(' ') || 'none';

function markupGate(source: string, value: string): string | undefined {
  // No tag on either side: nothing to compare (most cells).
  if (!source.includes('<') && !value.includes('<')) return undefined;
  const src = parseAny(source, true);
  const val = parseAny(value);
  // Tags are compared branch by branch: a Polish plural has four branches for the source's two, and each of them
  // carries the markup of the source branch it translates (its own category, else `other`).
  const views: Array<{ label: string; source: string; value: string }> = [];
  if (src && val) {
    const keys = new Set(['other', ...optionKeys(src)]);
    // A branch the value adds for an exact number has no source branch to match.
    for (const k of optionKeys(val)) if (!isExact(k)) keys.add(k);
    const single = keys.size === 1;
    for (const k of keys) {
      views.push({
        label: single ? '' : ` (${k})`,
        source: project(source, src, 0, source.length, k),
        value: project(value, val, 0, value.length, k),
      });
    }
  } else {
    views.push({ label: '', source, value });
  }
  for (const v of views) {
    const want = tagScan(v.source);
    const have = tagScan(v.value);
    if (want.join('\0') !== have.join('\0')) return `tags differ${v.label}: expected ${showTags(want)}, got ${showTags(have)}`;
  }
  return undefined;
}

/**
 * The gates' verdict on one cell: `value` in `lang`, translating `source` (for a base cell, the source against
 * itself). An empty object means the cell may be published.
 */
export function gateCell(source: string, value: string, lang: string): GateVerdict {
  const verdict: GateVerdict = {};
  const icu = icuGate(source, value, lang);
  if (icu) verdict.icu = icu;
  const markup = markupGate(source, value);
  if (markup) verdict.markup = markup;
  return verdict;
}
