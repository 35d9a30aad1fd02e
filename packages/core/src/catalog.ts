// The in-memory model every file format parses into and renders from. Sync reads it; publish renders it.
// Values are ICU message strings; plural values keep one string per CLDR category.
import type { components } from '../../../generated/openapi.js';

/** A file format: the spec's output format ids; what each one is, is formats/index.ts's REGISTRY. */
export type FormatId = components['schemas']['OutputFormatId'];

/** One language's value of an entry. */
export type CatalogValue =
  | { kind: 'text'; text: string; state?: string }
  /** `arg`: the plural argument's name in the ICU form (`count` when the file names none). */
  | { kind: 'plural'; forms: Record<string, string>; arg?: string; state?: string };

export interface CatalogEntry {
  /** The key exactly as the file spells it (nested JSON paths joined with '.'; Angular digests as digits). */
  fileKey: string;
  /**
   * The base language's value, when the catalog is built from a project (renderers that number arguments,
   * like printf formats, follow the source's order so that every language agrees).
   */
  source?: CatalogValue;
  /** Message context (PO msgctxt), if the format has one. */
  ctx?: string | null;
  comment?: string | null;
  /** Values by language code as the file writes it (e.g. `en`, `zh-Hans`, `pt_BR`). */
  values: Record<string, CatalogValue>;
  /**
   * Format-specific data a renderer needs to write the entry back faithfully and the model does not carry
   * (xcstrings `extractionState` and substitution specifiers, i18next interpolation style, ARB metadata, ...).
   * Opaque to sync; stored with the key and handed back to the renderer.
   */
  meta?: Record<string, unknown>;
}

/**
 * Whether an entry is for translators: Android's `translatable="false"` (android_xml.ts keeps it as
 * `meta.translatable`) marks a string the app shows as it is in every language (a brand name, a URL), so it is never
 * pushed for translation or charged, and only the base file carries it.
 */
export const isTranslatable = (e: CatalogEntry): boolean => e.meta?.translatable !== false;

/**
 * The value an entry of a base-language file of `format` stands for: the value the file gives it, else, in gettext (a
 * template `.pot`, or a base `.po` whose msgstr is empty: po.ts), the msgid, which is the source text, with
 * `meta.msgidPlural` as the plural's `other` form. Undefined when the file gives none.
 */
export function baseValueOf(e: CatalogEntry, format: FormatId): CatalogValue | undefined {
  const v = Object.values(e.values)[0];
  if (v || format !== 'po' || e.fileKey === '') return v;
  const plural = e.meta?.msgidPlural;
  if (typeof plural === 'string')
    return {
      kind: 'plural',
      forms: dict([
        ['one', e.fileKey],
        ['other', plural],
      ]),
      arg: 'n',
    };
  return { kind: 'text', text: e.fileKey };
}

export interface Catalog {
  format: FormatId;
  /** The language the file declares as its source (`sourceLanguage`, `@@locale`, `locale`), or null if none. */
  sourceLanguage: string | null;
  /** For single-language formats: the language the file holds, if it says (PO `Language`, ARB `@@locale`). */
  language?: string | null;
  entries: CatalogEntry[];
  /** File-level data to write back (xcstrings `version`, PO headers, ARB `@@` keys, ...). */
  meta?: Record<string, unknown>;
}

/**
 * A dictionary for names that come from users and files: keys and their path segments, languages, plural categories,
 * placeholder and substitution names, unknown fields kept as meta. It has no prototype, so a name such as `__proto__`,
 * `constructor` or `toString` is an ordinary key: `d[name] = v` stores data (on a plain object, `__proto__` would
 * replace the prototype and the data be lost), `d[name]` finds only what was stored (on a plain object,
 * `d['constructor']` is Object), and JSON.stringify writes every such key as data.
 */
export function dict<T>(entries: Iterable<readonly [string, T]> = []): Record<string, T> {
  const d = Object.create(null) as Record<string, T>;
  for (const [k, v] of entries) d[k] = v;
  return d;
}

/** `rec[name]` if `rec` has it as its own: for records that may be plain objects (stored JSON, parsed back). */
export function own<T>(rec: Record<string, T> | null | undefined, name: string): T | undefined {
  return rec != null && Object.hasOwn(rec, name) ? rec[name] : undefined;
}

/** A file the user sent that a format cannot take, with the documented error code to answer. */
export class FormatError extends Error {
  constructor(
    readonly code: 'invalid_argument' | 'format_mismatch' | 'format_not_syncable' | 'too_many_entries',
    message: string,
  ) {
    super(message);
  }
}

export interface FormatModule {
  id: FormatId;
  /** How sure this format is that `text` (and the optional file name) is one of its files: 0 (no) to 1 (certain). */
  detect(text: string, fileName?: string): number;
  /** Parses a whole file; throws FormatError('invalid_argument', ...) for anything malformed. */
  parse(text: string): Catalog;
  /**
   * Renders a catalog. `languages`: which languages to write (single-language formats write `languages[0]`).
   * Deterministic: the same catalog gives the same bytes.
   */
  render(catalog: Catalog, opts: RenderOptions): string;
}

/** A cell a format wrote in a documented fallback because its platform cannot express it (packages/core/src/convert.ts). */
export interface FormatWarning {
  /** The entry's `fileKey`. */
  key: string;
  /** The language as the catalog spells it. */
  lang: string;
  reason: string;
}

export interface RenderOptions {
  languages: string[];
  baseLanguage: string;
  /** Told of every fallback the renderer applies; a renderer never drops or mangles a message silently. */
  warn?: (w: FormatWarning) => void;
}
