// A termbase entry as the exchange files carry it (formats/tbx.ts, formats/terms-csv.ts): a term in the termbase's
// language, what it means, its part of speech, its flags, and its translation per language. A field a file does not
// carry is left out, so an import changes only what the file says (server/domain/terms/import.ts).

/** Parts of speech, as Crowdin's glossaries name them (its API's `partOfSpeech`); TBX-Basic's are a subset. */
export const PARTS_OF_SPEECH = [
  'adjective',
  'adposition',
  'adverb',
  'auxiliary',
  'coordinating conjunction',
  'determiner',
  'interjection',
  'noun',
  'numeral',
  'particle',
  'pronoun',
  'proper noun',
  'subordinating conjunction',
  'verb',
  'other',
] as const;
export type PartOfSpeech = (typeof PARTS_OF_SPEECH)[number];

export interface TermEntry {
  /** The term in the termbase's language. */
  text: string;
  /** Which meaning (`account` of a bank, or of a user). */
  description?: string | null;
  partOfSpeech?: PartOfSpeech | null;
  /** Its translations are never to be used. */
  forbidden?: boolean;
  /** A name kept as it is in every language. */
  nonTranslatable?: boolean;
  caseSensitive?: boolean;
  /** Matched by its exact words only. */
  abbreviation?: boolean;
  /** Language (as the file names it) → the translation. A null-prototype object. */
  translations: Record<string, string>;
}

/** The limits of an entry's texts, in characters (the columns of migration 029). */
const TERM_MAX = 255;
const DESCRIPTION_MAX = 1000;
/** Entries one file may hold. */
export const MAX_FILE_ENTRIES = 10_000;

/**
 * Why a termbase file was refused; `code` is the API's error code for it (`too_large`: the route answers `413
 * payload_too_large`).
 */
export class TermFileError extends Error {
  constructor(
    readonly code: 'invalid_argument' | 'format_mismatch' | 'language_mismatch' | 'too_many_entries' | 'too_large',
    message: string,
  ) {
    super(message);
  }
}

/** A part of speech as a file writes it (`Noun`, TBX's `properNoun`), or null when it is none we know. */
export function partOfSpeechOf(value: string | null | undefined): PartOfSpeech | null {
  if (!value) return null;
  const v = value
    .trim()
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return (PARTS_OF_SPEECH as readonly string[]).includes(v) ? (v as PartOfSpeech) : v ? 'other' : null;
}

/** An empty language → text map that no key of a file (`__proto__`) can reach into. */
export const translationsDict = (): Record<string, string> => Object.create(null) as Record<string, string>;

/** Holds an entry's texts to their limits; `where` names it in the message (`row 4`, `termEntry c12`). */
export function checkEntry(e: TermEntry, where: string): void {
  const refuse = (what: string) => new TermFileError('invalid_argument', `${where}: ${what}`);
  if (!e.text.trim()) throw refuse('the term is empty');
  if ([...e.text].length > TERM_MAX) throw refuse(`the term is longer than ${TERM_MAX} characters`);
  if (e.description && [...e.description].length > DESCRIPTION_MAX)
    throw refuse(`the description is longer than ${DESCRIPTION_MAX} characters`);
  for (const [lang, t] of Object.entries(e.translations))
    if ([...t].length > TERM_MAX) throw refuse(`the ${lang} translation is longer than ${TERM_MAX} characters`);
}

/**
 * Bytes as text: UTF-8 (a BOM dropped), or UTF-16 with its BOM, as spreadsheet programs and Trados save files.
 * Malformed bytes are refused, never replaced.
 */
export function decodeText(bytes: Uint8Array): string {
  let label = 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) label = 'utf-16le';
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) label = 'utf-16be';
  try {
    const text = new TextDecoder(label, { fatal: true }).decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    throw new TermFileError('invalid_argument', `the file is not valid ${label.toUpperCase()}`);
  }
}
