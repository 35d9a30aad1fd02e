// Whether the text is translated at all, and translated with care: empty, left as the source, a doubled word, and the
// project's terms (the glossary check: a hook for the termbase, a later phase; it passes when no terms are given).
import { rawSpan } from '../branches.js';
import { define } from '../define.js';
import { hasLetters, nothingToTranslate, proseWords, WORD } from '../text.js';
import type { Cell } from '../cell.js';
import type { Finding, Term } from '../types.js';

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
      if (spans.length <= repeats(v.source.text).length) continue;
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
    const w = b[0].toLocaleLowerCase();
    if (a[0].toLocaleLowerCase() === w && /^\s+$/.test(text.slice(a.index + a[0].length, b.index)))
      out.push({ word: w, start: a.index, end: b.index + b[0].length });
  }
  return out;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const termRe = (term: string, caseSensitive: boolean) =>
  new RegExp(`(?<![\\p{L}\\p{N}])${escapeRe(term)}(?![\\p{L}\\p{N}])`, caseSensitive ? 'u' : 'iu');

/** Whether `text` has `term` as a whole word (or words). */
const hasTerm = (text: string, term: string, caseSensitive: boolean) => termRe(term, caseSensitive).test(text);

/** What a term asks of a cell, or null when its source does not use the term. */
function termProblem(cell: Cell, t: Term): string | null {
  const cs = t.caseSensitive === true;
  if (!hasTerm(cell.sourcePlain.text, t.source, cs)) return null;
  const used = t.targets.filter((x) => hasTerm(cell.targetPlain.text, x, cs));
  if (t.forbidden) return used.length ? `“${used[0]}” is not to be used for “${t.source}”` : null;
  if (!t.targets.length || used.length) return null;
  return `“${t.source}” is translated as ${t.targets.map((x) => `“${x}”`).join(' or ')}`;
}

export const glossary = define({
  id: 'glossary',
  description: 'Where the source uses a term of the project’s termbase, the translation uses its approved translation.',
  severity: 'warning',
  category: 'translation',
  field: 'target',
  languages: 'The termbase’s entries per target language. No terms given (no termbase yet): the check passes.',
  trips: [
    {
      source: 'Open the dashboard',
      target: 'Öffne die Übersicht',
      terms: [{ source: 'dashboard', targets: ['Dashboard'] }],
    },
  ],
  passes: [
    {
      source: 'Open the dashboard',
      target: 'Öffne das Dashboard',
      terms: [{ source: 'dashboard', targets: ['Dashboard'] }],
    },
    { source: 'Open the dashboard', target: 'Öffne die Übersicht' },
  ],
  run: (cell) => {
    if (!cell.terms.length || !hasLetters(cell.source)) return null;
    const problems = cell.terms.map((t) => termProblem(cell, t)).filter((p): p is string => p !== null);
    return problems.length ? problems.map((message) => ({ message })) : null;
  },
});
