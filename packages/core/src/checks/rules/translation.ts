// Whether the text is translated at all, and translated with care: empty, left as the source, a doubled word, and the
// project's terms (the glossary check: the termbase's matcher, packages/core/src/terms/check.ts; it passes when no
// terms are given).
import { glossaryFindings } from '../../terms/check.js';
import { rawSpan } from '../branches.js';
import { define } from '../define.js';
import { hasLetters, nothingToTranslate, proseWords, WORD } from '../text.js';
import type { Finding } from '../types.js';

export const empty = define({
  id: 'empty',
  description: 'The translation (each of its branches) has text where its source has.',
  severity: 'error',
  category: 'translation',
  field: 'target',
  languages: 'All languages.',
  trips: [
    { source: 'Save', target: '' },
    { source: '{count, plural, one {# file} other {# files}}', target: '{count, plural, one {# Datei} other {}}' },
  ],
  passes: [{ source: ' ', target: ' ' }],
  run: (cell): Finding | null => {
    if (!cell.source.trim()) return null;
    if (!cell.target.trim()) return { message: 'empty translation' };
    for (const v of cell.plain)
      if (v.source.text.trim() && !v.target.text.trim()) return { message: `empty branch${v.label}` };
    return null;
  },
});

export const unchanged = define({
  id: 'unchanged',
  description:
    'The translation is not its source as it is (an untranslated string), in another language than the source’s.',
  severity: 'warning',
  category: 'translation',
  field: 'target',
  languages:
    'All languages. Passes: a source of arguments, numbers and marks alone; a source of one word per branch, which may be the same word in both languages (`Pause` in French, `Stereo` in Polish, `OK`, a name); a target in a variant of the source’s language (en-GB for en).',
  trips: [{ source: 'Open the file', target: 'Open the file' }],
  passes: [
    { source: 'OK', target: 'OK' },
    { source: '{name} ({count})', target: '{name} ({count})' },
    { source: 'Pause', target: 'Pause', targetLang: 'fr' },
    { source: 'Open the file', target: 'Open the file', targetLang: 'en-GB', sourceLang: 'en' },
  ],
  run: (cell) => {
    if (cell.target !== cell.source || cell.targetInfo.base === cell.sourceInfo.base) return null;
    if (nothingToTranslate(cell.sourcePlain.text)) return null;
    // A branch of one word may be the same word in both languages (`Pause`, `Stereo`, `byte`, Polish `S` for
    // Saturday): only a branch of two words or more is surely left untranslated.
    if (cell.plain.every((v) => proseWords(v.source.text).length < 2)) return null;
    return { message: 'the translation is the source, unchanged' };
  },
});

// Repetitions a language's grammar makes (French reflexive `nous nous`, German relative `die die`, `das das`).
const GRAMMATICAL: Record<string, Set<string>> = {
  fr: new Set(['nous', 'vous']),
  de: new Set(['die', 'der', 'das']),
  nl: new Set(['dat']),
};

export const repeatedWords = define({
  id: 'repeated-words',
  description: 'No word twice in a row (`the the`) where the source does not repeat it.',
  severity: 'warning',
  category: 'translation',
  field: 'target',
  languages:
    'All languages. French `nous nous`, `vous vous`, German `die die`, `das das` and Dutch `dat dat` are grammar and pass.',
  trips: [{ source: 'Save the file', target: 'Die Datei Datei speichern' }],
  passes: [
    { source: 'We meet', target: 'Nous nous rencontrons', targetLang: 'fr' },
    { source: 'Bye bye', target: 'Tschüss tschüss' },
  ],
  run: (cell): Finding | null => {
    const grammar = GRAMMATICAL[cell.targetInfo.base];
    for (const v of cell.plain) {
      const spans = repeats(v.target.text)
        .filter((r) => !grammar?.has(r.word))
        .map((r) => rawSpan(v.target, r.start, r.end));
      // A source that repeats a word (`Bye bye`, `Knock knock`) may be followed as many times.
      if (!spans.length || spans.length <= repeats(v.source.text).length) continue;
      return {
        message: `repeated words${v.label}: ${spans.map((s) => cell.target.slice(s.start, s.end)).join(', ')}`,
        spans,
      };
    }
    return null;
  },
});

/** Words said twice in a row, separated by whitespace alone, case aside. */
function repeats(text: string): Array<{ word: string; start: number; end: number }> {
  const words = [...text.matchAll(WORD)];
  const out: Array<{ word: string; start: number; end: number }> = [];
  for (let i = 1; i < words.length; i++) {
    const a = words[i - 1];
    const b = words[i];
    // The locale's lower case is slow, and words of different lengths are different words but for one spelling
    // (a capital İ against i with a combining dot): only words of one length are compared.
    if (a[0].length !== b[0].length) continue;
    const w = b[0].toLocaleLowerCase();
    if (a[0].toLocaleLowerCase() === w && /^\s+$/.test(text.slice(a.index + a[0].length, b.index)))
      out.push({ word: w, start: a.index, end: b.index + b[0].length });
  }
  return out;
}

export const glossary = define({
  id: 'glossary',
  description:
    'Where the source uses a term of the project’s termbase (in any inflected form), the translation uses its approved translation (in any form), never a forbidden one, and keeps a name that is not translated as it is.',
  severity: 'warning',
  category: 'translation',
  field: 'target',
  languages:
    'The termbase’s entries per target language; inflected forms are found by stemming in the languages docs/guides/terms.md lists, and by substring in Chinese, Japanese, Korean and Thai. No terms given: the check passes.',
  trips: [
    {
      source: 'Open the dashboard',
      target: 'Öffne die Übersicht',
      terms: [{ source: 'dashboard', targets: ['Dashboard'] }],
    },
    {
      source: 'Delete these files?',
      target: 'Diese Akten löschen?',
      terms: [
        { source: 'file', targets: ['Akte'], forbidden: true },
        { source: 'file', targets: ['Datei'] },
      ],
    },
    {
      source: 'Sign in with GitHub',
      target: 'Mit GitHab anmelden',
      terms: [{ source: 'GitHub', targets: [], nonTranslatable: true }],
    },
  ],
  passes: [
    {
      source: 'Open the dashboard',
      target: 'Öffne das Dashboard',
      terms: [{ source: 'dashboard', targets: ['Dashboard'] }],
    },
    { source: 'Open the dashboard', target: 'Öffne die Übersicht' },
    {
      source: 'Delete these files?',
      target: 'Diese Dateien löschen?',
      terms: [{ source: 'file', targets: ['Datei'] }],
    },
    {
      source: 'Sign in with GitHub',
      target: 'Mit GitHub anmelden',
      terms: [{ source: 'GitHub', targets: [], nonTranslatable: true }],
    },
    {
      source: 'Enter your pin code',
      target: 'Gib deinen Code ein',
      terms: [{ source: 'PIN', targets: ['PIN'], abbreviation: true }],
    },
  ],
  run: (cell): Finding[] | null => {
    if (!cell.terms.length || !hasLetters(cell.source)) return null;
    const found = glossaryFindings(
      cell.terms,
      cell.sourcePlain.text,
      cell.targetPlain.text,
      cell.sourceLang,
      cell.targetLang,
    );
    if (!found.length) return null;
    return found.map((f) => ({
      message: f.message,
      spans: f.spans.map((s) => rawSpan(cell.targetPlain, s.start, s.end)),
    }));
  },
});
