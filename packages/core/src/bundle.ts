// Runtime bundles: one i18next resource file per language, nested by the key's dot segments. A bundle is
// i18next-native: plain i18next v4 JSON that i18next reads with no plugin (no i18next-icu; an app that wants ICU
// reads the `json` file format with i18next-icu instead). Every ICU feature is converted through
// packages/core/src/convert.ts, or written in a documented fallback reported with `warn` (README "What each file can
// express"):
// - `{name}` → `{{name}}`; ICU quoting is resolved (`'{'curly'}'` is `{curly}`); tags are text, kept as written.
// - plural → suffix keys (`key_one`, `key_few`, …) for every category of the bundle's language (a category the
//   message lacks gets its `other`, as ICU does), `#` → `{{count, number}}` (ICU formats `#` in the locale). A plural
//   inside a sentence is hoisted into whole sentences first. i18next chooses by the `count` option only: a plural
//   argument named otherwise is written the same way, its references as `count`, with a warning (the app must pass
//   the value as `count`).
// - `=0` → `key_zero`, which i18next reads for count 0 before any category, unless the language's CLDR `zero`
//   category holds other numbers too (Latvian: 10, 11, …), where `_zero` is that category: then dropped, warned.
//   Any other `=N` is dropped (count N shows its category's form), warned. `offset:N` cannot be expressed (i18next
//   selects on and shows `count` itself): written without it, warned.
// - selectordinal → `key_ordinal_one`, … (`t(key, {count, ordinal: true})`), the same `count` rule.
// - select → i18next context: `key_male`, `key_female`, the `other` branch as the bare `key` (what i18next shows
//   for an unknown or missing context); the app passes the select's value as `context`, and a reference to the
//   select argument in the text is written `{{context}}`. A plural inside a select is `key_male_one`, …; a second
//   select or plural inside the first is written as its `other` branch, warned (i18next has one of each).
// - `{n, number}` and its styles and skeletons → i18next's built-in formatters: `{{n, number}}`,
//   `{{n, number(style: percent)}}`, `{{n, currency(EUR)}}`, `{{n, number(minimumFractionDigits: 2)}}`; dates and
//   times → `{{d, datetime(dateStyle: medium)}}`, `{{t, datetime(timeStyle: short)}}`, skeleton fields alike. An
//   option i18next's format string cannot carry (a skeleton's `scale`) is left out, warned.
// - Literal `{{` (or `$t(`, i18next nesting) in text is read by i18next as an interpolation: written as is, warned.
import { dict, own, type FormatWarning } from './catalog.js';
import { describe, flatten, splitOptions, exactValue, type Flat, type Part } from './convert.js';
import { isValidIcu } from './icu.js';
import type { Snapshot } from './snapshot.js';

/** i18next resources: values, nested under the key's dot segments. */
interface Tree {
  [segment: string]: string | Tree;
}

// Text with simple `{name}` arguments and no apostrophe that quotes (most messages): converted without a parse.
// An apostrophe quotes only before a brace, a tag bracket, `#`, `|` or another apostrophe; elsewhere it is text.
const SIMPLE_TEXT = /^[^{}]*(?:\{\s*\w+\s*\}[^{}]*)*$/;
const QUOTING = /'[{}<>#|']/;
const SIMPLE_ARG = /\{\s*(\w+)\s*\}/g;
const NESTING = '$t(';

/** The selectors a sentence sits under: the i18next context and the plural (or ordinal) it is a form of. */
interface Place {
  selectArg: string | null;
  context: string | null;
  plural: { name: string; ordinal: boolean; category: string } | null;
}
const TOP: Place = { selectArg: null, context: null, plural: null };

/** One message being written: where its keys go and whom to tell about a fallback. */
interface Writer {
  lang: string;
  warn: (reason: string) => void;
  emit: (suffix: string, text: string) => void;
}

const CLDR_ORDER = ['zero', 'one', 'two', 'few', 'many', 'other'];

interface Rules {
  rules: Intl.PluralRules;
  /** The categories, in CLDR order. */
  categories: string[];
  /** Per exact number, the key it can be written as, or null (see exactKey). */
  exact: Map<number, string | null>;
}
const rulesCache = new Map<string, Rules>();

/** The language's CLDR plural rules as i18next selects with them (Intl.PluralRules). */
function rulesOf(lang: string, ordinal: boolean): Rules {
  const id = `${ordinal ? 'o' : 'c'}${lang}`;
  let r = rulesCache.get(id);
  if (!r) {
    const type = ordinal ? 'ordinal' : 'cardinal';
    let rules: Intl.PluralRules;
    try {
      rules = new Intl.PluralRules(lang, { type });
    } catch {
      // Not a tag Intl reads: i18next falls back to its own default rules; the message's categories are written.
      rules = new Intl.PluralRules('en', { type });
    }
    const categories = [...rules.resolvedOptions().pluralCategories].sort(
      (a, b) => CLDR_ORDER.indexOf(a) - CLDR_ORDER.indexOf(b),
    );
    r = { rules, categories, exact: new Map() };
    rulesCache.set(id, r);
  }
  return r;
}

/**
 * The suffix category an exact match `=n` can be written as without changing what any count shows, or null:
 * `zero` for `=0` (i18next looks `_zero` up first for count 0), unless the language's CLDR `zero` holds other numbers
 * (Latvian: 10, 11, …); otherwise n's category when n is its only whole number (`=1` in English is `one`, not in
 * Russian, whose `one` is also 21).
 */
function exactKey(lang: string, ordinal: boolean, n: number): string | null {
  const r = rulesOf(lang, ordinal);
  let key = r.exact.get(n);
  if (key === undefined) {
    key = null;
    if (Number.isInteger(n) && n >= 0) {
      const category = n === 0 && !ordinal ? 'zero' : r.rules.select(n);
      key = category;
      for (let m = 0; m <= 1000 && key; m++) if (m !== n && r.rules.select(m) === category) key = null;
    }
    r.exact.set(n, key);
  }
  return key;
}

function suffixOf(at: Place): string {
  let s = at.context === null ? '' : `_${at.context}`;
  if (at.plural) s += `${at.plural.ordinal ? '_ordinal_' : '_'}${at.plural.category}`;
  return s;
}

/** Writes one ICU message as the i18next values it becomes. */
function writeMessage(icu: string, w: Writer): void {
  if (SIMPLE_TEXT.test(icu) && !(icu.includes("'") && QUOTING.test(icu))) {
    if (icu.includes(NESTING)) w.warn(nestingWarning);
    w.emit('', icu.includes('{') ? icu.replace(SIMPLE_ARG, '{{$1}}') : icu);
    return;
  }
  const flat = flatten(icu);
  if (!flat) {
    // Not ICU (a synced file's own text, `{{name}}` included): the app's text, written as it is.
    if (isValidIcu(icu, 'text')) w.warn('a selector hoisting cannot lift into whole sentences: written as ICU text');
    w.emit('', icu);
    return;
  }
  walk(flat, TOP, w);
}

const nestingWarning = 'literal `$t(` in text: i18next reads it as nesting';

function walk(node: Flat, at: Place, w: Writer): void {
  if (node.kind === 'leaf') {
    w.emit(suffixOf(at), leafText(node.parts, at, w));
    return;
  }
  if (node.kind === 'select') {
    if (at.selectArg !== null) {
      w.warn(`${describe(node)}: i18next has one context per key; written as its \`other\` branch`);
      walk(node.options.other ?? { kind: 'leaf', parts: [] }, at, w);
      return;
    }
    for (const [value, option] of Object.entries(node.options))
      walk(option, { ...at, selectArg: node.name, context: value === 'other' ? null : value }, w);
    return;
  }
  if (at.plural) {
    w.warn(`${describe(node)}: i18next chooses on one count per key; written as its \`other\` branch`);
    walk(node.options.other ?? { kind: 'leaf', parts: [] }, at, w);
    return;
  }
  const what = describe(node);
  if (node.name !== 'count')
    w.warn(`${what}: i18next chooses plural forms by \`count\`; the app must pass ${node.name} as count`);
  if (node.offset)
    w.warn(
      `${what}: offset:${node.offset} dropped (i18next chooses and shows count itself, not count − ${node.offset})`,
    );
  const rules = rulesOf(w.lang, node.ordinal);
  const { categories, exact } = splitOptions(node.options);
  const other = node.options.other ?? { kind: 'leaf', parts: [] };
  const written = new Set<string>();
  const form = (category: string, option: Flat) => {
    if (written.has(category)) return;
    written.add(category);
    walk(option, { ...at, plural: { name: node.name, ordinal: node.ordinal, category } }, w);
  };
  // An exact match written as its category wins over the message's form of that category, as in ICU, where
  // that form is then never chosen (Arabic `zero` beside `=0`).
  for (const key of exact) {
    const n = exactValue(key);
    const category = exactKey(w.lang, node.ordinal, n);
    if (category && !written.has(category)) form(category, node.options[key]);
    else w.warn(`${what}: ${key} dropped (i18next has no exact matches; ${n} shows its plural category's form)`);
  }
  // Every category the language has (ICU reads `other` for a missing one; i18next would fall back to another
  // language), and the message's own too: a runtime with older CLDR data may still select them.
  for (const category of rules.categories) form(category, own(node.options, category) ?? other);
  for (const category of categories) form(category, node.options[category]);
}
// i18next hands a formatter every option of the t() call on top of the format string's (`{...formatOptions,
// ...options}`), so a message argument named like an Intl option (`day`, `style`) replaces that option.
const NUMBER_OPTIONS = new Set(
  'style currency currencyDisplay currencySign unit unitDisplay notation compactDisplay signDisplay useGrouping numberingSystem localeMatcher roundingMode roundingPriority roundingIncrement trailingZeroDisplay minimumIntegerDigits minimumFractionDigits maximumFractionDigits minimumSignificantDigits maximumSignificantDigits'.split(
    ' ',
  ),
);
const DATE_OPTIONS = new Set(
  'dateStyle timeStyle calendar dayPeriod numberingSystem localeMatcher timeZone hour12 hourCycle formatMatcher weekday era year month day hour minute second fractionalSecondDigits timeZoneName'.split(
    ' ',
  ),
);

function checkOptionNames(parts: Part[], at: Place, w: Writer): void {
  let numbers = false;
  let dates = false;
  for (const p of parts) {
    if (p.type === 'count' || p.type === 'number') numbers = true;
    else if (p.type === 'date' || p.type === 'time') dates = true;
  }
  if (!numbers && !dates) return;
  for (const p of parts) {
    if (p.type === 'text' || (at.plural && p.name === at.plural.name)) continue;
    if ((numbers && NUMBER_OPTIONS.has(p.name)) || (dates && DATE_OPTIONS.has(p.name)))
      w.warn(
        `argument {${p.name}} is also an Intl option, which i18next's formatters take from t()'s options: rename it`,
      );
  }
}

function leafText(parts: Part[], at: Place, w: Writer): string {
  checkOptionNames(parts, at, w);
  let out = '';
  // i18next interpolation names: the plural's argument is `count`, the select's `context`.
  const name = (n: string) => (at.plural && n === at.plural.name ? 'count' : n === at.selectArg ? 'context' : n);
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    switch (p.type) {
      case 'text':
        if (p.text.includes('{{') || (p.text.endsWith('{') && i + 1 < parts.length))
          w.warn('literal `{{` in text: i18next reads it as an interpolation');
        if (p.text.includes(NESTING)) w.warn(nestingWarning);
        out += p.text;
        break;
      case 'arg':
        out += `{{${name(p.name)}}}`;
        break;
      case 'count':
        out += `{{${name(p.name)}, number}}`;
        break;
      case 'number':
        out += `{{${name(p.name)}, ${numberFormat(p, w)}}}`;
        break;
      case 'date':
      case 'time':
        out += `{{${name(p.name)}, ${dateFormat(p, w)}}}`;
        break;
    }
  }
  return out;
}

/**
 * Intl options as i18next's format string carries them (`number(style: percent; minimumFractionDigits: 2)`): it
 * splits on `;` and `:`, strips quotes, and reads a numeric value with parseInt, so a value that would not survive
 * that is left out and reported.
 */
function formatOptions(options: object, w: Writer, what: string): string {
  const out: string[] = [];
  for (const [k, v] of Object.entries(options)) {
    if (v === undefined) continue;
    const ok =
      (typeof v === 'string' && /^[^;:(),']+$/.test(v) && Number.isNaN(Number(v))) ||
      typeof v === 'boolean' ||
      (typeof v === 'number' && Number.isInteger(v));
    // A skeleton's `scale` is formatjs's own (it multiplies before formatting); Intl, hence i18next, ignores it.
    if (!ok || k === 'scale') w.warn(`${what}: option ${k} ${JSON.stringify(v)} cannot be passed to i18next; left out`);
    else out.push(`${k}: ${String(v)}`);
  }
  return out.join('; ');
}

function numberFormat(p: Extract<Part, { type: 'number' }>, w: Writer): string {
  const what = `{${p.name}, number${p.style ? `, ${p.style}` : ''}}`;
  const keys = Object.keys(p.options);
  if (!keys.length) {
    if (p.style !== null) w.warn(`${what}: style ${p.style} means nothing to Intl; written as a plain number`);
    return 'number';
  }
  const { style, currency } = p.options;
  // The built-in `currency(EUR)`, the form i18next documents, when the skeleton says nothing else.
  if (style === 'currency' && currency && keys.length === 2 && /^[A-Za-z]{3}$/.test(currency))
    return `currency(${currency})`;
  const opts = formatOptions(p.options, w, what);
  return opts ? `number(${opts})` : 'number';
}

function dateFormat(p: Extract<Part, { type: 'date' | 'time' }>, w: Writer): string {
  const what = `{${p.name}, ${p.type}${p.style ? `, ${p.style}` : ''}}`;
  let options: Intl.DateTimeFormatOptions = p.options;
  if (!Object.keys(options).length) {
    if (p.style !== null) w.warn(`${what}: style ${p.style} means nothing to Intl; written with the default style`);
    // ICU's default: a date alone as Intl writes it, a time in the medium style (hours, minutes, seconds).
    if (p.type === 'time') options = { timeStyle: 'medium' };
  }
  const opts = formatOptions(options, w, what);
  return opts ? `datetime(${opts})` : 'datetime';
}

// Every node of the tree is a dict (null prototype): key segments are user data, and on a plain object a segment named
// `constructor` walked into Object itself and `__proto__` into Object.prototype, polluting the whole process.
function place(tree: Tree, name: string, suffix: string, value: string, warn: (reason: string) => void) {
  const parts = name.split('.');
  let node = tree;
  for (let i = 0; i < parts.length - 1; i++) {
    const next = node[parts[i]];
    if (typeof next === 'string') {
      // `a.b` is a value and `a.b.c` a key: the deeper key stays flat beside it.
      const flat = parts.slice(i).join('.') + suffix;
      if (flat in node) warn(`i18next key ${flat} is written by another key too; the first is kept`);
      else node[flat] = value;
      return;
    }
    node = next ?? (node[parts[i]] = dict<string | Tree>());
  }
  const leaf = parts[parts.length - 1] + suffix;
  if (leaf in node) warn(`i18next key ${leaf} is written by another key too; the first is kept`);
  else node[leaf] = value;
}

/**
 * The i18next resources of one language: its cells, the base language's sources for the base. `warn` is told of
 * every cell written in a documented fallback (see the header), with the key's name and `lang`.
 */
export function bundleFor(s: Snapshot, lang: string, warn?: (w: FormatWarning) => void): Tree {
  const tree = dict<string | Tree>();
  let key = '';
  // A reason is told once per cell, though every sentence of a plural may meet it.
  const told = new Set<string>();
  const w: Writer = {
    lang,
    warn: warn
      ? (reason) => {
          if (told.has(reason)) return;
          told.add(reason);
          warn({ key, lang, reason });
        }
      : () => {},
    emit: (suffix, text) => place(tree, key, suffix, text, w.warn),
  };
  for (const k of s.keys) {
    const value = lang === s.baseLang ? k.source : own(k.cells, lang)?.value;
    if (value === undefined) continue;
    key = k.name;
    if (told.size) told.clear();
    writeMessage(value, w);
  }
  return tree;
}
