// ICU MessageFormat: the syntax, the arguments, the plural and select structure, and the CLDR plural rules. The
// first six are gate rules (packages/core/src/gates.ts composes them for the fill and the publish); their messages
// are the gates' own.
import { TYPE, type PluralOrSelectOption } from '@formatjs/icu-messageformat-parser';
import { argumentProblem, languageProblem, pluralProblem, structureProblem, walkIcu } from '../../icu.js';
import { coverageGaps, describeGap, isManyGap } from '../../plural-coverage.js';
import { define, found } from '../define.js';

export const icuSyntax = define({
  id: 'icu-syntax',
  description: 'The translation is a valid ICU message, read as its source reads tags (rich text, else text).',
  severity: 'error',
  category: 'syntax',
  field: 'target',
  languages: 'All languages.',
  trips: [
    { source: 'Hello {name}', target: 'Hallo {name' },
    { source: 'Tap <b>Save</b>', target: '</b>Speichern<b>' },
  ],
  passes: [{ source: 'Read <a href="/terms">the terms</a>', target: 'Lies <a href="/terms">die Bedingungen</a>' }],
  run: (cell) => {
    const pair = cell.pair;
    return 'syntax' in pair
      ? { message: pair.syntax, ...(pair.side === 'source' ? { field: 'source' as const } : {}) }
      : null;
  },
});

export const icuPlaceholders = define({
  id: 'icu-placeholders',
  description: 'The translation names exactly the arguments of its source: `{name}`, typed, plural and select.',
  severity: 'error',
  category: 'placeholders',
  field: 'target',
  languages: 'All languages.',
  trips: [
    { source: 'Hello {name}', target: 'Hallo' },
    { source: 'Hello {name}', target: 'Hallo {nom}' },
  ],
  passes: [{ source: 'Hello {name}, {count} new', target: '{count} neue, hallo {name}' }],
  run: (cell) => found(argumentProblem(cell.pair)),
});

export const icuStructure = define({
  id: 'icu-structure',
  description: 'Each plural and select of the source stays one, a select keeps its options, and none is added.',
  severity: 'warning',
  category: 'syntax',
  field: 'target',
  languages: 'All languages. The fill holds engines to it; a person may rephrase a plural as text.',
  trips: [
    {
      source: '{g, select, male {He} female {She} other {They}} left',
      target: '{g, select, male {Er} other {Sie}} ging',
    },
    { source: '{count, plural, one {# file} other {# files}}', target: '{count} Dateien' },
  ],
  passes: [
    {
      source: '{g, select, male {He} female {She} other {They}} left',
      target: '{g, select, female {Sie} male {Er} other {Sie}} ging',
    },
  ],
  run: (cell) => found(structureProblem(cell.pair)),
});

export const languageTag = define({
  id: 'language-tag',
  description: 'The target language is a tag CLDR knows, so its plural rules can be checked.',
  severity: 'error',
  category: 'syntax',
  field: 'target',
  languages: 'Any tag Intl.PluralRules accepts.',
  trips: [{ source: 'Hello', target: 'Hallo', targetLang: 'not a tag!' }],
  passes: [{ source: 'Hello', target: 'Olá', targetLang: 'pt-BR' }],
  run: (cell) => found(languageProblem(cell.targetLang)),
});

export const pluralCategories = define({
  id: 'plural-categories',
  description: "Every cardinal plural has exactly the target language's CLDR categories (`=N` branches may be added).",
  severity: 'error',
  category: 'plurals',
  field: 'target',
  languages:
    'Intl.PluralRules: ja, zh, ko `other`; de, en `one other`; fr, pt `one many other`; pl, ru, uk `one few many other`; ar all six. Ordinal plurals are not held to it.',
  trips: [
    {
      source: '{count, plural, one {# file} other {# files}}',
      target: '{count, plural, one {# plik} other {# pliku}}',
      targetLang: 'pl',
    },
    {
      source: '{count, plural, one {# file} other {# files}}',
      target: '{count, plural, one {#件} other {#件}}',
      targetLang: 'ja',
    },
  ],
  passes: [
    {
      source: '{count, plural, one {# file} other {# files}}',
      target: '{count, plural, =0 {なし} other {#件}}',
      targetLang: 'ja',
    },
  ],
  run: (cell) => (cell.target.includes('plural') ? found(pluralProblem(cell.pair, cell.targetLang)) : null),
});

export const pluralNumber = define({
  id: 'plural-number',
  description:
    "A plural branch that stands for many numbers (five or more of 0 to 1000, gettext's line) shows what the source's `other` shows.",
  severity: 'error',
  category: 'plurals',
  field: 'target',
  languages:
    'Russian, Ukrainian, Belarusian `one` (1, 21, 31, …), Icelandic and Macedonian `one`, Latvian `zero`, every `other`; English and German `one` (1 alone) may name it in words. `msgfmt --check` refuses the same.',
  trips: [
    {
      source: '{count, plural, one {{name} added a photo} other {{name} added # photos}}',
      target:
        '{count, plural, one {{name} добавил(а) фото} few {{name} добавил(а) # фото} many {{name} добавил(а) # фото} other {{name} добавил(а) # фото}}',
      targetLang: 'ru',
    },
  ],
  passes: [
    {
      source: '{count, plural, one {{name} added a photo} other {{name} added # photos}}',
      target: '{count, plural, one {{name} hat ein Foto hinzugefügt} other {{name} hat # Fotos hinzugefügt}}',
      targetLang: 'de',
    },
  ],
  run: (cell) => {
    if (!cell.target.includes('plural')) return null;
    const gap = coverageGaps(cell.source, cell.target, cell.targetLang, cell.srcAst, cell.tgtAst).find(isManyGap);
    return gap ? { message: describeGap(gap, cell.targetLang) } : null;
  },
});

export const pluralFewNumbers = define({
  id: 'plural-few-numbers',
  description:
    "A plural branch that stands for a few numbers (2 to 4 of 0 to 1000) shows what the source's `other` shows, or names each of them.",
  severity: 'warning',
  category: 'plurals',
  field: 'target',
  languages:
    'French and Portuguese `one` (0 and 1: `une photo` is also said of 0 photos), Irish `few` (3 to 6) and `many` (7 to 10), Welsh; a category of one number is not held to it.',
  trips: [
    {
      source: '{count, plural, one {a photo} other {# photos}}',
      target: '{count, plural, one {une photo} many {# de photos} other {# photos}}',
      targetLang: 'fr',
    },
  ],
  passes: [
    {
      source: '{count, plural, one {a photo} other {# photos}}',
      target: '{count, plural, one {# photo} many {# de photos} other {# photos}}',
      targetLang: 'fr',
    },
    {
      source: '{count, plural, one {a photo} other {# photos}}',
      target: '{count, plural, =0 {aucune photo} one {une photo} many {# de photos} other {# photos}}',
      targetLang: 'fr',
    },
  ],
  run: (cell) => {
    if (!cell.target.includes('plural')) return null;
    const val = cell.tgtAst;
    // The numbers an exact branch (`=0`) of the same plural names are not the category's to name.
    const exact = new Set<string>();
    if (val)
      walkIcu(val, (el) => {
        if (el.type === TYPE.plural)
          for (const k of Object.keys(el.options))
            if (/^=\s*\d+$/.test(k)) exact.add(`${el.value}=${k.replace(/[=\s]/g, '')}`);
      });
    // A branch of one number left (French `one` with `=0` beside it) may name it in words.
    const gap = coverageGaps(cell.source, cell.target, cell.targetLang, cell.srcAst, val).find(
      (g) => !isManyGap(g) && g.numbers.filter((n) => !exact.has(`${g.plural}=${n}`)).length > 1,
    );
    return gap ? { message: describeGap(gap, cell.targetLang) } : null;
  },
});

export const pluralSameForms = define({
  id: 'plural-same-forms',
  description: 'The branches of a plural differ from each other (two identical branches may be an unfinished one).',
  severity: 'info',
  category: 'plurals',
  field: 'target',
  languages:
    'Languages whose noun does not change with the number (Russian `фото`, Japanese) legitimately repeat a branch: hence info.',
  trips: [
    {
      source: '{count, plural, one {# file} other {# files}}',
      target: '{count, plural, one {# Dateien} other {# Dateien}}',
    },
  ],
  passes: [
    {
      source: '{count, plural, one {# file} other {# files}}',
      target: '{count, plural, one {# Datei} other {# Dateien}}',
    },
  ],
  run: (cell) => {
    if (!cell.target.includes('plural')) return null;
    const val = cell.tgtAst;
    if (!val) return null;
    let same: string | null = null;
    walkIcu(val, (el) => {
      if (same || el.type !== TYPE.plural) return;
      const seen = new Map<string, string>();
      for (const [k, opt] of Object.entries<PluralOrSelectOption>(el.options)) {
        const loc = opt.location;
        if (!loc || /^=/.test(k)) continue;
        const text = cell.target.slice(loc.start.offset, loc.end.offset);
        const first = seen.get(text);
        if (first) {
          same = `plural {${el.value}}: ${first} and ${k} are the same`;
          return;
        }
        seen.set(text, k);
      }
    });
    return found(same);
  },
});
