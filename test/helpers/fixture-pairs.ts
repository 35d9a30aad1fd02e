// The (source, translation) pairs of the fixture catalogs that carry translations (test/fixtures/catalogs,
// SOURCES.md), each file read by its format's parser as a sync reads it: what the checks are run over
// (test/unit/checks-fixtures.test.ts) and measured on (bench/checks.ts).
import fs from 'node:fs';
import path from 'node:path';
import { baseValueOf, type Catalog, type CatalogValue, type FormatId } from '../../packages/core/src/catalog.js';
import { FORMATS } from '../../packages/core/src/formats/index.js';
import { formsToIcu } from '../../packages/core/src/icu.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/catalogs');
const read = (rel: string) => fs.readFileSync(path.join(FIXTURES, rel), 'utf8');
const parse = (format: FormatId, rel: string): Catalog => FORMATS[format].parse(read(rel));
const icu = (v: CatalogValue) => (v.kind === 'text' ? v.text : formsToIcu(v.forms, v.arg ?? 'count'));

interface FixturePair {
  file: string;
  key: string;
  lang: string;
  sourceLang: string;
  source: string;
  target: string;
  comment?: string | null;
  format: FormatId;
}

/** A base file and a translation of it, entries matched by key (the base's comment is the key's). */
function filePairs(format: FormatId, base: string, translation: string, lang: string): FixturePair[] {
  const b = parse(format, base);
  const t = parse(format, translation);
  const byKey = new Map(b.entries.map((e) => [e.fileKey, e]));
  return t.entries.flatMap((e) => {
    const src = byKey.get(e.fileKey);
    const sv = src && Object.values(src.values)[0];
    const tv = Object.values(e.values)[0];
    if (!src || !sv || !tv) return [];
    return [
      {
        file: translation,
        key: e.fileKey,
        lang,
        sourceLang: 'en',
        source: icu(sv),
        target: icu(tv),
        comment: src.comment,
        format,
      },
    ];
  });
}

/** A gettext translation: msgid (and msgid_plural) the source, msgstr the translation. */
function poPairs(rel: string, lang: string): FixturePair[] {
  return parse('po', rel).entries.flatMap((e) => {
    const tv = Object.values(e.values)[0];
    if (!e.fileKey || !tv) return [];
    const sv = baseValueOf({ ...e, values: {} }, 'po')!;
    // The file's plural forms are named by its language's CLDR categories, its source's by English's.
    return [
      {
        file: rel,
        key: e.ctx ? `${e.ctx}|${e.fileKey}` : e.fileKey,
        lang,
        sourceLang: 'en',
        source: icu(sv),
        target: icu(tv),
        format: 'po' as const,
      },
    ];
  });
}

/** A catalog of every language (xcstrings): each language's value against the source language's. */
function catalogPairs(rel: string): FixturePair[] {
  const c = parse('xcstrings', rel);
  const base = c.sourceLanguage ?? 'en';
  return c.entries.flatMap((e) => {
    const sv = e.values[base];
    if (!sv) return [];
    return Object.entries(e.values)
      .filter(([l]) => l !== base)
      .map(([lang, tv]) => ({
        file: rel,
        key: e.fileKey,
        lang,
        sourceLang: base,
        source: icu(sv),
        target: icu(tv),
        comment: e.comment,
        format: 'xcstrings' as const,
      }));
  });
}

/** Nested JSON message files (next-intl), leaves matched by path; an empty translation is left out (not translated). */
function jsonPairs(base: string, translation: string, lang: string): FixturePair[] {
  const flat = (v: unknown, at: string, out: Map<string, string>) => {
    if (typeof v === 'string') out.set(at, v);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) flat(x, at ? `${at}.${k}` : k, out);
    return out;
  };
  const b = flat(JSON.parse(read(base)), '', new Map());
  const t = flat(JSON.parse(read(translation)), '', new Map());
  return [...t].flatMap(([key, target]) => {
    const source = b.get(key);
    return source && target
      ? [{ file: translation, key, lang, sourceLang: 'en', source, target, format: 'nested_json' as const }]
      : [];
  });
}

export const FIXTURE_PAIRS: FixturePair[] = [
  ...filePairs(
    'android_xml',
    'android_xml/exoplayer-values-strings.xml',
    'android_xml/media3-values-fr-strings.xml',
    'fr',
  ),
  ...filePairs(
    'android_xml',
    'android_xml/exoplayer-values-strings.xml',
    'android_xml/media3-values-pl-strings.xml',
    'pl',
  ),
  ...filePairs(
    'ios_strings',
    'ios_strings/stripe-ios-en-Localizable.strings',
    'ios_strings/stripe-ios-ru-Localizable.strings',
    'ru',
  ),
  ...poPairs('po/django-admin-pl-djangojs.po', 'pl'),
  ...poPairs('po/django-admin-ar-djangojs.po', 'ar'),
  ...catalogPairs('xcstrings/coteditor-Count.xcstrings'),
  ...catalogPairs('xcstrings/netnewswire-Localizable.xcstrings'),
  ...catalogPairs('xcstrings/xcstrings-tool-Substitution.xcstrings'),
  ...catalogPairs('xcstrings/xcstrings-tool-Variations.xcstrings'),
  ...jsonPairs('json/next-intl-example-app-router-en.json', 'json/next-intl-example-app-router-de.json', 'de'),
];
