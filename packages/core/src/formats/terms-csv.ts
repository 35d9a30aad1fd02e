// Termbases as CSV, in the three layouts glossaries are exchanged in (docs/guides/terms.md, "CSV"):
// - ours, which is Tolgee's glossary export with a part-of-speech column: `term, description, partofspeech,
//   translatable, casesensitive, abbreviation, forbidden`, then one column per language named by its code, flags
//   written `Yes`/`No` (Tolgee: ee/.../glossary/formats/csv, `GLOSSARY_CSV_HEADER_NAMES`);
// - Crowdin's glossary export: `Term [en]`, `Description [en]`, `Part of Speech [en]`, `Type [en]`, `Status [en]`
//   ... per language and `Concept Definition`, `Concept Translatable` ... per concept (Crowdin's glossary guide,
//   "Automatic Column Identification");
// - a plain table whose header names languages only (`en,de,fr`), as DeepL and spreadsheets write glossaries.
// The delimiter (comma, semicolon or tab) is read from the header. A quoted field may span lines (csv-parse).
import { createRequire } from 'node:module';
import { canonicalLanguage } from '../languages.js';
import {
  checkEntry,
  decodeText,
  MAX_FILE_ENTRIES,
  partOfSpeechOf,
  TermFileError,
  translationsDict,
  type TermEntry,
} from '../terms/entry.js';

// Loaded on first use, not by every process that imports this module (docs/decisions/0035-modules-loaded-on-first-use.md).
const require = createRequire(import.meta.url);
const csvParse = () => require('csv-parse/sync') as typeof import('csv-parse/sync');
const csvStringify = () => require('csv-stringify/sync') as typeof import('csv-stringify/sync');

/** The largest file `parseTermsCsv` reads unless told otherwise. */
const TERMS_CSV_MAX_BYTES = 5 * 1024 * 1024;

const FIXED = ['term', 'description', 'partofspeech', 'translatable', 'casesensitive', 'abbreviation', 'forbidden'];

const yesNo = (b: boolean | undefined) => (b ? 'Yes' : 'No');

/**
 * Our CSV: the fixed columns, then one per language of `languages` (the translations' languages, sorted). A
 * non-translatable term's language columns repeat the term, as Tolgee writes them. Starts with a UTF-8 BOM, so
 * spreadsheet programs read it as UTF-8.
 */
export function writeTermsCsv(entries: readonly TermEntry[], languages: readonly string[]): string {
  const rows: string[][] = [[...FIXED, ...languages]];
  for (const e of entries)
    rows.push([
      e.text,
      e.description ?? '',
      e.partOfSpeech ?? '',
      yesNo(!e.nonTranslatable),
      yesNo(e.caseSensitive),
      yesNo(e.abbreviation),
      yesNo(e.forbidden),
      ...languages.map((l) => e.translations[l] ?? (e.nonTranslatable ? e.text : '')),
    ]);
  return '\uFEFF' + csvStringify().stringify(rows, { record_delimiter: '\r\n' });
}

interface TermsCsvOptions {
  /** Whether a language the file names is the termbase's language (the caller's rule). */
  isSource: (lang: string) => boolean;
  maxBytes?: number;
}

interface TermsCsvParsed {
  layout: 'glossa' | 'crowdin' | 'languages';
  entries: TermEntry[];
  /** Rows with no term in the termbase's language. */
  skipped: number;
  /** Every translation language, as the file names it. */
  languages: string[];
}

const refuse = (message: string) => new TermFileError('invalid_argument', message);

/** A flag as a file writes it; undefined for an empty cell (the file says nothing). */
function flag(value: string | undefined): boolean | undefined {
  const v = value?.trim().toLowerCase();
  if (!v) return undefined;
  return ['yes', 'y', 'true', 't', '1'].includes(v);
}

/** The delimiter of the header line: the one of `,` `;` tab it has most of outside quotes. */
function delimiterOf(text: string): string {
  const line = text.slice(0, text.search(/\r?\n|$/)).replace(/"[^"]*"/g, '');
  const counts = [',', ';', '\t'].map((d) => [d, line.split(d).length - 1] as const);
  return counts.reduce((a, b) => (b[1] > a[1] ? b : a))[0];
}

const CROWDIN = /^(term|description|part of speech|type|status|gender|note|url)\s*\[([^\]]+)\]$/i;
const DEPRECATED = /deprecated|superseded|obsolete|forbidden|not ?recommended/i;

/** Reads a termbase CSV in any of the three layouts; refuses with a `TermFileError` anything else. */
export function parseTermsCsv(input: Uint8Array | string, options: TermsCsvOptions): TermsCsvParsed {
  const max = options.maxBytes ?? TERMS_CSV_MAX_BYTES;
  const size = typeof input === 'string' ? new TextEncoder().encode(input).byteLength : input.byteLength;
  if (size > max) throw new TermFileError('too_large', `the file is over ${max} bytes (${size})`);
  let text = typeof input === 'string' ? input : decodeText(input);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!/\S/.test(text)) throw refuse('the file is empty');
  if (/^\s*<(\?xml|martif|tbx)\b/i.test(text)) throw new TermFileError('format_mismatch', 'the file is XML, not CSV');
  let rows: string[][];
  try {
    rows = csvParse().parse(text, {
      delimiter: delimiterOf(text),
      relax_column_count: true,
      skip_empty_lines: true,
      bom: true,
      max_record_size: 64 * 1024,
    });
  } catch (e) {
    throw refuse(`the file is not valid CSV: ${(e as Error).message}`);
  }
  const [header = [], ...body] = rows;
  if (body.length > MAX_FILE_ENTRIES)
    throw new TermFileError('too_many_entries', `the file has ${body.length} rows; at most ${MAX_FILE_ENTRIES}`);
  const names = header.map((h) => h.trim());
  const lower = names.map((h) => h.toLowerCase());
  if (names.some((n) => CROWDIN.test(n))) return crowdin(names, body, options);
  if (lower.includes('term')) return glossa(names, lower, body, options);
  if (names.length >= 2 && names.every((n) => canonicalLanguage(n) !== null) && names.some((n) => options.isSource(n)))
    return languagesOnly(names, body, options);
  throw refuse(
    'the CSV header is none of the termbase layouts: ours or Tolgee’s (`term`, `description`, flags, one column per language), Crowdin’s (`Term [en]`, `Description [en]`, ...) or one column per language (`en,de`)',
  );
}

/** The entries, merged where a term and meaning repeat (one row per extra translation, as Crowdin writes them). */
class Collector {
  readonly entries: TermEntry[] = [];
  private readonly byKey = new Map<string, TermEntry>();
  skipped = 0;
  readonly languages: string[] = [];

  add(e: TermEntry, where: string) {
    checkEntry(e, where);
    const key = `${e.text.trim().toLowerCase()}\u0000${e.description ?? ''}\u0000${e.forbidden ? 1 : 0}`;
    const seen = this.byKey.get(key);
    for (const lang of Object.keys(e.translations)) if (!this.languages.includes(lang)) this.languages.push(lang);
    if (!seen) {
      this.byKey.set(key, e);
      this.entries.push(e);
      return;
    }
    for (const [lang, t] of Object.entries(e.translations))
      if (!(lang in seen.translations)) seen.translations[lang] = t;
  }
}

function glossa(names: string[], lower: string[], body: string[][], options: TermsCsvOptions): TermsCsvParsed {
  const col = (name: string) => lower.indexOf(name);
  const langCols = names.map((n, i) => ({ n, i })).filter(({ i }) => !FIXED.includes(lower[i]) && names[i] !== '');
  for (const { n } of langCols)
    if (canonicalLanguage(n) === null)
      throw refuse(`the column ${JSON.stringify(n)} is neither a termbase column nor a language code`);
  const out = new Collector();
  const cell = (row: string[], i: number) => (i >= 0 ? (row[i] ?? '').trim() : '');
  body.forEach((row, r) => {
    const text = cell(row, col('term'));
    if (!text && row.every((c) => !c.trim())) return;
    const translatable = flag(row[col('translatable')]);
    const translations = translationsDict();
    for (const { n, i } of langCols) {
      const t = cell(row, i);
      if (!t || options.isSource(n)) continue;
      // A non-translatable term's language columns repeat it (Tolgee): no translation of its own.
      if (translatable === false && t === text) continue;
      translations[n] = t;
    }
    if (!text) {
      out.skipped++;
      return;
    }
    out.add(
      {
        text,
        description: cell(row, col('description')) || null,
        partOfSpeech: partOfSpeechOf(cell(row, col('partofspeech'))),
        nonTranslatable: translatable === undefined ? undefined : !translatable,
        caseSensitive: flag(row[col('casesensitive')]),
        abbreviation: flag(row[col('abbreviation')]),
        forbidden: flag(row[col('forbidden')]),
        translations,
      },
      `row ${r + 2}`,
    );
  });
  return { layout: 'glossa', entries: out.entries, skipped: out.skipped, languages: out.languages };
}

function crowdin(names: string[], body: string[][], options: TermsCsvOptions): TermsCsvParsed {
  const perLang = new Map<string, Map<string, number>>();
  const concept = new Map<string, number>();
  names.forEach((n, i) => {
    const m = CROWDIN.exec(n);
    if (m) {
      const lang = m[2].trim();
      if (canonicalLanguage(lang) === null) throw refuse(`the column ${JSON.stringify(n)} names no language code`);
      const cols = perLang.get(lang) ?? new Map<string, number>();
      cols.set(m[1].toLowerCase(), i);
      perLang.set(lang, cols);
    } else if (/^concept\s+/i.test(n)) concept.set(n.replace(/^concept\s+/i, '').toLowerCase(), i);
  });
  const sourceLang = [...perLang.keys()].find((l) => options.isSource(l));
  if (sourceLang === undefined)
    throw new TermFileError(
      'language_mismatch',
      `the file has no Term column in the termbase's language (it has ${[...perLang.keys()].join(', ')})`,
    );
  const src = perLang.get(sourceLang)!;
  const out = new Collector();
  const at = (row: string[], i: number | undefined) => (i === undefined ? '' : (row[i] ?? '').trim());
  body.forEach((row, r) => {
    const text = at(row, src.get('term'));
    if (!text) {
      if (row.some((c) => c.trim())) out.skipped++;
      return;
    }
    const translatable = flag(row[concept.get('translatable') ?? -1]);
    const type = at(row, src.get('type'));
    const base = {
      text,
      description: at(row, src.get('description')) || at(row, concept.get('definition')) || null,
      partOfSpeech: partOfSpeechOf(at(row, src.get('part of speech'))),
      abbreviation: type ? /abbreviation|acronym|short form/i.test(type) : undefined,
      nonTranslatable: translatable === undefined ? undefined : !translatable,
    };
    const allowed = translationsDict();
    const banned = translationsDict();
    for (const [lang, cols] of perLang) {
      if (lang === sourceLang) continue;
      const t = at(row, cols.get('term'));
      if (!t) continue;
      (DEPRECATED.test(at(row, cols.get('status'))) ? banned : allowed)[lang] = t;
    }
    if (Object.keys(allowed).length || !Object.keys(banned).length)
      out.add({ ...base, forbidden: false, translations: allowed }, `row ${r + 2}`);
    if (Object.keys(banned).length) out.add({ ...base, forbidden: true, translations: banned }, `row ${r + 2}`);
  });
  return { layout: 'crowdin', entries: out.entries, skipped: out.skipped, languages: out.languages };
}

function languagesOnly(names: string[], body: string[][], options: TermsCsvOptions): TermsCsvParsed {
  const srcCol = names.findIndex((n) => options.isSource(n));
  const out = new Collector();
  body.forEach((row, r) => {
    const text = (row[srcCol] ?? '').trim();
    if (!text) {
      if (row.some((c) => c.trim())) out.skipped++;
      return;
    }
    const translations = translationsDict();
    names.forEach((n, i) => {
      const t = (row[i] ?? '').trim();
      if (i !== srcCol && t) translations[n] = t;
    });
    out.add({ text, translations }, `row ${r + 2}`);
  });
  return { layout: 'languages', entries: out.entries, skipped: out.skipped, languages: out.languages };
}
