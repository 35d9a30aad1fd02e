// A source and its translation branch by branch. A Polish plural has four branches for the source's two and a
// Japanese one has a single `other`; each branch of the translation is held to the source branch it translates.
//
// The translation's branches lead: its categories are the target language's (plural-categories holds it to them),
// so a branch is compared with the source's branch of the same category (else the source's `other`). A category's
// numbers differ between languages, though: the Russian `one` is 1 but also 21 and 31, which English says with its
// `other`, and a Japanese `other` is also the 1 of an English `one`. So a branch may also follow the source's `other`
// (any category that is not `other`), and the translation's `other` any source branch the translation has no branch
// of its own for. A category of a few numbers (Arabic `zero` and `two`, English `one`: under five of 0 to 1000, as
// plural-coverage.ts draws the line) may say them in words, as the source's `one` does, and so follow any source
// branch: `two {تعليقان}` drops the `<b>` the source puts around its number. One rule, for the markup and printf checks alike, in the fill, the publish and a review
// (packages/core/src/gates.ts): before it, the fill and the publish compared the source's own categories too, and
// refused every Japanese value of `{count, plural, one {One comment} other {<b>{count}</b> comments}}` and the
// pseudo engine's Russian `one`, which must show the number (plural-coverage.ts) and so the `<b>` around it.
import {
  TYPE,
  type PluralElement,
  type PluralOrSelectOption,
  type SelectElement,
} from '@formatjs/icu-messageformat-parser';
import { isExactKey, walkIcu, type IcuAst } from '../icu.js';
import { numbersOf } from '../plural-coverage.js';

const CATEGORIES = new Set(['zero', 'one', 'two', 'few', 'many']);

function optionKeys(ast: IcuAst): Set<string> {
  const keys = new Set<string>();
  walkIcu(ast, (el) => {
    if (el.type === TYPE.plural || el.type === TYPE.select) for (const k of Object.keys(el.options)) keys.add(k);
  });
  return keys;
}

type Choice = PluralElement | SelectElement;

/** Plurals and selects of a node list, through tags but not through other choices (those are reached by projection). */
function choicesIn(nodes: IcuAst, out: Choice[] = []): Choice[] {
  for (const el of nodes) {
    if (el.type === TYPE.plural || el.type === TYPE.select) out.push(el);
    else if (el.type === TYPE.tag) choicesIn(el.children, out);
  }
  return out;
}

/** The option a projection on `key` takes: the choice's own `key`, else its `other`. */
function optionOf(el: Choice, key: string): PluralOrSelectOption | undefined {
  const options: Record<string, PluralOrSelectOption> = el.options;
  // Own options only: a key named `constructor` that this choice lacks must fall back on `other`, not find Object.
  return Object.hasOwn(options, key) ? options[key] : options.other;
}

/** The raw text of `msg[from, to)` with every plural/select replaced by its `key` branch (else `other`), recursively. */
function project(msg: string, nodes: IcuAst, from: number, to: number, key: string): string {
  let out = '';
  let at = from;
  for (const el of choicesIn(nodes)) {
    const opt = optionOf(el, key);
    if (!el.location || !opt?.location) continue;
    out += msg.slice(at, el.location.start.offset);
    // An option's location spans its braces.
    out += project(msg, opt.value, opt.location.start.offset + 1, opt.location.end.offset - 1, key);
    at = el.location.end.offset;
  }
  return out + msg.slice(at, to);
}

export interface BranchView {
  /** The option key the view projects on (`other` for a message without choices). */
  key: string;
  /** ` (one)`, or empty when the message has a single view. */
  label: string;
  /** The translation's raw text with every choice on `key`. */
  value: string;
  /** The source's raw texts the branch may follow: the same key's first (what a message names as expected). */
  sources: string[];
}

/** The keys the views project on: `other`, and each of the translation's keys the source can be matched on. */
function viewKeys(src: IcuAst, val: IcuAst): { keys: string[]; srcKeys: Set<string>; valKeys: Set<string> } {
  const srcKeys = optionKeys(src);
  const valKeys = optionKeys(val);
  const keys = new Set(['other']);
  // A branch the value adds for an exact number has no source branch to match.
  for (const k of valKeys) if (!isExactKey(k) || srcKeys.has(k)) keys.add(k);
  return { keys: [...keys], srcKeys, valKeys };
}

/**
 * The two messages branch by branch (the rule above); one view of the whole texts when either does not parse.
 * `src` and `val` are their parses (icu.ts parseAny), null when they have none; `lang` the translation's language.
 */
export function branchViews(
  source: string,
  value: string,
  src: IcuAst | null,
  val: IcuAst | null,
  lang: string,
): BranchView[] {
  if (!src || !val) return [{ key: 'other', label: '', value, sources: [source] }];
  const { keys, srcKeys, valKeys } = viewKeys(src, val);
  const single = keys.length === 1;
  return keys.map((k) => {
    const alternatives = [k];
    if (k === 'other') for (const s of srcKeys) if (!valKeys.has(s)) alternatives.push(s);
    if (CATEGORIES.has(k)) alternatives.push('other');
    if (CATEGORIES.has(k) && numbersOf(lang, k).length < 5) alternatives.push(...srcKeys);
    const sources = [...new Set(alternatives.map((a) => project(source, src, 0, source.length, a)))];
    return { key: k, label: single ? '' : ` (${k})`, value: project(value, val, 0, value.length, k), sources };
  });
}

/** Text a reader sees, with where each of its characters is in the raw message (for highlighting). */
export interface Plain {
  text: string;
  /** `at[i]`: the raw offset of `text[i]`. */
  at: number[];
}

/** An argument, `#` or a formatted value in plain text: one character that is neither letter nor space. */
export const ARG = '\uFFFC';

// Markup as text (`<a href="/terms">`, `<br/>`, react-i18next's `<1>`), which plain text leaves out.
const TAG_TEXT = /<\/?[A-Za-z][^<>]*>|<\/?\d+\s*\/?>|<!--[\s\S]*?-->/g;

/** Appends `text`, found at raw offset `start`, with its markup left out; `exact`: its characters map one to one. */
export function pushText(out: Plain, text: string, start: number, exact = true): void {
  if (!text.includes('<')) return pushRun(out, text, 0, text.length, start, exact);
  let from = 0;
  TAG_TEXT.lastIndex = 0;
  for (let m = TAG_TEXT.exec(text); m; m = TAG_TEXT.exec(text)) {
    pushRun(out, text, from, m.index, start, exact);
    from = m.index + m[0].length;
  }
  pushRun(out, text, from, text.length, start, exact);
}

/** `text[from, to)` appended whole (the checks run over every cell: no string grows a character at a time). */
function pushRun(out: Plain, text: string, from: number, to: number, start: number, exact: boolean): void {
  if (to <= from) return;
  out.text += from === 0 && to === text.length ? text : text.slice(from, to);
  for (let i = from; i < to; i++) out.at.push(exact ? start + i : start);
}

function plainNodes(raw: string, nodes: IcuAst, key: string, out: Plain): void {
  for (const el of nodes) {
    const at = el.location?.start.offset ?? 0;
    switch (el.type) {
      case TYPE.literal: {
        const end = el.location?.end.offset ?? at;
        // A literal with ICU quoting (`it''s`) is shorter than its raw text: its characters point at its start.
        pushText(out, el.value, at, raw.slice(at, end) === el.value);
        break;
      }
      case TYPE.tag:
        plainNodes(raw, el.children, key, out);
        break;
      case TYPE.plural:
      case TYPE.select: {
        const opt = optionOf(el, key);
        if (opt) plainNodes(raw, opt.value, key, out);
        break;
      }
      default:
        out.text += ARG;
        out.at.push(at);
    }
  }
}

/** `raw` as plain text on `key` (see project); from its parse `ast`, else the raw text with markup left out. */
export function plainOf(raw: string, ast: IcuAst | null, key = 'other'): Plain {
  const out: Plain = { text: '', at: [] };
  if (ast) plainNodes(raw, ast, key, out);
  else pushText(out, raw, 0, true);
  return out;
}

export interface PlainView {
  key: string;
  label: string;
  source: Plain;
  target: Plain;
}

/** The two messages as plain text, branch by branch (the views of branchViews, each with the same key's source). */
export function plainViews(source: string, target: string, src: IcuAst | null, val: IcuAst | null): PlainView[] {
  if (!src || !val) return [{ key: 'other', label: '', source: plainOf(source, src), target: plainOf(target, val) }];
  const { keys } = viewKeys(src, val);
  return keys.map((k) => ({
    key: k,
    label: keys.length === 1 ? '' : ` (${k})`,
    source: plainOf(source, src, k),
    target: plainOf(target, val, k),
  }));
}

/** Raw spans of `[from, to)` of a plain text. */
export function rawSpan(p: Plain, from: number, to: number): { start: number; end: number } {
  const start = p.at[from] ?? p.at[p.at.length - 1] ?? 0;
  const end = to > from ? (p.at[to - 1] ?? start) + 1 : start;
  return { start, end: Math.max(end, start) };
}
