// Flutter Application Resource Bundle, written for what Flutter's gen-l10n (flutter_tools/lib/src/localizations)
// accepts, with its default options (`use-escaping: false`, `relax-syntax: false`). One language per file.
//
// Resource names (`arbName`): gen-l10n turns every name into a Dart getter and refuses a name that is not
// `[a-z][A-Za-z0-9_]*`. Every key is renamed by one deterministic rule, which packages/core/src/collisions.ts applies too,
// so two keys that would share a name are refused at publish (`409 export_collision`):
//   1. letters with diacritics lose them (`café` → `cafe`, NFKD), other non-ASCII letters and digits become
//      `u<hex>` words (`ß` → `udf`);
//   2. the key is split on every other character, `_` included (`home.welcome`, `home_welcome`, `home-welcome`);
//   3. the words are joined in lowerCamelCase, the first word's first letter lowered, each later word's first letter
//      raised (`home.welcome` → `homeWelcome`; `_private` → `private`, since gen-l10n makes public getters only);
//   4. a name that starts with a digit is prefixed with `key` (`404.title` → `key404Title`); an empty one is `key`;
//   5. a Dart reserved word or a member the generated class already has (`class`, `of`, `localeName`, `toString`)
//      gets a trailing `_` (`class_`), which rule 2 never leaves, so it collides with nothing.
// ICU argument names that are not Dart parameter names go through the same rule.
//
// Files: `@@locale` in gen-l10n's spelling (`pt_BR`, matching `app_pt_BR.arb`). The base language's file is the
// template: it alone holds the `@key` entries (gen-l10n reads descriptions and placeholder types from the template),
// each with a `description` (the key's ctx and comment, and its name when renamed) and every placeholder typed. The
// other languages' files hold their messages only; a message they lack falls back to the template in the app.
//
// Messages are written in gen-l10n's grammar (message_parser.dart: text, `{name}`, plural, select and, for dates,
// `{name, date|time, ::DateFormatName}`); README "What each file can express" has the table. Everything else is
// converted or written in a documented fallback that is reported with `warn`:
// - `#` → `{count}` (the plural's argument), declared `num` with `decimalPattern`, so it shows like ICU's `#`;
// - `{n, number, …}` → `{n}` with a typed placeholder (NumberFormat constructor: `decimalPattern`, `percentPattern`,
//   `simpleCurrency` with the currency's `name`, `compact`, `compactLong`, `scientificPattern`); skeleton options
//   NumberFormat cannot take are dropped with a warning;
// - dates and times → `{d}` with a `DateTime` placeholder whose `format` is the DateFormat skeleton closest to the ICU
//   style (date short `yMd`, medium `yMMMd`, long `yMMMMd`, full `yMMMMEEEEd`; time short `jm`, medium `jms`, long and
//   full `jmz`; no style: date `yMd`, time `jms`) or to the ICU skeleton (a date and a time part joined with `+`; a
//   skeleton DateFormat has no constructor for becomes a custom pattern, with a warning); an argument shown with two
//   different formats in one message is written `{d, date, ::yMMMd}` at each place instead;
// - `=0`/`=1`/`=2`: gen-l10n reads them as its `zero`/`one`/`two` cases, which it also uses for the CLDR category of
//   that name. Kept when that category holds no other integer in the language (English `=1`), else left out with a
//   warning (French `=1`, whose `one` also holds 0); any other `=N` is left out with a warning;
// - plural `offset` (none in gen-l10n): written without it, with a warning (the number shown is the argument itself);
// - `selectordinal` (none in gen-l10n): its `other` branch, `#` as the number, with a warning;
// - a select option whose name gen-l10n cannot read (`non-binary`, `date`): left out, with a warning;
// - ICU quoting is resolved (gen-l10n without `use-escaping` reads `'` as text); a literal `{` or `}` cannot be
//   written then and becomes `｛`/`｝` (U+FF5B/U+FF5D), with a warning.
import {
  dict,
  FormatError,
  own,
  type Catalog,
  type CatalogEntry,
  type FormatModule,
  type RenderOptions,
} from '../catalog.js';
import { collapse, describe, exactValue, flatten, splitOptions, type Flat, type Part } from '../convert.js';
import {
  finishJson,
  fromPlain,
  hasExt,
  icuText,
  isObject,
  layoutOf,
  parseRootObject,
  sniffJson,
  toPlain,
  UNKNOWN_LANGUAGE,
  valueFor,
  type JsonObject,
  type JsonValue,
} from './json.js';
import { bcp47, languageKey, platformLocale } from '../languages.js';

const invalid = (message: string) => new FormatError('invalid_argument', message);

// ---------------------------------------------------------------------------------------------------------------
// Names

/** Dart's reserved words and the members every generated localizations class already has. */
const DART_TAKEN = new Set([
  ...['assert', 'break', 'case', 'catch', 'class', 'const', 'continue', 'default', 'do', 'else', 'enum', 'extends'],
  ...['false', 'final', 'finally', 'for', 'if', 'in', 'is', 'new', 'null', 'rethrow', 'return', 'super', 'switch'],
  ...['this', 'throw', 'true', 'try', 'var', 'void', 'while', 'with'],
  ...['localeName', 'of', 'delegate', 'localizationsDelegates', 'supportedLocales'],
  ...['hashCode', 'runtimeType', 'toString', 'noSuchMethod'],
]);

/** The Dart identifier a key (or an ICU argument name) is written under: the rule in the header. */
export function arbName(key: string): string {
  const words: string[] = [];
  let word = '';
  const end = () => {
    if (word) words.push(word);
    word = '';
  };
  for (const ch of key.normalize('NFKD')) {
    if (/[A-Za-z0-9]/.test(ch)) word += ch;
    else if (/\p{M}/u.test(ch)) continue;
    else if (/[\p{L}\p{N}]/u.test(ch)) {
      end();
      words.push(`u${ch.codePointAt(0)!.toString(16)}`);
    } else end();
  }
  end();
  let name = words.map((w, i) => (i === 0 ? w[0].toLowerCase() : w[0].toUpperCase()) + w.slice(1)).join('');
  if (!name || /^[0-9]/.test(name)) name = `key${name.charAt(0).toUpperCase()}${name.slice(1)}`;
  return DART_TAKEN.has(name) ? `${name}_` : name;
}

/** A Dart parameter name for an ICU argument: kept when it already is one, else renamed like keys. */
function paramName(arg: string): string {
  return /^[A-Za-z][A-Za-z0-9_]*$/.test(arg) && !DART_TAKEN.has(arg) ? arg : arbName(arg);
}

// ---------------------------------------------------------------------------------------------------------------
// Placeholders

/** One `@key.placeholders` entry, as gen-l10n reads it (gen_l10n_types.dart `Placeholder`). */
interface Placeholder {
  type: 'String' | 'num' | 'int' | 'double' | 'DateTime';
  format?: string;
  optionalParameters?: Record<string, string | number>;
  isCustomDateFormat?: 'true';
}

/** DateFormat's named constructors gen-l10n accepts as a `format` (its `validDateFormats`). */
const DATE_FORMATS = new Set([
  ...['d', 'E', 'EEEE', 'LLL', 'LLLL', 'M', 'Md', 'MEd', 'MMM', 'MMMd', 'MMMEd', 'MMMM', 'MMMMd', 'MMMMEEEEd'],
  ...['QQQ', 'QQQQ', 'y', 'yM', 'yMd', 'yMEd', 'yMMM', 'yMMMd', 'yMMMEd', 'yMMMM', 'yMMMMd', 'yMMMMEEEEd'],
  ...['yQQQ', 'yQQQQ', 'H', 'Hm', 'Hms', 'j', 'jm', 'jms', 'jmv', 'jmz', 'jv', 'jz', 'm', 'ms', 's'],
]);
const DATE_STYLE: Record<string, string> = { short: 'yMd', medium: 'yMMMd', long: 'yMMMMd', full: 'yMMMMEEEEd' };
const TIME_STYLE: Record<string, string> = { short: 'jm', medium: 'jms', long: 'jmz', full: 'jmz' };
// The order DateFormat's skeleton names write their fields in; the date fields come before `H`/`j`.
const FIELD_ORDER = 'yQMLEdHjmsvz';

/** A date/time part's DateFormat skeleton(s), or a custom pattern (with the reason it is not exact). */
function dateFormat(part: Extract<Part, { type: 'date' | 'time' }>, lang: string): { format: string; custom?: string } {
  const style = part.style;
  if (style === null) return { format: part.type === 'date' ? 'yMd' : 'jms' };
  if (!style.startsWith('::')) {
    const table = part.type === 'date' ? DATE_STYLE : TIME_STYLE;
    return { format: own(table, style) ?? (part.type === 'date' ? 'yMd' : 'jms') };
  }
  const skeleton = style.slice(2);
  // ICU skeletons name fields in any order; DateFormat's names in one: group each field's letters and sort.
  const runs = skeleton.match(/(.)\1*/g) ?? [];
  if (runs.every((r) => FIELD_ORDER.includes(r[0]))) {
    const sorted = [...runs].sort((a, b) => FIELD_ORDER.indexOf(a[0]) - FIELD_ORDER.indexOf(b[0])).join('');
    const cut = sorted.search(/[Hj]/);
    const pieces = cut > 0 ? [sorted.slice(0, cut), sorted.slice(cut)] : [sorted];
    if (pieces.every((p) => DATE_FORMATS.has(p))) return { format: pieces.join('+') };
  }
  return { format: customPattern(part.options, lang), custom: `skeleton ${style} has no DateFormat constructor` };
}

// Intl's parts as DateFormat pattern letters: the language's own pattern for a skeleton DateFormat cannot name.
const PATTERN_LETTER: Partial<Record<Intl.DateTimeFormatPartTypes, (o: Intl.DateTimeFormatOptions) => string>> = {
  year: (o) => (o.year === '2-digit' ? 'yy' : 'y'),
  month: (o) => ({ numeric: 'M', '2-digit': 'MM', short: 'MMM', long: 'MMMM', narrow: 'MMMMM' })[o.month ?? 'numeric'],
  day: (o) => (o.day === '2-digit' ? 'dd' : 'd'),
  weekday: (o) => (o.weekday === 'long' ? 'EEEE' : 'E'),
  hour: (o) => (o.hour12 === false || o.hourCycle === 'h23' ? 'HH' : 'h'),
  minute: () => 'mm',
  second: () => 'ss',
  dayPeriod: () => 'a',
  timeZoneName: () => 'z',
};

function customPattern(options: Intl.DateTimeFormatOptions, lang: string): string {
  let dtf: Intl.DateTimeFormat;
  try {
    dtf = new Intl.DateTimeFormat(bcp47(lang), options);
  } catch {
    dtf = new Intl.DateTimeFormat('en', options);
  }
  const resolved = dtf.resolvedOptions() as Intl.DateTimeFormatOptions;
  return dtf
    .formatToParts(new Date(Date.UTC(2001, 0, 2, 15, 4, 5)))
    .map((p) => {
      const letter = PATTERN_LETTER[p.type];
      if (letter) return letter(resolved);
      // DateFormat quotes literal text with `'`, and writes a quote as `''`.
      return /[A-Za-z']/.test(p.value) ? `'${p.value.replace(/'/g, "''")}'` : p.value;
    })
    .join('');
}

// What a number skeleton may say that NumberFormat's constructors express.
const NUMBER_OPTIONS = new Set(['style', 'currency', 'notation', 'compactDisplay', 'currencyDisplay']);

/** A number part's placeholder, and what it could not keep. */
function numberPlaceholder(part: Extract<Part, { type: 'number' }>): { decl: Placeholder; lost?: string } {
  const { style, options: o } = part;
  if (style === null) return { decl: { type: 'num', format: 'decimalPattern' } };
  if (style === 'integer') return { decl: { type: 'int', format: 'decimalPattern' } };
  if (style === 'percent') return { decl: { type: 'num', format: 'percentPattern' } };
  if (style === 'currency') return { decl: { type: 'num', format: 'simpleCurrency' } };
  if (!style.startsWith('::')) return { decl: { type: 'num', format: 'decimalPattern' }, lost: `style ${style}` };
  const extra = Object.keys(o).filter((k) => !NUMBER_OPTIONS.has(k));
  if (o.currencyDisplay && o.currencyDisplay !== 'symbol') extra.push('currencyDisplay');
  if (o.style === 'unit') extra.push('unit');
  const lost = extra.length ? `${style} (${extra.join(', ')})` : undefined;
  const compact = o.notation === 'compact';
  let decl: Placeholder;
  if (o.style === 'currency' && o.currency)
    decl = {
      type: 'num',
      format: compact ? 'compactSimpleCurrency' : 'simpleCurrency',
      optionalParameters: { name: o.currency },
    };
  else if (o.style === 'percent') decl = { type: 'num', format: 'percentPattern' };
  else if (compact) decl = { type: 'num', format: o.compactDisplay === 'long' ? 'compactLong' : 'compact' };
  else if (o.notation === 'scientific') decl = { type: 'num', format: 'scientificPattern' };
  else decl = { type: 'num', format: 'decimalPattern' };
  return { decl, lost };
}

const same = (a: Placeholder, b: Placeholder) => JSON.stringify(a) === JSON.stringify(b);

/**
 * What a message's arguments are, read from its base-language source: each argument's Dart name, its placeholder,
 * and whether a date argument is written in place (`{d, date, ::yMMMd}`) because the message shows it two ways.
 */
interface Plan {
  names: Map<string, string>;
  decl: Map<string, Placeholder>;
  inline: Set<string>;
}

function plan(flat: Flat | null, lang: string, warn: (reason: string) => void): Plan {
  const names = new Map<string, string>();
  const decl = new Map<string, Placeholder>();
  const inline = new Set<string>();
  const taken = new Set<string>();
  const name = (arg: string) => {
    if (!names.has(arg)) {
      const base = paramName(arg);
      let n = base;
      for (let i = 2; taken.has(n); i++) n = `${base}${i}`;
      taken.add(n);
      names.set(arg, n);
    }
  };
  // Strongest use first: a plural selector is a number whatever else the message does with it.
  const dates = new Map<string, Set<string>>();
  const declare = (arg: string, p: Placeholder, rank: number, ranks: Map<string, number>) => {
    name(arg);
    if ((ranks.get(arg) ?? -1) < rank) {
      ranks.set(arg, rank);
      decl.set(arg, p);
    }
  };
  const ranks = new Map<string, number>();
  const COUNT: Placeholder = { type: 'num', format: 'decimalPattern' };
  const walk = (f: Flat) => {
    if (f.kind === 'plural') declare(f.name, COUNT, 4, ranks);
    else if (f.kind === 'select') declare(f.name, { type: 'String' }, 1, ranks);
    if (f.kind !== 'leaf') {
      for (const o of Object.values(f.options)) walk(o);
      return;
    }
    for (const p of f.parts) {
      if (p.type === 'text') continue;
      if (p.type === 'arg') declare(p.name, { type: 'String' }, 0, ranks);
      else if (p.type === 'count') declare(p.name, COUNT, 4, ranks);
      else if (p.type === 'number') {
        const { decl: d, lost } = numberPlaceholder(p);
        if (lost) warn(`number {${p.name}} ${lost}: NumberFormat.${d.format} has no such option`);
        declare(p.name, d, 3, ranks);
      } else {
        const { format, custom } = dateFormat(p, lang);
        if (custom) warn(`${p.type} {${p.name}}: ${custom}; written as the pattern '${format}'`);
        const d: Placeholder = custom
          ? { type: 'DateTime', format, isCustomDateFormat: 'true' }
          : { type: 'DateTime', format };
        declare(p.name, d, 2, ranks);
        const seen = dates.get(p.name) ?? new Set<string>();
        seen.add(JSON.stringify(d));
        dates.set(p.name, seen);
      }
    }
  };
  if (flat) walk(flat);
  for (const [arg, formats] of dates) {
    if (formats.size < 2 || decl.get(arg)?.type !== 'DateTime') continue;
    const all = [...formats].map((s) => JSON.parse(s) as Placeholder);
    // gen-l10n's in-message date argument takes one DateFormat name, no pattern and no `+`.
    if (all.every((d) => !d.isCustomDateFormat && d.format && DATE_FORMATS.has(d.format))) {
      inline.add(arg);
      decl.set(arg, { type: 'DateTime' });
    }
  }
  return { names, decl, inline };
}

// ---------------------------------------------------------------------------------------------------------------
// Messages

/** gen-l10n's plural cases for `=0`, `=1`, `=2` (gen_l10n.dart `pluralCases`): each shares its category's slot. */
const EXACT_SLOT: Record<number, string> = { 0: 'zero', 1: 'one', 2: 'two' };
/** Option names gen-l10n's lexer reads as keywords, so a select cannot name an option so. */
const KEYWORDS = new Set(['plural', 'select', 'date', 'time']);

function pluralRules(lang: string): Intl.PluralRules {
  try {
    return new Intl.PluralRules(bcp47(lang));
  } catch {
    return new Intl.PluralRules('en');
  }
}

/** Whether no integer but `n` falls in `category` in `lang` (so `=n` can take the category's slot). */
function categoryHoldsOnly(lang: string, category: string, n: number): boolean {
  const rules = pluralRules(lang);
  // CLDR rules look at the last two digits, the thousands and the millions (`many` in French for 1000000).
  for (const i of [...Array(220).keys(), 1000, 1001, 100000, 1000000])
    if (i !== n && rules.select(i) === category) return false;
  return true;
}

interface Writer {
  lang: string;
  plan: Plan;
  warn: (reason: string) => void;
}

function writeText(text: string, w: Writer): string {
  if (!/[{}]/.test(text)) return text;
  w.warn('a literal { or } (gen-l10n without use-escaping has no way to write it): written as ｛ ｝');
  return text.replace(/\{/g, '｛').replace(/\}/g, '｝');
}

function writeParts(parts: Part[], w: Writer): string {
  let out = '';
  for (const p of parts) {
    if (p.type === 'text') {
      out += writeText(p.text, w);
      continue;
    }
    const name = w.plan.names.get(p.name);
    if (name === undefined) {
      // An argument the source does not have (a gate let it through as the team's own): shown as written.
      w.warn(`{${p.name}} is not an argument of the base message: written as text`);
      out += writeText(p.type === 'count' ? '#' : `{${p.name}}`, w);
      continue;
    }
    const declared = w.plan.decl.get(p.name);
    if (p.type === 'date' || p.type === 'time') {
      const { format } = dateFormat(p, w.lang);
      if (w.plan.inline.has(p.name) && DATE_FORMATS.has(format)) {
        out += `{${name}, ${p.type}, ::${format}}`;
        continue;
      }
      if (declared?.format !== undefined && declared.format !== format)
        w.warn(`${p.type} {${p.name}}: shown with the base message's format ${declared.format}, not ${format}`);
    } else if (p.type === 'number' && declared) {
      const { decl } = numberPlaceholder(p);
      if (!same(decl, declared))
        w.warn(`number {${p.name}}: shown with the base message's format ${declared.format ?? declared.type}`);
    }
    out += `{${name}}`;
  }
  return out;
}

function writeFlat(f: Flat, w: Writer): string {
  if (f.kind === 'leaf') return writeParts(f.parts, w);
  const name = w.plan.names.get(f.name) ?? paramName(f.name);
  const options: string[] = [];
  if (f.kind === 'select') {
    for (const [key, branch] of Object.entries(f.options)) {
      if (key !== 'other' && (!/^[A-Za-z0-9_|]+$/.test(key) || KEYWORDS.has(key))) {
        w.warn(`select {${f.name}} option ${key}: gen-l10n cannot read that option name; left out`);
        continue;
      }
      options.push(`${key} {${writeFlat(branch, w)}}`);
    }
    return `{${name}, select, ${options.join(' ')}}`;
  }
  if (f.offset)
    w.warn(`plural {${f.name}} offset:${f.offset} (gen-l10n has none): written without it, showing {${f.name}} itself`);
  const { categories, exact } = splitOptions(f.options);
  const dropped = new Set<string>();
  const kept: string[] = [];
  for (const key of exact) {
    const n = exactValue(key);
    const slot = Number.isInteger(n) ? own(EXACT_SLOT, String(n)) : undefined;
    if (!slot) {
      w.warn(`plural {${f.name}} ${key}: gen-l10n takes only =0, =1 and =2; left out`);
      continue;
    }
    if (!categoryHoldsOnly(w.lang, slot, n)) {
      w.warn(
        `plural {${f.name}} ${key}: gen-l10n reads it as the \`${slot}\` case, which holds other numbers in ${w.lang}; left out`,
      );
      continue;
    }
    // The category holds no other integer, and ICU picks `=n` for n first: the category's text is never shown.
    dropped.add(slot);
    kept.push(key);
  }
  for (const key of exact)
    if (kept.includes(key)) options.push(`=${exactValue(key)} {${writeFlat(f.options[key], w)}}`);
  // gen-l10n also shows the zero/one/two case for exactly 0/1/2 when the language has no such category (a source
  // baked into another language): ICU never shows it there, so it is not written.
  const known = pluralRules(w.lang).resolvedOptions().pluralCategories as string[];
  for (const key of categories)
    if (!dropped.has(key) && (known.includes(key) || !Object.values(EXACT_SLOT).includes(key)))
      options.push(`${key} {${writeFlat(f.options[key], w)}}`);
  return `{${name}, plural, ${options.join(' ')}}`;
}

/** A catalog value as a gen-l10n message, in `lang`, following the base message's `plan`. */
function writeMessage(icu: string, w: Writer): string {
  const flat = flatten(icu);
  if (!flat) {
    w.warn('not an ICU message gen-l10n can read: written as text');
    return writeText(icu, w);
  }
  const kept = collapse(
    flat,
    (node) => (node.kind === 'plural' && node.ordinal ? `${describe(node)} (gen-l10n has no selectordinal)` : null),
    w.warn,
  );
  return writeFlat(kept, w);
}

function description(entry: CatalogEntry, name: string): string {
  const lines = [entry.ctx, entry.comment].filter((s): s is string => !!s);
  if (name !== entry.fileKey || !lines.length) lines.push(`Key: ${entry.fileKey}`);
  return lines.join('\n');
}

function renderArb(catalog: Catalog, opts: RenderOptions): string {
  const lang = opts.languages[0] ?? opts.baseLanguage;
  const isBase = languageKey(lang) === languageKey(opts.baseLanguage);
  const meta = catalog.meta ?? {};
  const root: JsonObject = new Map();
  if (languageKey(lang) !== UNKNOWN_LANGUAGE) root.set('@@locale', platformLocale(lang, 'posix'));
  for (const [k, v] of Object.entries((meta.globals as Record<string, unknown> | undefined) ?? {}))
    root.set(k, fromPlain(v));
  const written = new Set<string>();
  for (const entry of catalog.entries) {
    const warn = (reason: string) => opts.warn?.({ key: entry.fileKey, lang, reason });
    const name = arbName(entry.fileKey);
    if (written.has(name)) {
      warn(`its ARB name ${name} is another key's: left out (publish refuses this as export_collision)`);
      continue;
    }
    written.add(name);
    const source = entry.source ?? valueFor(entry, opts.baseLanguage);
    const sourceFlat = source ? flatten(icuText(source)) : null;
    // The plan's own warnings are the base message's: reported once, with the template.
    const p = plan(sourceFlat, opts.baseLanguage, isBase ? warn : () => undefined);
    const v = valueFor(entry, lang);
    if (v) root.set(name, writeMessage(icuText(v), { lang, plan: p, warn }));
    if (!isBase) continue;
    // Metadata a synced ARB file carried (`type`, `context`, `x-…`) is kept; description and placeholders are ours.
    const kept = entry.meta?.arb === undefined ? undefined : fromPlain(entry.meta.arb);
    const md: JsonObject = isObject(kept) ? kept : new Map<string, JsonValue>();
    md.set('description', description(entry, name));
    if (p.decl.size) {
      const placeholders: JsonObject = new Map();
      for (const [arg, d] of p.decl) placeholders.set(p.names.get(arg)!, fromPlain(d));
      md.set('placeholders', placeholders);
    } else md.delete('placeholders');
    root.set(`@${name}`, md);
  }
  return finishJson(root, { ...meta, trailingNewline: meta.trailingNewline ?? true });
}

// ---------------------------------------------------------------------------------------------------------------
// Reading (detection and parsing of ARB files a team sends)

function parseArb(text: string): Catalog {
  const root = parseRootObject(text);
  const locale = root.get('@@locale');
  if (locale !== undefined && typeof locale !== 'string') throw invalid('@@locale: must be a string');
  const lang = locale || UNKNOWN_LANGUAGE;
  // Dicts: the file names the globals and the language (a `@@locale` of `__proto__` stays data).
  const globals = dict<unknown>();
  const byKey = new Map<string, CatalogEntry>();
  const entry = (key: string) => {
    let e = byKey.get(key);
    if (!e) {
      e = { fileKey: key, values: dict() };
      byKey.set(key, e);
    }
    return e;
  };
  for (const [k, v] of root) {
    if (k === '@@locale') continue;
    if (k.startsWith('@@')) {
      globals[k] = toPlain(v);
    } else if (k.startsWith('@')) {
      // Metadata may come before its message (Weblate writes all of it first); it belongs to the message either way.
      const e = entry(k.slice(1));
      e.meta = { ...e.meta, arb: toPlain(v) };
      const description = isObject(v) ? v.get('description') : undefined;
      if (typeof description === 'string' && description) e.comment = description;
    } else {
      if (typeof v !== 'string') throw invalid(`${k}: values must be strings`);
      const e = entry(k);
      if (v !== '') e.values[lang] = { kind: 'text', text: v };
    }
  }
  const meta: Record<string, unknown> = { ...layoutOf(text) };
  if (Object.keys(globals).length) meta.globals = globals;
  return {
    format: 'arb',
    sourceLanguage: locale || null,
    language: locale || null,
    entries: [...byKey.values()],
    meta,
  };
}

export const format: FormatModule = {
  id: 'arb',
  detect(text, fileName) {
    const root = sniffJson(text);
    const ext = hasExt(fileName, '.arb');
    if (root === null) return 0;
    if (root === 'not-object') return ext ? 0.5 : 0;
    if ('sourceLanguage' in root && 'strings' in root) return 0;
    const metadata = Object.entries(root).some(
      ([k, v]) => k.startsWith('@') && !k.startsWith('@@') && v !== null && typeof v === 'object' && !Array.isArray(v),
    );
    const bonus = ext ? 0.1 : 0;
    if (metadata) return 0.9 + bonus;
    // A flat JSON file may declare its language with `@@locale` too: without `@key` metadata or an .arb name,
    // the json family (0.7) is the better guess.
    if (typeof root['@@locale'] === 'string') return ext ? 0.85 : 0.65;
    return ext ? 0.75 : 0;
  },
  parse: parseArb,
  render: renderArb,
};
