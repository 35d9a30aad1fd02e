// Words of a text with Unicode word boundaries, for the termbase's matching (matcher.ts): letters, combining marks
// and digits of any script make a word, anything else separates words. Two kinds of text are not split into words:
// scripts written without spaces (Chinese, Japanese, Thai, Lao, Khmer, Burmese) and Korean, whose particles attach
// to the word (계정을); a term in those scripts is found as a substring instead. Apostrophes: `account's` is the word
// `account` (an English possessive, a Dutch plural `auto's`: a final `'s` is an ending), `l'ordinateur` is `l` and
// `ordinateur` (French and Italian elision).

/** Scripts written without spaces between words, and Hangul (particles attach to words). */
const UNSPACED_SCRIPTS =
  '\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Hangul}\\p{sc=Thai}\\p{sc=Lao}\\p{sc=Khmer}\\p{sc=Myanmar}';
export const UNSPACED = new RegExp(`[${UNSPACED_SCRIPTS}]`, 'u');

/** A run of word characters (letters, marks, digits) outside the unspaced scripts, apostrophes inside it included. */
const LETTER = `[[\\p{L}\\p{M}\\p{N}]--[${UNSPACED_SCRIPTS}]]`;
const WORD = new RegExp(`${LETTER}+(?:['’]${LETTER}+)*`, 'gv');

/** Whether a character is a letter, mark or digit (a word's edge, for substring matches). */
export const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;

export interface Token {
  /** UTF-16 offsets in the text, `end` excluded. */
  start: number;
  end: number;
  /** The word as written, NFC. */
  text: string;
}

/** The words of `text`, in order. */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m; m = WORD.exec(text)) {
    const word = m[0];
    if (!/['’]/.test(word)) {
      out.push({ start: m.index, end: m.index + word.length, text: word.normalize('NFC') });
      continue;
    }
    const parts = word.split(/['’]/);
    // A final `s` after an apostrophe is an ending (possessive, Dutch plural), no word of its own.
    if (parts.length > 1 && parts[parts.length - 1].toLowerCase() === 's') parts.pop();
    let at = m.index;
    for (const part of parts) {
      if (part) out.push({ start: at, end: at + part.length, text: part.normalize('NFC') });
      at += part.length + 1;
    }
  }
  return out;
}

/**
 * `text` lower-cased code point by code point, keeping each one's length (a character whose lower case is longer,
 * as `İ`, is kept as it is), so offsets in the result are offsets in `text`.
 */
export function foldSameLength(text: string): string {
  let out = '';
  for (const ch of text) {
    const lower = ch.toLowerCase();
    out += lower.length === ch.length ? lower : ch;
  }
  return out;
}
