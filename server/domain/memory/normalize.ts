// What a translation-memory match ignores (docs/decisions/0021-translation-memory.md, "Normalisation"): letter
// case, runs of whitespace, and the names and spellings of placeholders. A source is read into text and
// placeholders once; from that come the normalised form two sources are compared on, the placeholders in order
// (to rename a suggestion's placeholders into the request's), and the words the candidate index holds.
//
// Placeholders, of four kinds, each compared only with its own kind:
// - `arg`: an ICU argument, `{name}`, `{n, number}`, `{d, date, short}`, and the head of a `{n, plural, ...}` /
//   `select` / `selectordinal` (its branches stay text, so a plural matches a plural with the same branches);
// - `i18n`: an i18next interpolation, `{{name}}`, `{{n, number}}`;
// - `printf`: a printf specifier, `%s`, `%1$d`, `%@`, `%.2f`, `%lld` (`%%` is text);
// - `tag`: markup, `<b>`, `</b>`, `<br/>`, `<a href="...">`, react-i18next's `<1>`.
// Named placeholders (`arg`, `i18n`) are numbered by the first appearance of their name, so `{a} of {b}` and
// `{x} of {y}` are the same text and `{a} {a}` is not `{x} {y}`; a printf specifier or a tag stands for itself.

type PlaceholderKind = 'arg' | 'i18n' | 'printf' | 'tag';

export interface Placeholder {
  kind: PlaceholderKind;
  /** What is renamed: the argument's name (`arg`, `i18n`), else the whole placeholder. */
  name: string;
  /** The text before the name, and after it: `pre + name + post` is the placeholder as written. */
  pre: string;
  post: string;
}

type Part = string | Placeholder;

/** A source read for the memory. */
export interface Normalized {
  /**
   * Lower-cased text with runs of whitespace as one space, trimmed, NFC, and each placeholder as one character
   * of Unicode's private use area (its kind and number), followed for an argument by its normalised format.
   */
  norm: string;
  /** The placeholders in the order they appear. */
  placeholders: Placeholder[];
}

// Private use area characters stand for placeholders in `norm`: U+E000 + number for an argument, U+E400 + number
// for an i18next interpolation (256 numbers each; more arguments share the last), then printf and tags.
const ARG = 0xe000;
const I18N = 0xe400;
const PRINTF = '\ue800';
const TAG_OPEN = '\ue801';
const TAG_CLOSE = '\ue802';
const TAG_SELF = '\ue803';
const MAX_NUMBERED = 255;

const ARG_NAME = /^[^\s{}'#,<>]+/u;
const PLURAL_TYPES = new Set(['plural', 'select', 'selectordinal']);
// C and Java conversions with flags, width, precision and length modifiers; Apple's %@; positional %1$s.
const PRINTF_SPEC = /^%(?:\d+\$)?[-+ 0#']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|q|j|z|t)?[diouxXeEfFgGaAcspn@]/;
const TAG = /^<\/?(?:[A-Za-z][\w.:-]*(?:\s+[^<>]*?)?|\d+)\s*\/?>/;

/** Reads `text` into literal runs and placeholders; text that only looks like a placeholder stays text. */
export function readParts(text: string): Part[] {
  const parts: Part[] = [];
  let lit = '';
  const flush = () => {
    if (lit) parts.push(lit);
    lit = '';
  };
  let i = 0;
  // ICU branch text nests inside `{...}`: the depth of open branches, so their closing brace stays text.
  const branches: number[] = [];
  while (i < text.length) {
    const c = text[i];
    if (c === "'" && i + 1 < text.length && "{}#|'".includes(text[i + 1])) {
      // ICU quoting: `''` is an apostrophe, `'{...}'` literal text up to the next apostrophe.
      if (text[i + 1] === "'") {
        lit += "''";
        i += 2;
        continue;
      }
      const end = text.indexOf("'", i + 1);
      const stop = end === -1 ? text.length : end + 1;
      lit += text.slice(i, stop);
      i = stop;
      continue;
    }
    if (c === '{' && branches.length && branches[branches.length - 1] === 0) {
      // Between a plural's or select's branches: the brace opens a branch.
      branches[branches.length - 1]++;
      lit += c;
      i++;
      continue;
    }
    if (c === '{') {
      const i18n = text.startsWith('{{', i) ? /^\{\{\s*([^\s{},]+)\s*((?:,[^{}]*)?)\}\}/.exec(text.slice(i)) : null;
      if (i18n) {
        flush();
        const at = i18n[0].indexOf(i18n[1], 2);
        parts.push({
          kind: 'i18n',
          name: i18n[1],
          pre: i18n[0].slice(0, at),
          post: i18n[0].slice(at + i18n[1].length),
        });
        i += i18n[0].length;
        continue;
      }
      const arg = readArgument(text, i);
      if (arg) {
        flush();
        parts.push(arg.placeholder);
        i = arg.end;
        if (arg.branches) branches.push(0);
        continue;
      }
      lit += c;
      i++;
      continue;
    }
    if (c === '}' && branches.length) {
      const open = branches[branches.length - 1];
      if (open > 0) branches[branches.length - 1]--;
      // The brace that closes the plural or select itself.
      else branches.pop();
      lit += c;
      i++;
      continue;
    }
    if (c === '%') {
      if (text[i + 1] === '%') {
        lit += '%%';
        i += 2;
        continue;
      }
      const m = PRINTF_SPEC.exec(text.slice(i, i + 24));
      if (m) {
        flush();
        parts.push({ kind: 'printf', name: m[0], pre: '', post: '' });
        i += m[0].length;
        continue;
      }
    }
    if (c === '<') {
      const m = TAG.exec(text.slice(i, i + 2_000));
      if (m) {
        flush();
        parts.push({ kind: 'tag', name: m[0], pre: '', post: '' });
        i += m[0].length;
        continue;
      }
    }
    lit += c;
    i++;
  }
  flush();
  return parts;
}

/**
 * An ICU argument starting at `text[i]` (`{`): a simple or formatted one, whose `}` is read too, or the head of a
 * plural/select up to the comma before its branches (`branches`: its branches follow as text). Null when the
 * braces do not hold one.
 */
function readArgument(text: string, i: number): { placeholder: Placeholder; end: number; branches: boolean } | null {
  let j = i + 1;
  while (j < text.length && /\s/.test(text[j])) j++;
  const name = ARG_NAME.exec(text.slice(j, j + 256))?.[0];
  if (!name) return null;
  const pre = text.slice(i, j);
  j += name.length;
  let k = j;
  while (k < text.length && /\s/.test(text[k])) k++;
  if (text[k] === '}')
    return { placeholder: { kind: 'arg', name, pre, post: text.slice(j, k + 1) }, end: k + 1, branches: false };
  if (text[k] !== ',') return null;
  const type = /^,\s*([A-Za-z]+)\s*/.exec(text.slice(k, k + 64));
  if (!type) return null;
  const afterType = k + type[0].length;
  if (PLURAL_TYPES.has(type[1].toLowerCase())) {
    if (text[afterType] !== ',') return null;
    return {
      placeholder: { kind: 'arg', name, pre, post: text.slice(j, afterType + 1) },
      end: afterType + 1,
      branches: true,
    };
  }
  // A formatted argument: its style runs to the brace that closes it (a skeleton holds no braces).
  const close = text.indexOf('}', afterType);
  const open = text.indexOf('{', afterType);
  if (close === -1 || (open !== -1 && open < close)) return null;
  return { placeholder: { kind: 'arg', name, pre, post: text.slice(j, close + 1) }, end: close + 1, branches: false };
}

const squash = (s: string) => s.normalize('NFC').toLowerCase();

/** The character `norm` writes for a placeholder numbered `n` of its kind. */
function marker(p: Placeholder, n: number): string {
  switch (p.kind) {
    case 'arg':
      // The format (`, number`, `, plural,`) belongs to the argument's meaning: kept, without its spaces.
      return (
        String.fromCharCode(ARG + Math.min(n, MAX_NUMBERED)) + squash(p.post.replace(/\s+/g, '')).replace(/}$/, '')
      );
    case 'i18n':
      return (
        String.fromCharCode(I18N + Math.min(n, MAX_NUMBERED)) + squash(p.post.replace(/\s+/g, '')).replace(/}}$/, '')
      );
    case 'printf':
      return PRINTF;
    default:
      return p.name.startsWith('</') ? TAG_CLOSE : p.name.endsWith('/>') ? TAG_SELF : TAG_OPEN;
  }
}

/** Reads a source (or a target) for the memory. */
export function normalize(text: string): Normalized {
  const parts = readParts(text);
  const numbers = { arg: new Map<string, number>(), i18n: new Map<string, number>() };
  const placeholders: Placeholder[] = [];
  let out = '';
  for (const p of parts) {
    if (typeof p === 'string') {
      out += squash(p);
      continue;
    }
    placeholders.push(p);
    let n = 0;
    if (p.kind === 'arg' || p.kind === 'i18n') {
      const seen = numbers[p.kind];
      n = seen.get(p.name) ?? seen.size;
      seen.set(p.name, n);
    }
    // Spaces around a placeholder count as the text's own.
    out += marker(p, n);
  }
  return { norm: out.replace(/\s+/gu, ' ').trim(), placeholders };
}

/**
 * How the placeholders of a stored source map onto the request's, when their normalised texts are equal: names
 * (`arg`, `i18n`) by name, printf specifiers and tags by their text. Null when one placeholder of the stored
 * source would have to become two different ones (`<b>x</b> <b>y</b>` against `<i>x</i> <u>y</u>`): the stored
 * target cannot then be adapted with certainty.
 */
export function placeholderMap(stored: Placeholder[], request: Placeholder[]): Map<string, string> | null {
  if (stored.length !== request.length) return null;
  const map = new Map<string, string>();
  const back = new Map<string, string>();
  for (let i = 0; i < stored.length; i++) {
    const s = stored[i];
    const r = request[i];
    if (s.kind !== r.kind) return null;
    const from = `${s.kind}\u0000${s.name}`;
    const to = r.name;
    const mapped = map.get(from);
    if (mapped !== undefined && mapped !== to) return null;
    const into = `${s.kind}\u0000${to}`;
    const source = back.get(into);
    if (source !== undefined && source !== from) return null;
    map.set(from, to);
    back.set(into, from);
  }
  return map;
}

/**
 * A stored target with its placeholders renamed as `map` (placeholderMap) says: `Hallo {name}` for a request
 * whose `{user}` stands where the stored source had `{name}` becomes `Hallo {user}`. A placeholder the stored
 * source does not have is left as written.
 */
export function adaptTarget(target: string, map: Map<string, string>): string {
  let renames = false;
  for (const [from, to] of map) if (from.slice(from.indexOf('\u0000') + 1) !== to) renames = true;
  if (!renames) return target;
  return readParts(target)
    .map((p) => {
      if (typeof p === 'string') return p;
      const to = map.get(`${p.kind}\u0000${p.name}`);
      return p.pre + (to ?? p.name) + p.post;
    })
    .join('');
}

// Scripts written without spaces between words: indexed by pairs of characters instead of words.
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}]/u;
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const SCRIPT_CHANGE =
  /(?<=[\p{Script=Latin}\p{N}])(?=[^\p{Script=Latin}\p{N}])|(?<=[^\p{Script=Latin}\p{N}])(?=[\p{Script=Latin}\p{N}])/u;
/** Words are indexed by their first characters, so `delete` and `deleted`, `colour` and `colours` share a word. */
const WORD_PREFIX = 6;
/** The most words of one text the index holds: a long text is found by its first ones. */
const MAX_WORDS = 64;

/**
 * The words of a normalised text as the candidate index holds them, in order: words of spaced scripts cut to
 * their first characters, and pairs of characters in a run of a script written without spaces (CJK, Thai, ...).
 */
export function indexWords(norm: string): string[] {
  const out: string[] = [];
  for (const m of norm.matchAll(WORD)) {
    for (const run of UNSPACED.test(m[0]) ? m[0].split(SCRIPT_CHANGE) : [m[0]]) {
      const chars = [...run];
      if (!UNSPACED.test(run)) out.push(chars.slice(0, WORD_PREFIX).join(''));
      else if (chars.length === 1) out.push(chars[0]);
      else for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
    }
    if (out.length >= MAX_WORDS) break;
  }
  return out.slice(0, MAX_WORDS);
}

/** FNV-1a, 32 bits, over UTF-16 code units. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The tokens a text is indexed and searched by (segments.ts, `memory_tokens`): its words and each pair of adjacent
 * words (which finds `Open the file` for `Open the files` in a memory where `open` and `the` are everywhere), each
 * hashed to 32 bits with the memory it belongs to (`salt`: scope and source language), so that two memories never
 * share an index entry. Pairs come first: they are the rarer, and a lookup reads the first tokens only.
 */
export function indexTokens(norm: string, salt: string): number[] {
  const words = indexWords(norm);
  const out = new Set<number>();
  for (let i = 0; i + 1 < words.length; i++) out.add(fnv1a(`${salt}\u0000${words[i]}\u0000${words[i + 1]}`));
  for (const w of words) out.add(fnv1a(`${salt}\u0000${w}`));
  return [...out];
}

/**
 * The lookup key of a normalised text: 52 bits of its FNV-1a hashes (two seeds), a number both databases store
 * exactly in a BIGINT. Equal texts have equal keys; a key shared by different texts is told apart by comparing
 * the texts.
 */
export function normKey(norm: string): number {
  const hi = fnv1a(`\u0001${norm}`) & 0xfffff;
  return hi * 2 ** 32 + fnv1a(norm);
}
