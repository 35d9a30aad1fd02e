// The documented limits and rules of content documents (docs/guides/content.md, "Fields" and "Limits").
import { Refusal } from '../../infra/errors.js';

/** Pushes and runs per project per UTC day (docs/guides/api.md "Limits"). */
export const DAILY_PUSHES = 500;
export const DAILY_RUNS = 500;

/**
 * A stored document: its text, title and fields together at most 200,000 characters, split into at most 2,000
 * blocks. The body limit (256 KB) bounds one push; this bounds what pushes of fields onto a text can build up.
 */
export const MAX_DOCUMENT_CHARS = 200_000;
export const MAX_BLOCKS = 2_000;
/** A block longer than this cannot go to an engine in one piece: the document fails its checks (health). */
export const MAX_BLOCK_CHARS = 8_000;
/** "Short named texts": a field's source is at most this long. */
export const MAX_FIELD_CHARS = 1_000;

/**
 * Fields that search engines and social cards cut: their translation must fit. A field name is matched
 * case-insensitively; every other field is limited only by MAX_FIELD_CHARS.
 */
const FIELD_MAX_CHARS: Record<string, number> = {
  seotitle: 60,
  metatitle: 60,
  ogtitle: 60,
  seodescription: 160,
  metadescription: 160,
  ogdescription: 160,
  description: 160,
};

export const fieldMaxChars = (name: string): number | null => FIELD_MAX_CHARS[name.toLowerCase()] ?? null;

/**
 * How much longer a translation into a language usually runs than English (W3C "Text size in translation"; IBM's
 * globalization guidelines give the same order): used to tell, before spending, whether a limited field can fit.
 */
const EXPANSION: Record<string, number> = {
  de: 1.35,
  nl: 1.3,
  fi: 1.3,
  ru: 1.3,
  pl: 1.3,
  fr: 1.25,
  es: 1.25,
  it: 1.25,
  pt: 1.25,
  el: 1.3,
  ja: 0.6,
  zh: 0.5,
  ko: 0.7,
};

/** The characters a translation of `chars` source characters into `lang` is expected to take. */
export function expectedChars(chars: number, lang: string): number {
  const primary = lang.split('-')[0].toLowerCase();
  return Math.ceil(chars * (EXPANSION[primary] ?? 1.2));
}

export const tooLarge = (what: string) =>
  new Refusal(
    'document_too_large',
    `${what}: a stored document holds at most ${MAX_DOCUMENT_CHARS} characters (text, title and fields) in at most ${MAX_BLOCKS} blocks.`,
  );

/** Characters as a person counts them (code points), the unit of every limit and of credits. */
export const charCount = (s: string) => s.length - (s.match(SURROGATE_PAIR)?.length ?? 0);
// Counted natively: a string iterator over a 256 KB push took tens of milliseconds of the event loop.
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/**
 * Bounds on a document's structure, checked before and while it is parsed (prescan.ts, parse.ts): the markdown
 * parser's cost grows faster than the text on some shapes (thousands of unmatched emphasis delimiters in one
 * paragraph, hundreds of lists opened on one line), and its tree walkers recurse once per level of nesting.
 */
/** Markdown: block quotes and list markers opened at the start of one line. */
export const MAX_LINE_NESTING = 32;
/** Markdown: the indentation of a line, in columns (a tab counts 4). */
export const MAX_INDENT_COLUMNS = 128;
/** Markdown: runs of `*`, `_`, `~`, backticks and brackets in one paragraph (one table row in a table). */
export const MAX_PARAGRAPH_DELIMITERS = 500;
/** Any format: levels of nesting of the parsed tree. */
export const MAX_TREE_DEPTH = 256;

export const tooComplex = (what: string) =>
  new Refusal(
    'document_too_large',
    `${what}: split the document, or simplify its markup (README "Content documents", limits).`,
  );
