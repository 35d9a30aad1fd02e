// What the checks know of a language: its script (from CLDR's likely subtags, through Intl.Locale), its direction,
// and its punctuation. Nothing is listed by hand that CLDR already says; the punctuation tables are the writing
// conventions the checks document (docs/guides/checks.md).
import { languageKey } from '../languages.js';

export interface LanguageInfo {
  /** The language's primary subtag (`pt` for `pt-BR`). */
  base: string;
  /** ISO 15924 script CLDR gives the language (`Latn`, `Cyrl`, `Jpan`), or null when Intl does not know it. */
  script: string | null;
  /** Letters of its script(s), for the script checks; null when unknown. */
  letters: RegExp | null;
  rtl: boolean;
  /** Chinese and Japanese: full-width punctuation. */
  cjk: boolean;
  /** French spacing: the marks a (narrow) no-break space stands before. */
  frenchSpaced: string;
}

// The Unicode scripts behind an ISO 15924 code; Japanese and Korean write Han beside their own.
const SCRIPTS: Record<string, string> = {
  Latn: '\\p{Script=Latin}',
  Cyrl: '\\p{Script=Cyrillic}',
  Grek: '\\p{Script=Greek}',
  Arab: '\\p{Script=Arabic}',
  Hebr: '\\p{Script=Hebrew}',
  Deva: '\\p{Script=Devanagari}',
  Beng: '\\p{Script=Bengali}',
  Guru: '\\p{Script=Gurmukhi}',
  Gujr: '\\p{Script=Gujarati}',
  Orya: '\\p{Script=Oriya}',
  Taml: '\\p{Script=Tamil}',
  Telu: '\\p{Script=Telugu}',
  Knda: '\\p{Script=Kannada}',
  Mlym: '\\p{Script=Malayalam}',
  Sinh: '\\p{Script=Sinhala}',
  Thai: '\\p{Script=Thai}',
  Laoo: '\\p{Script=Lao}',
  Khmr: '\\p{Script=Khmer}',
  Mymr: '\\p{Script=Myanmar}',
  Geor: '\\p{Script=Georgian}',
  Armn: '\\p{Script=Armenian}',
  Ethi: '\\p{Script=Ethiopic}',
  Thaa: '\\p{Script=Thaana}',
  Tibt: '\\p{Script=Tibetan}',
  Mong: '\\p{Script=Mongolian}',
  Hans: '\\p{Script=Han}',
  Hant: '\\p{Script=Han}',
  Jpan: '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}',
  Kore: '\\p{Script=Hangul}\\p{Script=Han}',
};
const RTL = new Set(['Arab', 'Hebr', 'Thaa', 'Syrc', 'Nkoo', 'Adlm', 'Rohg']);

const cache = new Map<string, LanguageInfo>();

export function languageInfo(lang: string): LanguageInfo {
  let info = cache.get(lang);
  if (info) return info;
  const key = languageKey(lang);
  const base = key.split('-')[0];
  let script: string | null = null;
  try {
    script = new Intl.Locale(key).maximize().script ?? null;
  } catch {
    script = null;
  }
  const letters = script && SCRIPTS[script] ? new RegExp(`[${SCRIPTS[script]}]`, 'u') : null;
  // Canada (OQLF) and Switzerland space only the colon; France and Belgium the colon, semicolon, ! and ?.
  const region = key.split('-').find((p, i) => i > 0 && /^[a-z]{2}$/.test(p));
  const frenchSpaced = base !== 'fr' ? '' : region === 'ca' || region === 'ch' ? ':' : ':;!?';
  info = {
    base,
    script,
    letters,
    rtl: script !== null && RTL.has(script),
    cjk: script === 'Jpan' || script === 'Hans' || script === 'Hant',
    frenchSpaced,
  };
  if (cache.size > 1000) cache.clear();
  cache.set(lang, info);
  return info;
}

/**
 * How a language ends a sentence of each kind: the marks a translation may end with where its source ends with the
 * English one. null: the language does not mark it (Thai, Lao and Khmer end sentences with a space; Armenian puts
 * its question and exclamation marks on the stressed vowel, inside the word), so nothing is required.
 */
export interface EndMarks {
  stop: string[] | null;
  question: string[] | null;
  exclamation: string[] | null;
  colon: string[] | null;
}

const NO_STOP = new Set(['th', 'lo', 'km']);

export function endMarks(lang: string): EndMarks {
  const info = languageInfo(lang);
  const b = info.base;
  if (info.cjk) return { stop: ['。', '．', '.'], question: ['？', '?'], exclamation: ['！', '!'], colon: ['：', ':'] };
  if (NO_STOP.has(b)) return { stop: null, question: ['?'], exclamation: ['!'], colon: [':'] };
  const stop =
    b === 'hi' || b === 'bn' || b === 'pa' || b === 'as' || b === 'or' || b === 'ne' || b === 'mr' || b === 'sa'
      ? ['।', '.']
      : b === 'hy'
        ? ['։', ':', '.']
        : b === 'my'
          ? ['။', '.']
          : b === 'am' || b === 'ti'
            ? ['።', '.']
            : b === 'ur'
              ? ['۔', '.']
              : b === 'ka'
                ? ['.']
                : ['.'];
  const question =
    info.script === 'Arab'
      ? ['؟', '?']
      : b === 'el'
        ? [';', '\u037e', '?']
        : b === 'am'
          ? ['፧', '?']
          : b === 'hy'
            ? null
            : ['?'];
  const exclamation = b === 'hy' ? null : ['!'];
  const colon = b === 'hy' ? null : [':'];
  return { stop, question, exclamation, colon };
}
