// Angular `ng extract-i18n --format=json`: `{"locale": "en", "translations": {"<id>": "<message>"}}`.
// Ids are message digests (19 digits) or custom ids; they stay strings in file order. Angular writes its
// placeholders as `{$NAME}`, which is not ICU, so they become `{NAME}` here and are written back on render.
// Values stay ICU (intl-messageformat reads them); what Angular's own runtime cannot choose on or format (`#`, an
// offset, selectordinal, number/date/time arguments) is written as it is and reported.
import { TYPE } from '@formatjs/icu-messageformat-parser';
import { FormatError, type CatalogEntry, type FormatModule } from '../catalog.js';
import { parseIcu, simpleArguments, walkIcu } from '../icu.js';
import {
  finishJson,
  isObject,
  layoutOf,
  leafEntry,
  parseRootObject,
  renderLeaf,
  sniffJson,
  hasExt,
  valueFor,
  fileSpelling,
  icuText,
  type JsonObject,
} from './json.js';

const invalid = (message: string) => new FormatError('invalid_argument', message);

/** What Angular's ICU lacks in `text`: its plural and select cases hold text and `{$NAME}` placeholders only. */
function angularGaps(text: string): string[] {
  // Text with simple arguments (most messages) has nothing to report: no parse.
  if (simpleArguments(text)) return [];
  const gaps = new Set<string>();
  try {
    walkIcu(parseIcu(text, 'text'), (el) => {
      if (el.type === TYPE.pound) gaps.add('# (Angular shows it literally; the count needs a placeholder)');
      else if (el.type === TYPE.plural && el.pluralType === 'ordinal') gaps.add(`selectordinal {${el.value}}`);
      else if (el.type === TYPE.plural && el.offset) gaps.add(`offset in plural {${el.value}}`);
      else if (el.type === TYPE.number || el.type === TYPE.date || el.type === TYPE.time)
        gaps.add(`{${el.value}, ${TYPE[el.type]}} (Angular formats with pipes, not in messages)`);
    });
  } catch {
    gaps.add('not an ICU message');
  }
  return [...gaps];
}

function isAngularShape(root: { [k: string]: unknown } | Map<string, unknown>): boolean {
  const keys = root instanceof Map ? [...root.keys()] : Object.keys(root);
  return keys.length === 2 && keys.includes('locale') && keys.includes('translations');
}

export const format: FormatModule = {
  id: 'angular_json',

  detect(text, fileName) {
    const root = sniffJson(text);
    if (root === null || root === 'not-object') return 0;
    if (!isAngularShape(root)) return 0;
    const t = root.translations;
    const ok = typeof root.locale === 'string' && t !== null && typeof t === 'object' && !Array.isArray(t);
    return ok ? 0.95 + (hasExt(fileName, '.json') ? 0.05 : 0) : 0.5;
  },

  parse(text) {
    const root = parseRootObject(text);
    if (!isAngularShape(root))
      throw new FormatError('format_mismatch', 'an Angular file has exactly the root keys "locale" and "translations"');
    const locale = root.get('locale');
    const translations = root.get('translations');
    if (typeof locale !== 'string' || !locale) throw invalid('locale: must be a non-empty string');
    if (!isObject(translations)) throw invalid('translations: must be an object');
    const entries: CatalogEntry[] = [];
    for (const [id, value] of translations) entries.push(leafEntry(id, value, locale, ['angular']));
    return {
      format: 'angular_json',
      sourceLanguage: locale,
      language: locale,
      entries,
      meta: layoutOf(text),
    };
  },

  render(catalog, opts) {
    const lang = opts.languages[0] ?? opts.baseLanguage;
    const translations: JsonObject = new Map();
    for (const entry of catalog.entries) {
      const v = valueFor(entry, lang);
      if (!v) continue;
      for (const gap of angularGaps(icuText(v)))
        opts.warn?.({ key: entry.fileKey, lang, reason: `${gap}: written as ICU, which Angular cannot read` });
      translations.set(entry.fileKey, renderLeaf(entry, v));
    }
    const root: JsonObject = new Map<string, string | JsonObject>([
      ['locale', fileSpelling(lang, catalog)],
      ['translations', translations],
    ]);
    return finishJson(root, catalog.meta ?? {});
  },
};
