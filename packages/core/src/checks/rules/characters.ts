// Characters a reader cannot see or should not: zero-width and bidi controls (a bidi override reorders what the app
// shows, the Trojan Source trick), controls, the replacement character and mojibake of a broken encoding, and
// letters of the wrong script. The scans are shared with the source checks (rules/source.ts).
import { define } from '../define.js';
import {
  BIDI_MARK,
  BIDI_OVERRIDE,
  describeChars,
  INVISIBLE,
  newCharacters,
  strayZeroWidth,
  WORD,
  hasLetters,
  proseWords,
} from '../text.js';
import type { Finding, Span } from '../types.js';

/** Zero-width characters of `text` that `source` does not have and that are not spelling (text.ts strayZeroWidth). */
function zeroWidthSpans(text: string, source: string): Span[] {
  return strayZeroWidth(text).filter((s) => !source.includes(text.slice(s.start, s.end)));
}

const finding = (text: string, spans: Span[], what: string): Finding | null =>
  spans.length ? { message: `${what}: ${describeChars(text, spans)}`, spans } : null;

export const zeroWidth = define({
  id: 'zero-width',
  description:
    'No zero-width space, joiner, word joiner or BOM the source does not have (they break search, wrapping and copy).',
  severity: 'warning',
  category: 'characters',
  field: 'target',
  languages:
    'All languages. ZWJ and ZWNJ are spelling in Arabic-script, Indic, Sinhala, Khmer and Myanmar text, and ZWJ in emoji sequences: those pass.',
  trips: [{ source: 'Settings', target: 'Einstel\u200blungen' }],
  passes: [
    { source: 'Settings', target: 'تنظیمات\u200cها', targetLang: 'fa' },
    { source: 'Family', target: 'Familie 👨\u200d👩\u200d👧' },
  ],
  run: (cell) => finding(cell.target, zeroWidthSpans(cell.target, cell.source), 'zero-width characters'),
});

export const bidiOverride = define({
  id: 'bidi-override',
  description:
    'No bidi embedding or override (U+202A–U+202E) the source does not have: it reorders what the app shows (Trojan Source).',
  severity: 'error',
  category: 'characters',
  field: 'target',
  languages: 'All languages, right-to-left ones included: marks and isolates do their work (bidi-marks).',
  trips: [{ source: 'Pay {amount}', target: 'Zahle \u202e{amount}' }],
  passes: [{ source: 'Pay {amount}', target: 'Zahle {amount}' }],
  run: (cell) => finding(cell.target, newCharacters(cell.target, cell.source, BIDI_OVERRIDE), 'bidi control'),
});

export const bidiMarks = define({
  id: 'bidi-marks',
  description:
    'No bidi mark or isolate (LRM, RLM, ALM, U+2066–U+2069) in a left-to-right translation whose source has none.',
  severity: 'warning',
  category: 'characters',
  field: 'target',
  languages:
    'Left-to-right languages; Arabic, Hebrew, Persian, Urdu and other right-to-left targets need them and pass.',
  trips: [{ source: 'Version {v}', target: 'Version \u200e{v}' }],
  passes: [{ source: 'Version {v}', target: 'גרסה \u200e{v}', targetLang: 'he' }],
  run: (cell) =>
    cell.targetInfo.rtl ? null : finding(cell.target, newCharacters(cell.target, cell.source, BIDI_MARK), 'bidi marks'),
});

export const invisibleCharacters = define({
  id: 'invisible-characters',
  description:
    'No control character, soft hyphen, line or paragraph separator, private-use or noncharacter the source does not have.',
  severity: 'warning',
  category: 'characters',
  field: 'target',
  languages: 'All languages. Tab and line feed are text; a subdivision flag’s tag characters (🏴) pass.',
  trips: [
    { source: 'Settings', target: 'Einstel\u00adlungen' },
    { source: 'Settings', target: 'Einstellungen\u0007' },
  ],
  passes: [{ source: 'Name\tValue', target: 'Name\tWert' }],
  run: (cell) => finding(cell.target, newCharacters(cell.target, cell.source, INVISIBLE), 'invisible characters'),
});

export const replacementCharacter = define({
  id: 'replacement-character',
  description: 'No U+FFFD (�): the text went through a broken decoding and lost characters.',
  severity: 'error',
  category: 'characters',
  field: 'target',
  languages: 'All languages.',
  trips: [{ source: 'Café', target: 'Caf\ufffd' }],
  passes: [{ source: 'Café', target: 'Café' }],
  run: (cell) => finding(cell.target, newCharacters(cell.target, cell.source, /\ufffd/g), 'replacement character'),
});

// UTF-8 read as Latin-1 or Windows-1252: `é` becomes `Ã©`, `’` becomes `â€™`.
const MOJIBAKE =
  /Ã[\u0080-\u00bf\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122\u0152\u0153\u0160\u0161\u0178\u017d\u017e]|â€[\u0080-\u00bf\u2018-\u201e\u2020-\u2022\u2026\u2122\u0153\u0161\u017e\u02dc]|Â[\u00a0-\u00bf]/g;

export const mojibake = define({
  id: 'mojibake',
  description: 'No UTF-8 read as Latin-1 (`Ã©` for `é`, `â€™` for `’`) the source does not have.',
  severity: 'warning',
  category: 'characters',
  field: 'target',
  languages: 'All languages.',
  trips: [{ source: 'Don’t save', target: 'Ne pas enregistrer lâ€™Ã©tat', targetLang: 'fr' }],
  passes: [{ source: 'Don’t save', target: 'Ne pas enregistrer l’état', targetLang: 'fr' }],
  run: (cell) => {
    const spans = newCharacters(cell.target, cell.source, MOJIBAKE);
    return spans.length
      ? { message: `mojibake: ${spans.map((s) => cell.target.slice(s.start, s.end)).join(' ')}`, spans }
      : null;
  },
});

const LATIN = /\p{Script=Latin}/u;
const CYRILLIC = /\p{Script=Cyrillic}/u;
const GREEK = /\p{Script=Greek}/u;

/** The scripts among Latin, Cyrillic and Greek (whose letters look alike: `a`/`а`, `o`/`о`/`ο`) of a word. */
const confusable = (word: string) => [LATIN, CYRILLIC, GREEK].filter((re) => re.test(word)).length;

export const mixedScripts = define({
  id: 'mixed-scripts',
  description:
    'No word mixes Latin, Cyrillic and Greek letters (`Pаris` with a Cyrillic `а` looks right and never matches).',
  severity: 'warning',
  category: 'characters',
  field: 'target',
  languages: 'All languages; a word the source spells the same way passes.',
  trips: [{ source: 'Open Paris', target: 'Открыть Pаris', targetLang: 'ru' }],
  passes: [{ source: 'Open Paris', target: 'Открыть Paris', targetLang: 'ru' }],
  run: (cell): Finding | null => {
    const spans: Span[] = [];
    for (const m of cell.target.matchAll(WORD)) {
      if (confusable(m[0]) > 1 && !cell.source.includes(m[0]))
        spans.push({ start: m.index, end: m.index + m[0].length });
    }
    return spans.length
      ? { message: `words mixing scripts: ${spans.map((s) => cell.target.slice(s.start, s.end)).join(', ')}`, spans }
      : null;
  },
});

export const targetScript = define({
  id: 'target-script',
  description: 'A translation into a language not written in Latin letters has letters of its script.',
  severity: 'warning',
  category: 'characters',
  field: 'target',
  languages:
    'Languages whose CLDR script is not Latin (Russian Cyrillic, Greek, Arabic, Hebrew, Hindi Devanagari, Japanese kana and kanji, Korean Hangul, Chinese Han, Thai, …); Latin-script targets are not checked. A translation equal to its source is unchanged’s.',
  trips: [{ source: 'Open the settings', target: 'Otkryt nastrojki', targetLang: 'ru' }],
  passes: [
    { source: 'Open the settings', target: 'Открыть настройки', targetLang: 'ru' },
    { source: 'Bluetooth', target: 'Bluetooth', targetLang: 'ru' },
  ],
  run: (cell) => {
    const { letters, script } = cell.targetInfo;
    if (!letters || script === 'Latn' || cell.target === cell.source) return null;
    const text = cell.targetPlain.text;
    if (!hasLetters(text) || letters.test(text)) return null;
    // A brand or a product name alone (`Bluetooth`, `Wi-Fi`, `byte`) is written in Latin letters in many languages.
    if (proseWords(text).length < 2) return null;
    return { message: `no letter of the ${script} script` };
  },
});
