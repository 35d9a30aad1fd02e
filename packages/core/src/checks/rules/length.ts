// Length: a key's own limit (a button, a notification title), and a translation much longer than its source.
// Lengths are of what a reader sees: the plain text of the longest branch, each argument one character (its value
// is the app's), counted in user-perceived characters (a base letter with its combining marks, an emoji sequence).
import { ARG } from '../branches.js';
import { define } from '../define.js';
import type { Cell } from '../cell.js';
import type { Plain } from '../branches.js';

/** Characters a reader counts: code points, less the combining marks, joiners and variation selectors they carry. */
export const visibleLength = (text: string): number =>
  [...text.replace(/\p{M}|\u200d|\ufe0e|\ufe0f|[\u{1f3fb}-\u{1f3ff}]/gu, '')].length;

const longest = (plains: Plain[]) => Math.max(0, ...plains.map((p) => visibleLength(p.text)));

export const maxLength = define({
  id: 'max-length',
  description:
    'The translation fits the key’s length limit: `maxLength`, else `[CHAR LIMIT=n]` in its comment or context (Android’s convention).',
  severity: 'error',
  category: 'length',
  field: 'target',
  languages: 'All languages; each plural branch must fit.',
  trips: [
    { source: 'Save', target: 'Speichern unter', maxLength: 10 },
    { source: 'Play', target: 'Wiedergabe starten', comment: 'Button label [CHAR LIMIT=12]' },
  ],
  passes: [{ source: 'Save', target: 'Speichern', maxLength: 10 }],
  run: (cell: Cell) => {
    const limit = cell.limit;
    if (limit === null) return null;
    const n = longest(cell.plain.map((v) => v.target));
    return n > limit ? { message: `${n} characters; the limit is ${limit}` } : null;
  },
});

export const expansion = define({
  id: 'expansion',
  description:
    'The translation is at most 2.5 times as long as its source, plus 10 characters (a project may set the factor).',
  severity: 'warning',
  category: 'length',
  field: 'target',
  languages:
    'All languages. The allowance covers German and Finnish, which run up to twice the English; short strings get the 10 characters on top.',
  trips: [{ source: 'Open', target: 'Öffnen Sie die ausgewählte Datei jetzt in einem neuen Fenster' }],
  passes: [{ source: 'Open', target: 'Öffnen' }],
  run: (cell: Cell) => {
    const factor = cell.settings.expansionFactor ?? 2.5;
    for (const v of cell.plain) {
      const s = visibleLength(v.source.text.replaceAll(ARG, 'x'));
      const t = visibleLength(v.target.text.replaceAll(ARG, 'x'));
      const allowed = Math.floor(s * factor) + 10;
      if (t > allowed)
        return {
          message: `${t} characters${v.label}, ${(t / Math.max(1, s)).toFixed(1)} times the source’s ${s} (at most ${allowed})`,
        };
    }
    return null;
  },
});
