// Punctuation, by the target language's conventions (languages.ts): how a sentence ends, French spacing, Chinese and
// Japanese full-width marks, Spanish inverted marks, brackets and quotes that open and close.
import { rawSpan, type Plain } from '../branches.js';
import { define } from '../define.js';
import { endMarks, languageInfo, type EndMarks } from '../languages.js';
import { plainSpans, sentenceEnd, urlsOf } from '../text.js';
import type { Cell } from '../cell.js';
import type { CheckExample, Finding, Span } from '../types.js';
import type { CheckDefinition } from '../define.js';

type Kind = 'ellipsis' | 'stop' | 'question' | 'exclamation' | 'colon';

const KIND_MARKS: Record<Exclude<Kind, 'ellipsis'>, keyof EndMarks> = {
  stop: 'stop',
  question: 'question',
  exclamation: 'exclamation',
  colon: 'colon',
};

/** How a text ends, in `lang` (Greek `;` is a question mark). */
function endKind(text: string, lang: string): Kind | null {
  const end = sentenceEnd(text);
  if (!end) return null;
  const c = text[end - 1];
  if (c === '…' || c === '⋯' || (c === '.' && end >= 3 && text[end - 2] === '.' && text[end - 3] === '.'))
    return 'ellipsis';
  if ('?？؟\u037e፧'.includes(c) || (c === ';' && languageInfo(lang).base === 'el')) return 'question';
  if ('!！'.includes(c)) return 'exclamation';
  if (':：'.includes(c)) return languageInfo(lang).base === 'hy' ? 'stop' : 'colon';
  if ('.。．।։။።۔'.includes(c)) return 'stop';
  return null;
}

/** Spans found in each branch of the translation, each once (branches share their text outside the plural). */
function inBranches(cell: Cell, find: (target: Plain, source: Plain) => Span[]): Span[] {
  const seen = new Map<string, Span>();
  for (const v of cell.plain) for (const s of find(v.target, v.source)) seen.set(`${s.start}:${s.end}`, s);
  return [...seen.values()].sort((a, b) => a.start - b.start);
}

const NAMES: Record<Kind, string> = {
  ellipsis: 'an ellipsis',
  stop: 'a full stop',
  question: 'a question mark',
  exclamation: 'an exclamation mark',
  colon: 'a colon',
};

/** A short source (an abbreviation like `No.`, `etc.`, a lone mark) says little of how a sentence ends. */
function tooShort(p: Plain): boolean {
  const t = p.text;
  let letters = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i) | 32;
    if (c >= 97 && c <= 122) letters++;
    else if (t.charCodeAt(i) >= 128) {
      LETTER_AT.lastIndex = i;
      if (LETTER_AT.test(t)) letters++;
    }
    if (letters === 3) return false;
  }
  return true;
}
/** A letter at `lastIndex` (sticky, so a letter outside the BMP is read whole). */
const LETTER_AT = /\p{L}/uy;

function endCheck(
  kind: Kind,
  id: string,
  description: string,
  trips: CheckExample[],
  passes: CheckExample[],
): CheckDefinition {
  const marks = (lang: string) => (kind === 'ellipsis' ? ['…', '...'] : endMarks(lang)[KIND_MARKS[kind]]);
  return define({
    id,
    description,
    severity: 'warning',
    category: 'punctuation',
    field: 'target',
    languages:
      kind === 'ellipsis'
        ? 'All languages: `…`, `...` or `⋯` (Chinese and Japanese `……`).'
        : kind === 'stop'
          ? 'Chinese and Japanese `。`, Hindi and Bengali `।`, Armenian `։`, Burmese `။`, Amharic `።`, Urdu `۔`; Thai, Lao and Khmer mark no full stop and are not checked.'
          : kind === 'question'
            ? 'Arabic, Persian and Urdu `؟`, Greek `;`, Chinese and Japanese `？`, Amharic `፧`; Armenian (the mark sits on the stressed vowel) is not checked.'
            : kind === 'exclamation'
              ? 'Chinese and Japanese `！`; Armenian is not checked.'
              : 'Chinese and Japanese `：`; Armenian (`:` is its full stop) is not checked.',
    trips,
    passes,
    run: (cell: Cell): Finding | null => {
      const allowed = marks(cell.targetLang);
      if (!allowed) return null;
      for (const v of cell.plain) {
        if (!v.target.text.trim() || tooShort(v.source)) continue;
        const s = endKind(v.source.text, cell.sourceLang);
        const t = endKind(v.target.text, cell.targetLang);
        if (s === kind && t !== kind)
          return {
            message: `the source ends with ${NAMES[kind]}${v.label}; the translation does not (${allowed.join(' ')})`,
          };
        if (
          t === kind &&
          s !== kind &&
          s !== 'ellipsis' &&
          !(kind === 'stop' && s === null && t === 'stop' && /[)）]$/.test(v.source.text.trim()))
        )
          return {
            message: `the translation ends with ${NAMES[kind]}${v.label}; the source does not`,
            spans: [rawSpan(v.target, sentenceEnd(v.target.text) - 1, sentenceEnd(v.target.text))],
          };
      }
      return null;
    },
  });
}

export const endStop = endCheck(
  'stop',
  'end-stop',
  'A translation ends with a full stop exactly when its source does, in the target language’s own mark.',
  [
    { source: 'The file was saved.', target: 'Die Datei wurde gespeichert' },
    { source: 'Save the file', target: 'Datei speichern.' },
  ],
  [
    { source: 'The file was saved.', target: 'ファイルを保存しました。', targetLang: 'ja' },
    { source: 'The file was saved.', target: 'फ़ाइल सहेजी गई।', targetLang: 'hi' },
    { source: 'The file was saved.', target: 'บันทึกไฟล์แล้ว', targetLang: 'th' },
  ],
);

export const endQuestion = endCheck(
  'question',
  'end-question',
  'A question stays a question: the translation ends with the target language’s question mark.',
  [
    { source: 'Delete this file?', target: 'Diese Datei löschen.' },
    { source: 'Delete this file?', target: 'هل تريد حذف هذا الملف', targetLang: 'ar' },
  ],
  [
    { source: 'Delete this file?', target: 'هل تريد حذف هذا الملف؟', targetLang: 'ar' },
    { source: 'Delete this file?', target: 'Διαγραφή αυτού του αρχείου;', targetLang: 'el' },
    { source: 'Delete this file?', target: 'Supprimer ce fichier\u202f?', targetLang: 'fr' },
  ],
);

export const endExclamation = endCheck(
  'exclamation',
  'end-exclamation',
  'A translation ends with an exclamation mark exactly when its source does.',
  [{ source: 'Welcome back!', target: 'Willkommen zurück.' }],
  [
    { source: 'Welcome back!', target: 'Willkommen zurück!' },
    { source: 'Welcome back!', target: 'おかえりなさい！', targetLang: 'ja' },
  ],
);

export const endColon = endCheck(
  'colon',
  'end-colon',
  'A label that ends with a colon keeps it (a value follows it on screen).',
  [{ source: 'Name:', target: 'Name' }],
  [
    { source: 'Name:', target: 'Nom\u00a0:', targetLang: 'fr' },
    { source: 'Name:', target: '名前：', targetLang: 'ja' },
  ],
);

export const endEllipsis = endCheck(
  'ellipsis',
  'end-ellipsis',
  'A translation ends with an ellipsis exactly when its source does (a menu item that opens a dialog, a progress).',
  [{ source: 'Loading…', target: 'Wird geladen' }],
  [
    { source: 'Loading…', target: 'Wird geladen...' },
    { source: 'Loading…', target: '読み込み中……', targetLang: 'ja' },
  ],
);

export const ellipsisCharacter = define({
  id: 'ellipsis-character',
  description: 'The ellipsis is one character (`…`), as its source writes it, not three dots.',
  severity: 'info',
  category: 'punctuation',
  field: 'target',
  languages: 'All languages. A source that writes `...` may be followed.',
  trips: [{ source: 'Loading…', target: 'Wird geladen...' }],
  passes: [
    { source: 'Loading…', target: 'Wird geladen…' },
    { source: 'Loading...', target: 'Wird geladen...' },
  ],
  run: (cell) => {
    if (!cell.target.includes('...') || cell.source.includes('...')) return null;
    const spans = inBranches(cell, (t) => plainSpans(t, /\.\.\./g));
    return spans.length ? { message: 'three dots instead of an ellipsis (…)', spans } : null;
  },
});

const NBSP = /[\u00a0\u202f]/;

export const frenchSpacing = define({
  id: 'french-spacing',
  description:
    'French puts a (narrow) no-break space before `: ; ! ?` and inside `« »`, so the mark never wraps to a line of its own.',
  severity: 'warning',
  category: 'punctuation',
  field: 'target',
  languages:
    'French (fr, fr-FR, fr-BE): `: ; ! ?` and `« »`; Canadian and Swiss French (fr-CA, fr-CH): `:` and `« »` only. U+00A0 and U+202F both pass; an ordinary space or none does not.',
  trips: [
    { source: 'Delete this file?', target: 'Supprimer ce fichier ?', targetLang: 'fr' },
    { source: 'Current mode:', target: 'Mode actuel:', targetLang: 'fr' },
    { source: '"Save"', target: '« Enregistrer »', targetLang: 'fr' },
  ],
  passes: [
    { source: 'Delete this file?', target: 'Supprimer ce fichier\u202f?', targetLang: 'fr' },
    { source: 'Current mode:', target: 'Mode actuel\u00a0:', targetLang: 'fr' },
    { source: 'Delete this file?', target: 'Supprimer ce fichier?', targetLang: 'fr-CA' },
    { source: 'At 10:30, see https://example.com', target: 'À 10:30, voir https://example.com', targetLang: 'fr' },
  ],
  run: (cell): Finding | null => {
    const marks = cell.targetInfo.frenchSpaced;
    if (!marks) return null;
    let ordinary = false;
    const bad = inBranches(cell, (p) => {
      const found = frenchSpaces(p, marks);
      ordinary ||= found.ordinary;
      return found.spans;
    });
    if (!bad.length) return null;
    return {
      message: `${bad.length} mark${bad.length === 1 ? '' : 's'} without a no-break space before ${marks.split('').join(' ')} or inside « »${ordinary ? ' (an ordinary space can wrap the mark to the next line)' : ''}`,
      spans: bad,
    };
  },
});

/** Where a French text lacks its no-break spaces: before `marks` and inside guillemets. */
function frenchSpaces(p: Plain, marks: string): { spans: Span[]; ordinary: boolean } {
  const text = p.text;
  const urls = urlsOf(text).flatMap((u) => {
    const at = text.indexOf(u);
    return at === -1 ? [] : [[at, at + u.length] as const];
  });
  const spans: Span[] = [];
  let ordinary = false;
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    const before = text[i - 1];
    const after = text[i + 1] ?? '';
    if (!marks.includes(c) || urls.some(([a, b]) => i >= a && i < b)) continue;
    // A mark inside a word or a number (`10:30`, `a;b`), or right after another mark (`?!`), takes no space.
    if (/[\p{L}\p{N}]/u.test(after) || marks.includes(before) || before === c) continue;
    if (NBSP.test(before)) continue;
    if (before === ' ') ordinary = true;
    else if (!/[\p{L}\p{N}\uFFFC)»”’"']/u.test(before)) continue;
    spans.push(rawSpan(p, before === ' ' ? i - 1 : i, i + 1));
  }
  for (const m of text.matchAll(/«([ ]?)(?=\S)|(?<=\S)([ ]?)»/g))
    spans.push(rawSpan(p, m.index, m.index + m[0].length));
  return { spans, ordinary };
}

const CJK_BEFORE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]/u;

export const cjkPunctuation = define({
  id: 'cjk-punctuation',
  description: 'Chinese and Japanese use full-width marks after their own text: `，。！？：；` (Japanese `、。`).',
  severity: 'warning',
  category: 'punctuation',
  field: 'target',
  languages: 'Chinese (zh, zh-Hans, zh-Hant, yue) and Japanese; an ASCII mark after Latin text or digits passes.',
  trips: [{ source: 'Saved. Restart now?', target: '保存しました. 今すぐ再起動しますか?', targetLang: 'ja' }],
  passes: [
    { source: 'Saved. Restart now?', target: '保存しました。今すぐ再起動しますか？', targetLang: 'ja' },
    { source: 'Version 1.5', target: 'バージョン 1.5', targetLang: 'ja' },
  ],
  run: (cell): Finding | null => {
    if (!cell.targetInfo.cjk) return null;
    const spans = inBranches(cell, (p) => {
      const out: Span[] = [];
      for (const m of p.text.matchAll(/[,.!?:;](?!\.)/g)) {
        const i = m.index;
        if (p.text[i - 1] === '.' || !CJK_BEFORE.test(p.text[i - 1] ?? '')) continue;
        if (/[A-Za-z0-9]/.test(p.text[i + 1] ?? '')) continue;
        out.push(rawSpan(p, i, i + 1));
      }
      return out;
    });
    return spans.length
      ? { message: `${spans.length} ASCII mark${spans.length === 1 ? '' : 's'} after Chinese or Japanese text`, spans }
      : null;
  },
});

const SPACED = /[ \u00a0\u202f]+([,!?:;])(?=\s|$|["'”’»)\]\uFFFC])/g;

export const spaceBeforePunctuation = define({
  id: 'space-before-punctuation',
  description: 'No space before `, ! ? : ;` where the source has none (French spacing is french-spacing’s).',
  severity: 'warning',
  category: 'punctuation',
  field: 'target',
  languages: 'Every language but French, whose spacing before `: ; ! ?` is the rule.',
  trips: [{ source: 'Delete this file?', target: 'Diese Datei löschen ?' }],
  passes: [
    { source: 'Supprimer ce fichier ?', target: 'Delete this file?', sourceLang: 'fr', targetLang: 'en' },
    { source: 'Delete this file?', target: 'Diese Datei löschen?' },
  ],
  run: (cell) => {
    if (cell.targetInfo.base === 'fr') return null;
    const spans = inBranches(cell, (t, source) => {
      SPACED.lastIndex = 0;
      return SPACED.test(source.text) ? [] : plainSpans(t, SPACED);
    });
    return spans.length ? { message: 'space before a punctuation mark', spans } : null;
  },
});

const INVERTED = new Set(['es', 'gl', 'ast']);

export const invertedMarks = define({
  id: 'inverted-marks',
  description: 'Spanish opens a question with `¿` and an exclamation with `¡`.',
  severity: 'warning',
  category: 'punctuation',
  field: 'target',
  languages: 'Spanish, Galician and Asturian.',
  trips: [{ source: 'Delete this file?', target: 'Eliminar este archivo?', targetLang: 'es' }],
  passes: [
    { source: 'Delete this file?', target: '¿Eliminar este archivo?', targetLang: 'es' },
    { source: 'Welcome!', target: '¡Bienvenido!', targetLang: 'es' },
  ],
  run: (cell): Finding | null => {
    if (!INVERTED.has(cell.targetInfo.base)) return null;
    for (const v of cell.plain) {
      let text = v.target.text;
      for (const u of urlsOf(text)) text = text.replace(u, '');
      for (const [close, open] of [
        ['?', '¿'],
        ['!', '¡'],
      ] as const) {
        const closes = text.split(close).length - 1;
        const opens = text.split(open).length - 1;
        if (closes > opens) return { message: `${closes} ${close} but ${opens} ${open}${v.label}` };
      }
    }
    return null;
  },
});

const PAIRS: Record<string, string> = {
  '(': ')',
  '[': ']',
  '（': '）',
  '【': '】',
  '「': '」',
  '『': '』',
  '〔': '〕',
  '《': '》',
};
const CLOSERS = new Map(Object.entries(PAIRS).map(([o, c]) => [c, o]));

/** Any of the brackets above (the class escapes `]` and `[`). */
const BRACKET = new RegExp(`[${[...Object.keys(PAIRS), ...CLOSERS.keys()].join('').replace(/[[\]]/g, '\\$&')}]`);

/** The offset of the first bracket of `text` that opens or closes nothing, or -1. */
export function unbalancedBracket(text: string): number {
  if (!BRACKET.test(text)) return -1;
  const stack: Array<{ c: string; at: number }> = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (PAIRS[c]) stack.push({ c, at: i });
    else if (CLOSERS.has(c)) {
      if (stack.at(-1)?.c !== CLOSERS.get(c)) return i;
      stack.pop();
    }
  }
  return stack.length ? stack[0].at : -1;
}

export const brackets = define({
  id: 'brackets',
  description: 'Every bracket the translation opens it closes, in order: `( ) [ ]` and the full-width ones.',
  severity: 'warning',
  category: 'punctuation',
  field: 'target',
  languages: 'All languages: `（）【】「」『』〔〕《》` as well.',
  trips: [{ source: 'Size (in MB)', target: 'Größe (in MB' }],
  passes: [
    { source: 'Size (in MB)', target: 'サイズ（MB）', targetLang: 'ja' },
    { source: 'Options :)', target: 'Optionen :)' },
  ],
  run: (cell) => {
    for (const v of cell.plain) {
      if (unbalancedBracket(v.source.text) !== -1) continue;
      const at = unbalancedBracket(v.target.text);
      if (at !== -1)
        return { message: `unbalanced bracket ${v.target.text[at]}${v.label}`, spans: [rawSpan(v.target, at, at + 1)] };
    }
    return null;
  },
});

const QUOTE_MARKS = '«»「」『』"„“”';

const QUOTE = new RegExp(`[${QUOTE_MARKS}]`);

/** Quote families a text can leave open: counts that must be equal, or even. Counted in one pass. */
function openQuote(text: string): string | null {
  if (!QUOTE.test(text)) return null;
  const n = new Array<number>(QUOTE_MARKS.length).fill(0);
  for (let i = 0; i < text.length; i++) {
    const at = QUOTE_MARKS.indexOf(text[i]);
    if (at !== -1) n[at]++;
  }
  if (n[0] !== n[1]) return '« »';
  if (n[2] !== n[3]) return '「 」';
  if (n[4] !== n[5]) return '『 』';
  if (n[6] % 2) return '"';
  if ((n[7] + n[8] + n[9]) % 2) return '„ “ ”';
  return null;
}

export const quotes = define({
  id: 'quotes',
  description: 'Quotation marks are closed: `« »`, `「 」`, `„ “`, `“ ”` and ASCII `"` come in pairs.',
  severity: 'warning',
  category: 'punctuation',
  field: 'target',
  languages: 'All languages; each language’s own marks count (German `„…“`, Swedish `”…”`, French `« … »`).',
  trips: [{ source: 'Press "Save"', target: 'Drücke „Speichern' }],
  passes: [
    { source: 'Press "Save"', target: 'Drücke „Speichern“' },
    { source: 'Press "Save"', target: 'Appuyez sur «\u00a0Enregistrer\u00a0»', targetLang: 'fr' },
  ],
  run: (cell) => {
    for (const v of cell.plain) {
      if (openQuote(v.source.text)) continue;
      const open = openQuote(v.target.text);
      if (open) return { message: `unclosed quotation (${open})${v.label}` };
    }
    return null;
  },
});
