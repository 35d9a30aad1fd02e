// Flutter Application Resource Bundle: JSON with ICU values, `@key` metadata objects and `@@` file attributes.
// One language per file (`@@locale`). Values are ICU as written, a whole-message plural included (it stays text:
// ARB has no plural type of its own, and the message around it may hold more than the plural).
import { dict, FormatError, type Catalog, type CatalogEntry, type FormatModule } from '../catalog.js';
import {
  fileSpelling,
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
import { languageKey } from '../languages.js';

const invalid = (message: string) => new FormatError('invalid_argument', message);

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

function renderArb(catalog: Catalog, opts: { languages: string[]; baseLanguage: string }): string {
  const lang = opts.languages[0] ?? opts.baseLanguage;
  const meta = catalog.meta ?? {};
  const root: JsonObject = new Map();
  if (languageKey(lang) !== UNKNOWN_LANGUAGE) root.set('@@locale', fileSpelling(lang, catalog));
  for (const [k, v] of Object.entries((meta.globals as Record<string, unknown> | undefined) ?? {}))
    root.set(k, fromPlain(v));
  for (const entry of catalog.entries) {
    const v = valueFor(entry, lang);
    if (v) root.set(entry.fileKey, icuText(v));
    let md = entry.meta?.arb === undefined ? undefined : fromPlain(entry.meta.arb);
    if (entry.comment) {
      const obj: JsonObject = isObject(md) ? md : new Map<string, JsonValue>();
      obj.set('description', entry.comment);
      md = obj;
    }
    if (md !== undefined) root.set(`@${entry.fileKey}`, md);
  }
  return finishJson(root, { ...meta, trailingNewline: meta.trailingNewline ?? true });
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
