// What a translation must carry over unchanged: numbers, URLs, e-mail addresses, Markdown links and emphasis.
// Compared branch by branch on the plain text (branches.ts): an argument is not a number, markup is not a link.
import { numbersOf as categoryNumbers } from '../../plural-coverage.js';
import { define } from '../define.js';
import { beyond, emailsOf, numbersOf, urlsOf } from '../text.js';
import type { Cell } from '../cell.js';
import type { Finding } from '../types.js';

/**
 * For each branch, `of` of source and target as multisets: what the first differing branch lost and added, but
 * what `free` allows for the branch (the numbers a plural branch stands for).
 */
function carried(
  cell: Cell,
  of: (text: string) => string[],
  what: string,
  free: (key: string) => readonly string[] = () => [],
): Finding | null {
  for (const v of cell.plain) {
    if (!v.target.text.trim()) continue;
    const want = of(v.source.text);
    const have = of(v.target.text);
    const allowed = free(v.key);
    const missing = [...new Set(beyond(want, have))].filter((x) => !allowed.includes(x));
    const extra = [...new Set(beyond(have, want))].filter((x) => !allowed.includes(x));
    if (!missing.length && !extra.length) continue;
    return {
      message: `${what} differ${v.label}: ${[
        missing.length ? `missing ${missing.join(', ')}` : '',
        extra.length ? `not in the source ${extra.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('; ')}`,
    };
  }
  return null;
}

export const numbers = define({
  id: 'numbers',
  description:
    'The numbers of the source are in the translation, and no other (separators and digits may be the language’s).',
  severity: 'warning',
  category: 'content',
  field: 'target',
  languages:
    'All languages. `1,000` = `1.000` = `1 000` = `١٬٠٠٠`; digits of any script count as theirs (Arabic-Indic, Devanagari, full width). A plural branch may write its one number as a word.',
  trips: [
    { source: 'Up to 100 files', target: 'Bis zu 10 Dateien' },
    { source: 'Version 2.1', target: 'Version 2' },
  ],
  passes: [
    { source: '1,000 files', target: '1.000 Dateien' },
    { source: '1,000 files', target: '١٬٠٠٠ ملف', targetLang: 'ar' },
  ],
  run: (cell) => {
    if (!/\p{Nd}/u.test(cell.source + cell.target)) return null;
    // A plural branch may write the numbers it stands for as words or digits (`one {One file}`, `one {1 Datei}`).
    const free = (key: string): string[] => {
      if (/^=\s*\d+$/.test(key)) return [key.replace(/[=\s]/g, '')];
      const own = categoryNumbers(cell.targetLang, key);
      return own.length <= 4 ? [...own, ...categoryNumbers(cell.sourceLang, key)].map(String) : [];
    };
    return carried(cell, numbersOf, 'numbers', free);
  },
});

export const urls = define({
  id: 'urls',
  description: 'The URLs of the source are in the translation, as written.',
  severity: 'warning',
  category: 'content',
  field: 'target',
  languages: 'All languages. Links inside markup are markup-safety’s.',
  trips: [{ source: 'See https://example.com/help', target: 'Siehe https://example.org/hilfe' }],
  passes: [{ source: 'See https://example.com/help.', target: 'Siehe https://example.com/help.' }],
  run: (cell) => (/:\/\/|www\./i.test(cell.source + cell.target) ? carried(cell, urlsOf, 'URLs') : null),
});

export const emails = define({
  id: 'emails',
  description: 'The e-mail addresses of the source are in the translation, as written.',
  severity: 'warning',
  category: 'content',
  field: 'target',
  languages: 'All languages.',
  trips: [{ source: 'Write to help@example.com', target: 'Schreib an hilfe@example.com' }],
  passes: [{ source: 'Write to help@example.com.', target: 'Schreib an help@example.com.' }],
  run: (cell) =>
    cell.source.includes('@') || cell.target.includes('@') ? carried(cell, emailsOf, 'e-mail addresses') : null,
});

// Bounded runs: a text of many `[` without a `]` must not make each one scan to its end.
const MD_LINK =
  /!?\[[^\]\n]{0,500}\]\(([^)\s]{0,2000})(?:\s+"[^"]{0,500}")?\)|!?\[[^\]\n]{0,500}\]\[([^\]\n]{0,500})\]/g;
const mdLinks = (text: string) =>
  [...text.matchAll(MD_LINK)].map((m) => (m[1] !== undefined ? `(${m[1]})` : `[${m[2]}]`));

export const markdownLinks = define({
  id: 'markdown-links',
  description:
    'Markdown links and images of the source (`[text](url)`, `[text][ref]`) are in the translation, to the same URLs.',
  severity: 'warning',
  category: 'content',
  field: 'target',
  languages: 'All languages; the link text is translated.',
  trips: [
    { source: 'Read [the guide](https://example.com/guide)', target: 'Lies den Leitfaden' },
    { source: 'Read [the guide](/guide)', target: 'Lies [den Leitfaden](/anleitung)' },
  ],
  passes: [{ source: 'Read [the guide](/guide)', target: 'Lies [den Leitfaden](/guide)' }],
  run: (cell) => {
    if (!cell.source.includes('](') && !cell.source.includes('][') && !cell.target.includes('](')) return null;
    for (const v of cell.plain) {
      const want = mdLinks(v.source.text);
      const have = mdLinks(v.target.text);
      const missing = beyond(want, have);
      const extra = beyond(have, want);
      if (missing.length || extra.length)
        return {
          message: `Markdown links differ${v.label}: ${[
            missing.length ? `missing ${missing.join(' ')}` : '',
            extra.length ? `unexpected ${extra.join(' ')}` : '',
          ]
            .filter(Boolean)
            .join('; ')}`,
        };
    }
    return null;
  },
});

/** Markdown's inline markers, counted: strong, emphasis, code, strike-through. */
function mdMarkers(text: string): Record<string, number> {
  const t = text.replace(MD_LINK, ' ');
  const runs = (re: RegExp) => t.match(re)?.length ?? 0;
  return {
    '**': runs(/\*\*(?=\S)|(?<=\S)\*\*/g),
    __: runs(/(?<![\p{L}\p{N}])__(?=\S)|(?<=\S)__(?![\p{L}\p{N}])/gu),
    '*': runs(/(?<![*\s])\*(?!\*)|(?<!\*)\*(?=[^\s*])/g),
    '`': runs(/`+/g),
    '~~': runs(/~~/g),
  };
}

export const markdownSyntax = define({
  id: 'markdown-syntax',
  description: 'Markdown emphasis and code of the source (`**strong**`, `*em*`, `` `code` ``, `~~del~~`) are kept.',
  severity: 'warning',
  category: 'content',
  field: 'target',
  languages: 'All languages.',
  trips: [{ source: 'Press **Save** now', target: 'Drücke jetzt Speichern' }],
  passes: [
    { source: 'Press **Save** now', target: 'Drücke jetzt **Speichern**' },
    { source: 'Run `npm test`', target: 'Führe `npm test` aus' },
  ],
  run: (cell) => {
    if (!/[*`~_]/.test(cell.source)) return null;
    for (const v of cell.plain) {
      const want = mdMarkers(v.source.text);
      const have = mdMarkers(v.target.text);
      const off = Object.keys(want).filter((k) => want[k] !== have[k] && want[k] > 0);
      if (off.length)
        return {
          message: `Markdown markers differ${v.label}: ${off.map((k) => `${k} ${have[k]} times, the source ${want[k]}`).join('; ')}`,
        };
    }
    return null;
  },
});
