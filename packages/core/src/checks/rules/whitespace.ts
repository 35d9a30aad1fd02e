// Whitespace a translation adds, drops or doubles. Compared branch by branch on the plain text (arguments and markup
// left out, branches.ts), so `{count, plural, …}` syntax never counts as a space.
import { rawSpan, type Plain } from '../branches.js';
import { define } from '../define.js';
import { count } from '../text.js';
import type { Cell } from '../cell.js';
import type { Finding } from '../types.js';

const show = (ws: string) =>
  ws === ''
    ? 'none'
    : JSON.stringify(ws)
        .slice(1, -1)
        .replace(/\u00a0/g, '⍽')
        .replace(/ /g, '␠');

/** For each branch, `edge` of source and target compared; a finding at the first that differs. */
function edges(cell: Cell, edge: (p: Plain) => { ws: string; from: number }, where: string): Finding | null {
  for (const v of cell.plain) {
    if (!v.target.text.trim() || !v.source.text.trim()) continue;
    const s = edge(v.source);
    const t = edge(v.target);
    if (s.ws === t.ws) continue;
    // Chinese and Japanese put no space between words, nor after their full-width marks (`名前：`).
    if (cell.targetInfo.cjk && t.ws === '' && /^ +$/.test(s.ws)) continue;
    return {
      message: `${where} whitespace differs${v.label}: the source has ${show(s.ws)}, the translation ${show(t.ws)}`,
      spans: t.ws ? [rawSpan(v.target, t.from, t.from + t.ws.length)] : undefined,
    };
  }
  return null;
}

const leading = (p: Plain) => ({ ws: /^\s*/.exec(p.text)![0], from: 0 });
const trailing = (p: Plain) => {
  const ws = /\s*$/.exec(p.text)![0];
  return { ws, from: p.text.length - ws.length };
};

export const leadingWhitespace = define({
  id: 'leading-whitespace',
  description: 'The translation starts with the same whitespace as its source (spaces, tabs, newlines).',
  severity: 'warning',
  category: 'whitespace',
  field: 'target',
  languages: 'All languages; Chinese and Japanese may drop a space the source has at its ends.',
  trips: [
    { source: 'Save', target: ' Speichern' },
    { source: '\nUsage: tool', target: 'Aufruf: tool' },
  ],
  passes: [{ source: '  Indented', target: '  Eingerückt' }],
  run: (cell) => edges(cell, leading, 'leading'),
});

export const trailingWhitespace = define({
  id: 'trailing-whitespace',
  description: 'The translation ends with the same whitespace as its source (a trailing space is often a lost word).',
  severity: 'warning',
  category: 'whitespace',
  field: 'target',
  languages: 'All languages; Chinese and Japanese may drop a space the source has at its ends.',
  trips: [
    { source: 'Save', target: 'Speichern ' },
    { source: 'Name: ', target: 'Name:' },
  ],
  passes: [{ source: 'Done\n', target: 'Fertig\n' }],
  run: (cell) => edges(cell, trailing, 'trailing'),
});

const DOUBLE = /\S( {2,}|\u00a0{2,})(?=\S)/g;

export const doubleSpace = define({
  id: 'double-space',
  description: 'No run of two or more spaces between words where the source has none.',
  severity: 'warning',
  category: 'whitespace',
  field: 'target',
  languages: 'All languages.',
  trips: [{ source: 'Open the file', target: 'Datei  öffnen' }],
  passes: [
    { source: 'Name:  value', target: 'Name:  Wert' },
    { source: 'Open the file', target: 'Datei öffnen' },
  ],
  run: (cell): Finding | null => {
    for (const v of cell.plain) {
      if (count(v.source.text, DOUBLE)) continue;
      const spans = [...v.target.text.matchAll(DOUBLE)].map((m) =>
        rawSpan(v.target, m.index + 1, m.index + m[0].length),
      );
      if (spans.length) return { message: `double space${v.label}`, spans };
    }
    return null;
  },
});

export const newlineCount = define({
  id: 'newline-count',
  description: 'The translation has as many line breaks as its source.',
  severity: 'warning',
  category: 'whitespace',
  field: 'target',
  languages: 'All languages.',
  trips: [{ source: 'First line\nSecond line', target: 'Erste Zeile, zweite Zeile' }],
  passes: [{ source: 'First line\nSecond line', target: 'Erste Zeile\nZweite Zeile' }],
  run: (cell): Finding | null => {
    for (const v of cell.plain) {
      const s = count(v.source.text, /\n/g);
      const t = count(v.target.text, /\n/g);
      if (s !== t) return { message: `${t} line break${t === 1 ? '' : 's'}${v.label}; the source has ${s}` };
    }
    return null;
  },
});
