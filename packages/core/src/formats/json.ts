// Flat JSON (`{"nav.home": "Home"}`), plus the JSON machinery every JSON-based format shares: a strict parser
// that keeps key order and refuses duplicate keys and deep nesting, a printer, and the base-only helpers.
// Only the files of this folder are ours to add, so the shared parts live here rather than in a helper module.
import {
  dict,
  FormatError,
  own,
  type Catalog,
  type CatalogEntry,
  type CatalogValue,
  type FormatModule,
  type RenderOptions,
} from '../catalog.js';
import { collapse, describe, flatten, type Flat, type Warn } from '../convert.js';
import { escapeIcuText, formsToIcu, isExactKey, isValidIcu, pluralCategories } from '../icu.js';
import { languageKey } from '../languages.js';

// ---------------------------------------------------------------------------------------------------------------
// Strict JSON

/** An object is a Map so that key order survives (a plain object would move integer-like keys such as Angular digests first). */
export type JsonObject = Map<string, JsonValue>;
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

const MAX_DEPTH = 32;

export const isObject = (v: unknown): v is JsonObject => v instanceof Map;

const invalid = (message: string) => new FormatError('invalid_argument', message);

/**
 * RFC 8259 JSON, refusing what JSON.parse lets through silently: a key twice in one object (JSON.parse keeps the last)
 * and nesting deeper than `maxDepth` (a hostile file must not exhaust the stack of anything that walks the result).
 * The recursion is bounded by `maxDepth`, so the parser itself cannot overflow either.
 */
export function parseJson(text: string, maxDepth = MAX_DEPTH): JsonValue {
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const len = text.length;

  const where = (at: number) => {
    let line = 1;
    let lineStart = 0;
    for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) {
      line++;
      lineStart = i + 1;
    }
    return `line ${line}, column ${at - lineStart + 1}`;
  };
  const fail = (what: string, at = pos): never => {
    throw invalid(`invalid JSON: ${what} at ${where(at)}`);
  };
  const skipWs = () => {
    while (pos < len) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
  };

  const parseString = (): string => {
    // pos is at the opening quote
    const start = pos;
    pos++;
    let out = '';
    let chunk = pos;
    for (;;) {
      if (pos >= len) fail('unterminated string', start);
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        out += text.slice(chunk, pos);
        pos++;
        return out;
      }
      if (c < 0x20) fail('control character in string');
      if (c !== 0x5c) {
        pos++;
        continue;
      }
      out += text.slice(chunk, pos);
      const e = text[pos + 1];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          const hex = text.slice(pos + 2, pos + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad \\u escape');
          out += String.fromCharCode(parseInt(hex, 16));
          pos += 4;
          break;
        }
        default:
          fail('bad escape');
      }
      pos += 2;
      chunk = pos;
    }
  };

  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

  const parseValue = (depth: number): JsonValue => {
    skipWs();
    if (pos >= len) fail('unexpected end of input');
    const c = text[pos];
    if (c === '{' || c === '[') {
      if (depth >= maxDepth) fail(`nesting deeper than ${maxDepth} levels`);
      return c === '{' ? parseObject(depth + 1) : parseArray(depth + 1);
    }
    if (c === '"') return parseString();
    if (text.startsWith('true', pos)) {
      pos += 4;
      return true;
    }
    if (text.startsWith('false', pos)) {
      pos += 5;
      return false;
    }
    if (text.startsWith('null', pos)) {
      pos += 4;
      return null;
    }
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text);
    if (m) {
      pos += m[0].length;
      return Number(m[0]);
    }
    return fail(`unexpected ${JSON.stringify(c)}`);
  };

  const parseObject = (depth: number): JsonObject => {
    pos++;
    const obj: JsonObject = new Map();
    skipWs();
    if (text[pos] === '}') {
      pos++;
      return obj;
    }
    for (;;) {
      skipWs();
      if (text[pos] !== '"') fail(pos >= len ? 'unexpected end of input' : 'expected a key');
      const keyAt = pos;
      const key = parseString();
      if (obj.has(key)) fail(`duplicate key ${JSON.stringify(key)}`, keyAt);
      skipWs();
      if (text[pos] !== ':') fail(pos >= len ? 'unexpected end of input' : 'expected ":"');
      pos++;
      obj.set(key, parseValue(depth));
      skipWs();
      if (text[pos] === ',') {
        pos++;
        continue;
      }
      if (text[pos] === '}') {
        pos++;
        return obj;
      }
      fail(pos >= len ? 'unexpected end of input' : 'expected "," or "}"');
    }
  };

  const parseArray = (depth: number): JsonValue[] => {
    pos++;
    const arr: JsonValue[] = [];
    skipWs();
    if (text[pos] === ']') {
      pos++;
      return arr;
    }
    for (;;) {
      arr.push(parseValue(depth));
      skipWs();
      if (text[pos] === ',') {
        pos++;
        continue;
      }
      if (text[pos] === ']') {
        pos++;
        return arr;
      }
      fail(pos >= len ? 'unexpected end of input' : 'expected "," or "]"');
    }
  };

  const value = parseValue(0);
  skipWs();
  if (pos < len) fail('unexpected data after the JSON value');
  return value;
}

/** A parsed value as plain JSON data, for meta that is stored as JSON (objects are dicts: a file's keys are data). */
export function toPlain(v: JsonValue): unknown {
  if (isObject(v)) {
    const o = dict<unknown>();
    for (const [k, x] of v) o[k] = toPlain(x);
    return o;
  }
  if (Array.isArray(v)) return v.map(toPlain);
  return v;
}

/** Plain JSON data (meta handed back by the store) as a JsonValue. */
export function fromPlain(v: unknown): JsonValue {
  if (Array.isArray(v)) return v.map(fromPlain);
  if (v !== null && typeof v === 'object') {
    const m: JsonObject = new Map();
    for (const [k, x] of Object.entries(v)) m.set(k, fromPlain(x));
    return m;
  }
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) return v;
  return null;
}

export interface PrintStyle {
  indent: string;
  /** Between a key and its value: JSON.stringify's `": "` or Xcode's `" : "`. */
  colon: string;
  /** How an empty object is written (`{}`, or Xcode's `{\n\n}` with the closing brace indented). */
  emptyObject: (indent: string) => string;
  /** Key order of the object at `path` (its keys from the root); null keeps insertion order. */
  order?: (path: readonly string[]) => ((a: string, b: string) => number) | null;
}

const STRINGIFY_STYLE = (indent = '  '): PrintStyle => ({ indent, colon: ': ', emptyObject: () => '{}' });

export function printJson(v: JsonValue, style: PrintStyle, level = 0, path: string[] = []): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return JSON.stringify(v);
  const inner = style.indent.repeat(level + 1);
  const outer = style.indent.repeat(level);
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[\n${v.map((x) => inner + printJson(x, style, level + 1, path)).join(',\n')}\n${outer}]`;
  }
  if (v.size === 0) return style.emptyObject(outer);
  let keys = [...v.keys()];
  const cmp = style.order?.(path);
  if (cmp) keys = keys.sort(cmp);
  const lines = keys.map(
    (k) => `${inner}${JSON.stringify(k)}${style.colon}${printJson(v.get(k)!, style, level + 1, [...path, k])}`,
  );
  return `{\n${lines.join(',\n')}\n${outer}}`;
}

/** Indentation unit and final newline of a JSON file, so a re-render keeps the file's layout. */
export function layoutOf(text: string): { indent: string; trailingNewline: boolean } {
  const m = /\n([ \t]+)\S/.exec(text);
  return { indent: m ? m[1] : '  ', trailingNewline: text.endsWith('\n') };
}

// ---------------------------------------------------------------------------------------------------------------
// Languages and values shared by the renderers

/** A single-language file that does not say its language keeps its values under this code. */
export const UNKNOWN_LANGUAGE = 'und';

/** The value of `lang` in an entry, matching codes loosely (`pt_BR` = `pt-br`); falls back to an unknown-language value. */
export function valueFor(entry: CatalogEntry, lang: string | undefined): CatalogValue | undefined {
  if (lang !== undefined) {
    const exact = own(entry.values, lang);
    if (exact) return exact;
    const n = languageKey(lang);
    for (const [k, v] of Object.entries(entry.values)) if (languageKey(k) === n) return v;
  }
  return own(entry.values, UNKNOWN_LANGUAGE);
}

/** `lang` as the file spelled it when the file declared the same language (`en_US` stays `en_US` for `en-us`). */
export function fileSpelling(lang: string, catalog: Catalog): string {
  const declared = catalog.language ?? catalog.sourceLanguage;
  return declared && languageKey(declared) === languageKey(lang) ? declared : lang;
}

/** A value as one ICU string: plural values become `{arg, plural, ...}`. */
export function icuText(v: CatalogValue): string {
  return v.kind === 'text' ? v.text : formsToIcu(v.forms, v.arg ?? 'count');
}

// A root string field that names the file's language, if its value looks like a language tag.
const LOCALE_KEYS = ['@@locale', 'locale'] as const;
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{1,8})*$/;

// ---------------------------------------------------------------------------------------------------------------
// Placeholder styles that are not ICU: i18next `{{name}}` and Angular `{$NAME}`

type Interpolation = 'i18next' | 'angular';

const ICU_NAME_CHAR = /[^\p{L}\p{N}_]/gu;
const ICU_COMPLEX = /\{\s*[\p{L}\p{N}_]+\s*,\s*(?:plural|select|selectordinal)\s*,/u;

/**
 * Rewrites foreign placeholders as ICU arguments. `names` maps each ICU name to the placeholder's original inner text
 * (`{{user.name}}` → `{user_name}`, `{{count, number}}` → `{count}`), so render writes back exactly those and leaves
 * any real ICU argument of the value alone.
 */
function toIcuPlaceholders(
  value: string,
  style: Interpolation,
): { text: string; names: Record<string, string> } | null {
  const pattern = style === 'i18next' ? /\{\{([^{}]*)\}\}/g : /\{\$([^{}\s]+)\}/g;
  // An ICU plural or select can hold `{{n}}` (a branch that is just an argument): such a value is ICU, not i18next.
  if (style === 'i18next' && ICU_COMPLEX.test(value)) return null;
  if (!pattern.test(value)) return null;
  pattern.lastIndex = 0;
  // Placeholder names are the file's (`{{__proto__}}`): a dict keeps each as data, so render writes it back.
  const names = dict<string>();
  const taken = new Map<string, string>();
  let changed = false;
  const text = value.replace(pattern, (whole, inner: string) => {
    let base = inner.trim();
    if (style === 'i18next') base = base.replace(/^-\s*/, '').split(',')[0].trim();
    base = base.replace(ICU_NAME_CHAR, '_');
    if (!base) return whole;
    let name = base;
    for (let i = 2; taken.has(name) && taken.get(name) !== inner; i++) name = `${base}_${i}`;
    taken.set(name, inner);
    names[name] = inner;
    changed = true;
    return `{${name}}`;
  });
  return changed ? { text, names } : null;
}

function fromIcuPlaceholders(value: string, style: Interpolation, names: Record<string, string> | undefined): string {
  return value.replace(/\{\s*([\p{L}\p{N}_]+)\s*\}/gu, (whole, name: string) => {
    if (names && !Object.hasOwn(names, name)) return whole;
    const inner = names?.[name] ?? name;
    return style === 'i18next' ? `{{${inner}}}` : `{$${inner}}`;
  });
}

/** entry.meta for a converted value, or undefined. */
function interpolationMeta(style: Interpolation, names: Record<string, string>): Record<string, unknown> {
  return { interpolation: style, placeholders: names };
}

/**
 * Why FormatJS (intl-messageformat, the json family's ICU runtime) cannot read a message its tags make rich text:
 * its tags take no attributes (`<a href="…">`: INVALID_TAG) and must be closed (`<br>`: UNCLOSED_TAG). The value is
 * written as it is; the warning says so, as angular_json reports what Angular cannot read.
 */
function formatJsGap(text: string): string | null {
  if (!text.includes('<') || isValidIcu(text, 'rich') || !isValidIcu(text, 'text')) return null;
  return 'tags with attributes or without a closing tag: written as ICU, which FormatJS (intl-messageformat) cannot read';
}

/** The text a base-only renderer writes for a value, converting placeholders back for entries parsed with them. */
export function renderLeaf(entry: CatalogEntry, v: CatalogValue): string {
  const text = icuText(v);
  const style = entry.meta?.interpolation;
  if (style === 'i18next' || style === 'angular') {
    return fromIcuPlaceholders(text, style, entry.meta?.placeholders as Record<string, string> | undefined);
  }
  return text;
}

/** A base-only leaf: a non-empty string, converted to ICU when it uses a foreign placeholder style. */
export function leafEntry(fileKey: string, value: JsonValue, lang: string, styles: Interpolation[]): CatalogEntry {
  if (typeof value !== 'string' || value === '') throw invalid(`${fileKey}: values must be non-empty strings`);
  for (const style of styles) {
    const conv = toIcuPlaceholders(value, style);
    if (conv)
      return {
        fileKey,
        values: dict<CatalogValue>([[lang, { kind: 'text', text: conv.text }]]),
        meta: interpolationMeta(style, conv.names),
      };
  }
  return { fileKey, values: dict<CatalogValue>([[lang, { kind: 'text', text: value }]]) };
}

// ---------------------------------------------------------------------------------------------------------------
// i18next v4 plural suffixes: sibling keys `item_one`, `item_other` are one plural message `item`

const CLDR_CATEGORIES = ['zero', 'one', 'two', 'few', 'many', 'other'] as const;
const PLURAL_SUFFIX = /^([\s\S]+)_(zero|one|two|few|many|other)$/;

/**
 * entry.meta.plural of an entry read from suffix keys. `count`: the inner text of the file's `{{count}}` (which the
 * ICU forms hold as `#`), written back for `#`; `counts`: the forms that spelled it otherwise (`{{count, number}}`).
 */
interface I18nextPlural {
  style: 'i18next';
  count: string;
  counts?: Record<string, string>;
  /** `_ordinal_<cat>` keys: an ICU `selectordinal` text value (the model's plural values are cardinal). */
  ordinal?: true;
}

interface FormState {
  names: Record<string, string>;
  taken: Map<string, string>;
  /** The inner text of this form's `{{count}}`. */
  count: string | null;
}

/** One plural form of an i18next file as an ICU plural branch, or null when it is ICU already. */
function i18nextFormToIcu(value: string, state: FormState): string | null {
  if (ICU_COMPLEX.test(value)) return null;
  let out = '';
  let last = 0;
  for (const m of value.matchAll(/\{\{([^{}]*)\}\}/g)) {
    out += escapeIcuText(value.slice(last, m.index));
    last = m.index + m[0].length;
    const inner = m[1];
    const base = inner.trim().replace(/^-\s*/, '').split(',')[0].trim().replace(ICU_NAME_CHAR, '_');
    if (!base) {
      out += escapeIcuText(m[0]);
      continue;
    }
    // i18next passes the plural's number as `count`: in ICU that is the branch's `#`.
    if (base === 'count') {
      state.count ??= inner;
      out += '#';
      continue;
    }
    let name = base;
    for (let i = 2; state.taken.has(name) && state.taken.get(name) !== inner; i++) name = `${base}_${i}`;
    state.taken.set(name, inner);
    state.names[name] = inner;
    out += `{${name}}`;
  }
  return out + escapeIcuText(value.slice(last));
}

interface Leaf {
  path: string[];
  fileKey: string;
  value: JsonValue;
}

/**
 * The plural entries of suffix groups, by the index of the group's first leaf (its other leaves map to null). A group
 * merges only when it has `other` and another form, its base is not a key itself, and every form is i18next text.
 * Ordinal suffixes (`place_ordinal_one`) make a `selectordinal` text value `place`, unless `place` is also a cardinal
 * plural of the file (one key cannot be both: the ordinal keys then stay separate).
 */
function i18nextPlurals(leaves: Leaf[], seen: Set<string>, lang: string): Map<number, CatalogEntry | null> {
  const groups = new Map<string, { path: string[]; ordinal: boolean; members: Array<[string, number]> }>();
  leaves.forEach((leaf, i) => {
    const m = PLURAL_SUFFIX.exec(leaf.path[leaf.path.length - 1]);
    if (!m) return;
    const ordinal = m[1].endsWith('_ordinal') && m[1].length > '_ordinal'.length;
    const path = [...leaf.path.slice(0, -1), ordinal ? m[1].slice(0, -'_ordinal'.length) : m[1]];
    const id = JSON.stringify([ordinal, ...path]);
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { path, ordinal, members: [] }));
    g.members.push([m[2], i]);
  });
  const out = new Map<number, CatalogEntry | null>();
  const merged = new Set<string>();
  // Cardinal groups first, so that a key with both kinds is the cardinal plural.
  const ordered = [...groups.values()].sort((a, b) => Number(a.ordinal) - Number(b.ordinal));
  for (const { path, ordinal, members } of ordered) {
    const fileKey = path.join('.');
    // A lone `reason_other` is more often a name ("Other reason") than a plural: a plural needs two forms.
    if (members.length < 2 || !members.some(([c]) => c === 'other')) continue;
    if (seen.has(fileKey) || merged.has(fileKey)) continue;
    const state: FormState = { names: dict<string>(), taken: new Map(), count: null };
    const forms = dict<string>();
    const counts = dict<string>();
    const ok = CLDR_CATEGORIES.every((cat) => {
      const member = members.find(([c]) => c === cat);
      if (!member) return true;
      const v = leaves[member[1]].value;
      state.count = null;
      const icu = typeof v === 'string' && v !== '' ? i18nextFormToIcu(v, state) : null;
      if (icu === null || !isValidIcu(formsToIcu(dict([['other', icu]])), 'text')) return false;
      forms[cat] = icu;
      if (state.count !== null) counts[cat] = state.count;
      return true;
    });
    if (!ok) continue;
    merged.add(fileKey);
    // Languages with other categories write their count as the file's `other` form does.
    const count = own(counts, 'other') ?? Object.values(counts)[0] ?? 'count';
    const plural: I18nextPlural = { style: 'i18next', count, ...(ordinal ? { ordinal: true as const } : {}) };
    const differing = Object.entries(counts).filter(([, inner]) => inner !== count);
    if (differing.length) plural.counts = dict(differing);
    const meta: Record<string, unknown> = { plural, interpolation: 'i18next', placeholders: state.names };
    if (path.length > 1 && path.some((s) => s === '' || s.includes('.'))) meta.path = path;
    const [first, ...rest] = members.map(([, i]) => i).sort((a, b) => a - b);
    const value: CatalogValue = ordinal
      ? { kind: 'text', text: formsToIcu(forms).replace(/^\{count, plural,/, '{count, selectordinal,') }
      : { kind: 'plural', arg: 'count', forms };
    out.set(first, { fileKey, values: dict<CatalogValue>([[lang, value]]), meta });
    for (const i of rest) out.set(i, null);
  }
  return out;
}

function pluralMeta(entry: CatalogEntry): I18nextPlural | null {
  const p = entry.meta?.plural as Partial<I18nextPlural> | undefined;
  if (p?.style !== 'i18next') return null;
  const counts = p.counts !== null && typeof p.counts === 'object' ? p.counts : undefined;
  const count = typeof p.count === 'string' ? p.count : 'count';
  return { style: 'i18next', count, counts, ...(p.ordinal === true ? { ordinal: true as const } : {}) };
}

const CATEGORY_INDEX = new Map<string, number>(CLDR_CATEGORIES.map((c, i) => [c, i]));

function categoriesOf(lang: string, ordinal: boolean): string[] {
  try {
    if (!ordinal) return pluralCategories(languageKey(lang));
    const cats = new Intl.PluralRules(languageKey(lang), { type: 'ordinal' }).resolvedOptions().pluralCategories;
    return [...cats].sort((a, b) => (CATEGORY_INDEX.get(a) ?? 9) - (CATEGORY_INDEX.get(b) ?? 9));
  } catch {
    return ordinal ? ['other'] : ['one', 'other'];
  }
}

/** i18next's formatter options, `number(style: percent; currency: EUR)`, or '' when there are none. */
function formatterOptions(options: object): string {
  const pairs = Object.entries(options).filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v));
  return pairs.length ? `(${pairs.map(([k, v]) => `${k}: ${String(v)}`).join('; ')})` : '';
}

/**
 * The suffix keys of a plural entry in `lang`: one per CLDR category of `lang` (a category the value lacks gets its
 * `other`), plus `_zero` for `=0`, which i18next looks up for a count of 0 in every language. Anything i18next
 * cannot choose on is written as a documented fallback and reported.
 */
function i18nextPluralLeaves(
  entry: CatalogEntry,
  v: CatalogValue,
  lang: string,
  plural: I18nextPlural,
  warn: Warn,
): Array<[string, string]> {
  const names = entry.meta?.placeholders as Record<string, string> | undefined;
  const cats = categoriesOf(lang, plural.ordinal === true);
  const flat = flatten(icuText(v));
  if (!flat) {
    warn('not an ICU message: written as it is under every plural category');
    return cats.map((c) => [c, icuText(v)]);
  }
  const top = flat.kind === 'plural' && flat.ordinal === (plural.ordinal === true) && flat.offset === 0 ? flat : null;
  const pluralName = top?.name ?? null;
  const write = (f: Flat, cat: string): string => {
    const leaf = collapse(f, (n) => `${describe(n)} inside an i18next plural form`, warn);
    if (leaf.kind !== 'leaf') return '';
    const count = own(plural.counts, cat) ?? plural.count;
    const inner = (name: string) =>
      name === pluralName ? count : ((names && Object.hasOwn(names, name) ? names[name] : undefined) ?? name);
    let out = '';
    for (const p of leaf.parts) {
      if (p.type === 'text') out += p.text;
      else if (p.type === 'arg') out += `{{${inner(p.name)}}}`;
      else if (p.type === 'count') out += `{{${count}}}`;
      else {
        // i18next's built-in formatters: `number` and `datetime`, with Intl options in parentheses.
        const kind = p.type === 'number' ? 'number' : 'datetime';
        let opts = formatterOptions(p.options);
        if (!opts && p.type === 'time') opts = '(timeStyle: short)';
        if (p.style && !opts) warn(`{${p.name}, ${p.type}, ${p.style}}: written as {{${p.name}, ${kind}}}`);
        out += `{{${inner(p.name)}, ${kind}${opts}}}`;
      }
    }
    return out;
  };
  if (!top) {
    // A value that is not one plural (a text translation of a plural key): the same sentence for every count.
    return cats.map((c) => [c, write(flat, c)]);
  }
  const opt = (k: string) => own(top.options, k);
  const other = opt('other') ?? { kind: 'leaf', parts: [] };
  const out: Array<[string, string]> = [];
  // i18next's `_zero` lookup is for cardinal counts only.
  const ordinal = plural.ordinal === true;
  const exactZero = ordinal
    ? undefined
    : Object.keys(top.options).find((k) => isExactKey(k) && Number(k.replace(/^=\s*/, '')) === 0);
  const zero = cats.includes('zero')
    ? (opt(exactZero ?? 'zero') ?? opt('zero') ?? other)
    : exactZero !== undefined
      ? opt(exactZero)
      : ordinal
        ? undefined
        : opt('zero');
  if (exactZero !== undefined && cats.includes('zero') && opt('zero'))
    warn(`${exactZero} and zero: i18next has one _zero for both; written with ${exactZero}`);
  if (zero) out.push(['zero', write(zero, 'zero')]);
  for (const c of cats) if (c !== 'zero') out.push([c, write(opt(c) ?? other, c)]);
  for (const k of Object.keys(top.options)) {
    if (isExactKey(k) && k !== exactZero)
      warn(`plural ${k}: i18next has no exact-number form; the category form is used`);
    else if (!isExactKey(k) && (k !== 'zero' || ordinal) && !cats.includes(k))
      warn(`plural ${k}: not a category of ${lang}; left out`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Base-only JSON (flat and nested)

/** The root object of a JSON file, or invalid_argument. */
export function parseRootObject(text: string): JsonObject {
  const root = parseJson(text);
  if (!isObject(root)) throw invalid('the file must be a JSON object');
  return root;
}

/** The declared language of a base-only file (`@@locale` / `locale` at the root), and which key said so. */
function declaredLocale(root: JsonObject): { key: string; lang: string } | null {
  for (const key of LOCALE_KEYS) {
    const v = root.get(key);
    if (typeof v === 'string' && LANGUAGE_TAG.test(v)) return { key, lang: v };
  }
  return null;
}

/**
 * Flattens a base-only file. Nested objects are walked with an explicit stack (depth is already capped by the parser,
 * but the walk must not depend on that). Keys are the path joined with '.'; a path whose segments contain '.' or are
 * empty cannot be split back, so its segments are kept in meta.path.
 */
export function parseBaseOnly(text: string, nested: boolean, format: 'json' | 'nested_json'): Catalog {
  const root = parseRootObject(text);
  const locale = declaredLocale(root);
  const lang = locale?.lang ?? UNKNOWN_LANGUAGE;
  const entries: CatalogEntry[] = [];
  const leaves: Leaf[] = [];
  const seen = new Set<string>();
  const stack: Array<{ obj: JsonObject; path: string[]; it: Iterator<[string, JsonValue]> }> = [
    { obj: root, path: [], it: root.entries() },
  ];
  while (stack.length) {
    const top = stack[stack.length - 1];
    const next = top.it.next();
    if (next.done) {
      stack.pop();
      continue;
    }
    const [key, value] = next.value;
    if (top.path.length === 0 && locale && key === locale.key) continue;
    const path = [...top.path, key];
    const fileKey = path.join('.');
    if (isObject(value)) {
      if (!nested) throw new FormatError('format_mismatch', `${fileKey}: nested objects make this a nested_json file`);
      stack.push({ obj: value, path, it: value.entries() });
      continue;
    }
    if (seen.has(fileKey)) throw invalid(`${fileKey}: the key occurs twice once nested paths are joined with "."`);
    seen.add(fileKey);
    leaves.push({ path, fileKey, value });
  }
  const plurals = i18nextPlurals(leaves, seen, lang);
  leaves.forEach(({ path, fileKey, value }, i) => {
    const plural = plurals.get(i);
    if (plural !== undefined) {
      if (plural) entries.push(plural);
      return;
    }
    const entry = leafEntry(fileKey, value, lang, ['i18next']);
    if (path.length > 1 && path.some((s) => s === '' || s.includes('.'))) entry.meta = { ...entry.meta, path };
    entries.push(entry);
  });
  const { indent, trailingNewline } = layoutOf(text);
  const meta: Record<string, unknown> = { indent, trailingNewline };
  if (locale) meta.localeKey = locale.key;
  return { format, sourceLanguage: locale?.lang ?? null, language: locale?.lang ?? null, entries, meta };
}

export function renderBaseOnly(catalog: Catalog, opts: RenderOptions, nested: boolean): string {
  const lang = opts.languages[0] ?? opts.baseLanguage;
  const meta = catalog.meta ?? {};
  const root: JsonObject = new Map();
  if (typeof meta.localeKey === 'string') root.set(meta.localeKey, fileSpelling(lang, catalog));
  const place = (entry: CatalogEntry, suffix: string, leaf: string) => {
    if (!nested) {
      root.set(entry.fileKey + suffix, leaf);
      return;
    }
    const path = Array.isArray(entry.meta?.path) ? [...(entry.meta.path as string[])] : entry.fileKey.split('.');
    path[path.length - 1] += suffix;
    placeNested(root, entry.fileKey, path, leaf);
  };
  for (const entry of catalog.entries) {
    const v = valueFor(entry, lang);
    if (!v) continue;
    const plural = pluralMeta(entry);
    if (plural) {
      const warn: Warn = (reason) => opts.warn?.({ key: entry.fileKey, lang, reason });
      const suffix = plural.ordinal ? '_ordinal_' : '_';
      for (const [cat, text] of i18nextPluralLeaves(entry, v, lang, plural, warn)) place(entry, suffix + cat, text);
      continue;
    }
    const gap = entry.meta?.interpolation ? null : formatJsGap(icuText(v));
    if (gap) opts.warn?.({ key: entry.fileKey, lang, reason: gap });
    place(entry, '', renderLeaf(entry, v));
  }
  return finishJson(root, meta);
}

function placeNested(root: JsonObject, fileKey: string, path: string[], leaf: string): void {
  let obj = root;
  for (let i = 0; i < path.length - 1; i++) {
    let child = obj.get(path[i]);
    if (child === undefined) {
      child = new Map();
      obj.set(path[i], child);
    }
    if (!isObject(child)) throw invalid(`${fileKey}: ${path.slice(0, i + 1).join('.')} is also a value`);
    obj = child;
  }
  const last = path[path.length - 1];
  if (isObject(obj.get(last))) throw invalid(`${fileKey}: is also a group of keys`);
  obj.set(last, leaf);
}

/** Prints a JSON file with the layout recorded at parse (2 spaces and a final newline for a new file). */
export function finishJson(root: JsonValue, meta: Record<string, unknown>): string {
  const indent = typeof meta.indent === 'string' ? meta.indent : '  ';
  const nl = meta.trailingNewline === false ? '' : '\n';
  return printJson(root, STRINGIFY_STYLE(indent)) + nl;
}

/** A JSON root for detection: JSON.parse is enough to tell shapes apart (strictness is parse's job). */
let sniffed: { text: string; root: Record<string, unknown> | null | 'not-object' } | null = null;

export function sniffJson(text: string): Record<string, unknown> | null | 'not-object' {
  // detectFormat asks every JSON module about the same text; parse it once.
  if (sniffed?.text !== text) sniffed = { text, root: sniffUncached(text) };
  return sniffed.root;
}

function sniffUncached(text: string): Record<string, unknown> | null | 'not-object' {
  const t = text.trimStart().replace(/^\ufeff/, '');
  if (!t.startsWith('{') && !t.startsWith('[')) return null;
  try {
    const v = JSON.parse(t) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : 'not-object';
  } catch {
    return 'not-object';
  }
}

export const hasExt = (fileName: string | undefined, ...exts: string[]) =>
  !!fileName && exts.some((e) => fileName.toLowerCase().endsWith(e));

function hasObjectValue(root: Record<string, unknown>): boolean {
  return Object.values(root).some((v) => v !== null && typeof v === 'object' && !Array.isArray(v));
}

/** How much a JSON root looks like a base-only file (0.7), leaving the specific shapes to their own modules. */
export function detectBaseOnly(text: string, fileName: string | undefined, nested: boolean): number {
  const root = sniffJson(text);
  const bonus = hasExt(fileName, '.json') ? 0.1 : 0;
  if (root === null) return 0;
  // Malformed JSON still belongs to the JSON family, so that its parse can say what is wrong with it.
  if (root === 'not-object') return nested ? 0 : 0.2 + bonus;
  const deep = hasObjectValue(root);
  if (nested) return deep ? 0.7 + bonus : 0.6 + bonus;
  return deep ? 0 : 0.7 + bonus;
}

export const format: FormatModule = {
  id: 'json',
  detect: (text, fileName) => detectBaseOnly(text, fileName, false),
  parse: (text) => parseBaseOnly(text, false, 'json'),
  render: (catalog, opts) => renderBaseOnly(catalog, opts, false),
};
