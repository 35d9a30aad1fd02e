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
} from '../catalog.js';
import { formsToIcu } from '../icu.js';
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
    const entry = leafEntry(fileKey, value, lang, ['i18next']);
    if (path.length > 1 && path.some((s) => s === '' || s.includes('.'))) entry.meta = { ...entry.meta, path };
    entries.push(entry);
  }
  const { indent, trailingNewline } = layoutOf(text);
  const meta: Record<string, unknown> = { indent, trailingNewline };
  if (locale) meta.localeKey = locale.key;
  return { format, sourceLanguage: locale?.lang ?? null, language: locale?.lang ?? null, entries, meta };
}

export function renderBaseOnly(
  catalog: Catalog,
  opts: { languages: string[]; baseLanguage: string },
  nested: boolean,
): string {
  const lang = opts.languages[0] ?? opts.baseLanguage;
  const meta = catalog.meta ?? {};
  const root: JsonObject = new Map();
  if (typeof meta.localeKey === 'string') root.set(meta.localeKey, fileSpelling(lang, catalog));
  for (const entry of catalog.entries) {
    const v = valueFor(entry, lang);
    if (!v) continue;
    const leaf = renderLeaf(entry, v);
    if (!nested) {
      root.set(entry.fileKey, leaf);
      continue;
    }
    const path = Array.isArray(entry.meta?.path) ? (entry.meta.path as string[]) : entry.fileKey.split('.');
    let obj = root;
    for (let i = 0; i < path.length - 1; i++) {
      let child = obj.get(path[i]);
      if (child === undefined) {
        child = new Map();
        obj.set(path[i], child);
      }
      if (!isObject(child)) throw invalid(`${entry.fileKey}: ${path.slice(0, i + 1).join('.')} is also a value`);
      obj = child;
    }
    const last = path[path.length - 1];
    if (isObject(obj.get(last))) throw invalid(`${entry.fileKey}: is also a group of keys`);
    obj.set(last, leaf);
  }
  return finishJson(root, meta);
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
