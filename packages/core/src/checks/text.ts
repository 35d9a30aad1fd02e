// What the text checks share: words, numbers, URLs, the characters a reader cannot see, and where they are.
import { ARG, rawSpan, type Plain } from './branches.js';
import type { Span } from './types.js';

/** Matches of `re` (global) in a plain text, as spans in its raw message. */
export function plainSpans(p: Plain, re: RegExp): Span[] {
  const spans: Span[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(p.text); m; m = re.exec(p.text)) {
    spans.push(rawSpan(p, m.index, m.index + m[0].length));
    if (m[0] === '') re.lastIndex++;
  }
  return spans;
}

/** Matches of `re` (global) in a raw string, as spans. */
export function rawSpans(text: string, re: RegExp): Span[] {
  const spans: Span[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    spans.push({ start: m.index, end: m.index + m[0].length });
    if (m[0] === '') re.lastIndex++;
  }
  return spans;
}

export const count = (text: string, re: RegExp): number => text.match(re)?.length ?? 0;

/** A word: letters with their marks, inner apostrophes and hyphens. */
export const WORD = /[\p{L}\p{M}]+(?:['’-][\p{L}\p{M}]+)*/gu;

export const hasLetters = (text: string): boolean => /\p{L}/u.test(text);

// Decimal digits of other scripts (Arabic-Indic, Persian, Devanagari, Bengali, Thai, full width, …) as ASCII, so
// `١٢٣` keeps the source's `123`.
function asciiDigits(text: string): string {
  return text.replace(/\p{Nd}/gu, (d) => {
    const code = d.codePointAt(0)!;
    if (code < 128) return d;
    // Unicode's decimal digits come in runs of ten, 0 to 9: the digit's value is its distance from its run's start.
    let zero = code;
    while (zero > code - 9 && /\p{Nd}/u.test(String.fromCodePoint(zero - 1))) zero--;
    return String(code - zero);
  });
}

/**
 * The numbers of a text, each as its digits alone: `1,000`, `1.000`, `1 000` and `١٬٠٠٠` are all `1000`, `1.5` and
 * `1,5` both `15`, since a translation writes its language's separators. Printf specifiers (`%1$s`), URLs and e-mail
 * addresses are not numbers.
 */
export function numbersOf(text: string): string[] {
  // URLs and e-mail addresses are urls' and emails' to compare, as written.
  const t = withoutLinks(asciiDigits(text)).replace(/%(?:\d+\$)?[-+#0']*\d*(?:\.\d+)?[a-zA-Z@]/g, ' ');
  return [...t.matchAll(/\d+(?:[.,\u00a0\u202f\u2009'’٫٬ ]\d+)*/g)].map((m) => m[0].replace(/\D/g, ''));
}

/** URLs (`https://…`, `www.…`), without a sentence's closing punctuation. */
export function urlsOf(text: string): string[] {
  return [...text.matchAll(/\b(?:https?|ftp):\/\/[^\s<>"'`{}\uFFFC]+|\bwww\.[^\s<>"'`{}\uFFFC]+/gi)].map((m) =>
    m[0].replace(/[.,;:!?)\]»”’。、]+$/, ''),
  );
}

const LOCAL = /[\p{L}\p{N}._%+-]/u;
const DOMAIN = /[\p{L}\p{N}.-]/u;

/**
 * E-mail addresses, found from each `@` outwards (a pattern scanning from every position would take quadratic time
 * on a long run of letters without one).
 */
export function emailsOf(text: string): string[] {
  const out: string[] = [];
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    let from = at;
    while (from > 0 && at - from < 64 && LOCAL.test(text[from - 1])) from--;
    let to = at + 1;
    while (to < text.length && to - at < 255 && DOMAIN.test(text[to])) to++;
    const domain = text.slice(at + 1, to).replace(/\.+$/, '');
    if (from < at && /^[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+$/u.test(domain))
      out.push(`${text.slice(from, at)}@${domain}`);
  }
  return out;
}

/** `text` with its URLs and e-mail addresses blanked out. */
function withoutLinks(text: string): string {
  let out = text.replace(/\b(?:https?|ftp):\/\/\S+|\bwww\.\S+/gi, ' ');
  if (out.includes('@')) for (const e of emailsOf(out)) out = out.replace(e, ' ');
  return out;
}

/** What `a` has beyond `b`, as multisets. */
export function beyond<T>(a: readonly T[], b: readonly T[]): T[] {
  const rest = [...b];
  return a.filter((x) => {
    const i = rest.indexOf(x);
    if (i === -1) return true;
    rest.splice(i, 1);
    return false;
  });
}

const CLOSING = new Set('"\'”’»」』)）]】›');
const SPACE = /\s/;

/**
 * Where the text ends without its trailing whitespace, closing quotes and brackets: after the sentence's own mark.
 * Scanned from the end (a pattern anchored at `$` is tried from every offset: the checks ask it of every cell).
 */
export function sentenceEnd(text: string): number {
  let i = text.length;
  while (i > 0) {
    const c = text[i - 1];
    if (!CLOSING.has(c) && !SPACE.test(c)) break;
    i--;
  }
  return i;
}

/** The words of a plain text, printf specifiers, URLs and e-mail addresses left out (`%lld` is no word). */
export function proseWords(text: string): string[] {
  const t = withoutLinks(text).replace(
    /%(?:\d+\$)?[-+#0']*\d*(?:\.\d+)?(?:hh|h|ll|l|L|q|j|z|t)?[a-zA-Z@]|%#@[^@\s]+@/g,
    ' ',
  );
  return t.match(WORD) ?? [];
}

/** A text that reads as nothing but arguments, digits, punctuation and spaces (nothing to translate). */
export const nothingToTranslate = (text: string): boolean => !hasLetters(text.replaceAll(ARG, ''));

const NAMES: Record<number, string> = {
  0x00ad: 'soft hyphen',
  0x061c: 'Arabic letter mark',
  0x180e: 'Mongolian vowel separator',
  0x200b: 'zero-width space',
  0x200c: 'zero-width non-joiner',
  0x200d: 'zero-width joiner',
  0x200e: 'left-to-right mark',
  0x200f: 'right-to-left mark',
  0x2028: 'line separator',
  0x2029: 'paragraph separator',
  0x202a: 'left-to-right embedding',
  0x202b: 'right-to-left embedding',
  0x202c: 'pop directional formatting',
  0x202d: 'left-to-right override',
  0x202e: 'right-to-left override',
  0x2060: 'word joiner',
  0x2066: 'left-to-right isolate',
  0x2067: 'right-to-left isolate',
  0x2068: 'first strong isolate',
  0x2069: 'pop directional isolate',
  0xfeff: 'zero-width no-break space (BOM)',
  0xfffd: 'replacement character',
};

const charName = (c: string): string => {
  const code = c.codePointAt(0)!;
  return NAMES[code] ?? `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
};

const ZERO_WIDTH = /\u200b|\u200c|\u200d|\u2060|\ufeff|\u180e/g;
export const BIDI_OVERRIDE = /[\u202a-\u202e]/g;
export const BIDI_MARK = /[\u200e\u200f\u061c\u2066-\u2069]/g;
// Controls but tab, line feed and carriage return; C1 controls; line and paragraph separators; interlinear
// annotation marks; the soft hyphen; private use; noncharacters; tag characters (those of a subdivision flag aside).
export const INVISIBLE =
  // eslint-disable-next-line no-control-regex -- control characters are what it finds
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u2028\u2029\ufff9-\ufffb\ue000-\uf8ff\ufdd0-\ufdef\ufffe\uffff]|(?<!\u{1f3f4}[\u{e0020}-\u{e007e}]*)[\u{e0000}-\u{e007f}]/gu;

/** Scripts whose words join or part letters with ZWJ and ZWNJ (Persian, Hindi, Sinhala, …): they are spelling there. */
const JOINING =
  /[\p{Script=Arabic}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Syriac}\p{Script=Mongolian}]/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;

/** Zero-width characters that are not spelling: ZWJ in an emoji sequence and ZW(N)J between letters of a joining script are. */
export function strayZeroWidth(text: string): Span[] {
  const spans: Span[] = [];
  ZERO_WIDTH.lastIndex = 0;
  for (let m = ZERO_WIDTH.exec(text); m; m = ZERO_WIDTH.exec(text)) {
    const before = String.fromCodePoint(text.codePointAt(Math.max(0, m.index - 1)) ?? 32);
    const prev = m.index >= 2 && /[\udc00-\udfff]/.test(before) ? text.slice(m.index - 2, m.index) : before;
    const next = String.fromCodePoint(text.codePointAt(m.index + 1) ?? 32);
    const c = m[0];
    if (
      c === '\u200d' &&
      (PICTOGRAPH.test(prev) || PICTOGRAPH.test(next) || /\ufe0f|[\u{1f3fb}-\u{1f3ff}]/u.test(prev))
    )
      continue;
    if ((c === '\u200c' || c === '\u200d') && (JOINING.test(prev) || JOINING.test(next))) continue;
    if (c === '\u180e' && /\p{Script=Mongolian}/u.test(prev + next)) continue;
    spans.push({ start: m.index, end: m.index + c.length });
  }
  return spans;
}

/** Spans of `re` in `text` for characters `source` does not have (a translation may keep what its source has). */
export function newCharacters(text: string, source: string, re: RegExp): Span[] {
  return rawSpans(text, re).filter((s) => !source.includes(text.slice(s.start, s.end)));
}

export const describeChars = (text: string, spans: Span[]): string =>
  [...new Set(spans.map((s) => charName(text.slice(s.start, s.end))))].join(', ');
