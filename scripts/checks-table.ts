// The table of docs/guides/checks.md, written from the check catalogue (packages/core/src/checks/catalogue.ts) by
// `npm run generate`; test/unit/checks.test.ts fails when it is stale.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOGUE } from '../packages/core/src/checks/index.js';
import type { CheckExample } from '../packages/core/src/checks/index.js';

export const CHECKS_DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/guides/checks.md');
const START = '<!-- checks-table:start -->';
const END = '<!-- checks-table:end -->';

// Characters a reader would not see in the guide (spaces of other widths, zero-width and bidi controls) as escapes.
// eslint-disable-next-line no-control-regex -- control characters are what it shows
const UNSEEN = /[\u0000-\u001f\u007f-\u00a0\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202f\u2060-\u206f\ufeff\ufffd]/g;
const shown = (s: string) =>
  JSON.stringify(s)
    .slice(1, -1)
    .replace(/\\"/g, '"')
    .replace(UNSEEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A code span that holds any text: fenced with more backticks than it has in a row. */
function code(s: string): string {
  const longest = Math.max(0, ...(s.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  return longest ? `${fence} ${s} ${fence}` : `${fence}${s}${fence}`;
}

function example(e: CheckExample, field: string): string {
  const where = [e.targetLang && e.targetLang !== 'de' ? e.targetLang : '', e.formats?.join(', ') ?? ''].filter(
    Boolean,
  );
  const note = [
    ...where,
    e.maxLength ? `maxLength ${e.maxLength}` : '',
    e.comment ? `comment ${code(shown(e.comment))}` : '',
    e.terms?.length ? `term ${code(e.terms[0].source)} → ${code(e.terms[0].targets.join(' / '))}` : '',
  ].filter(Boolean);
  const cell =
    field === 'key'
      ? `key ${code(shown(e.key ?? 'k'))}`
      : field === 'source'
        ? code(shown(e.source))
        : `${code(shown(e.source))} → ${code(shown(e.target ?? ''))}`;
  return note.length ? `${cell} (${note.join('; ')})` : cell;
}

const ON: Record<string, string> = { target: 'translation', source: 'source', key: 'key name' };

/** The table in markdown, columns padded to one width as prettier lays tables out. */
function renderTable(): string {
  const rows = CATALOGUE.map((d) =>
    [
      code(d.id),
      d.severity,
      `${ON[d.field]}${d.formats ? ` (${d.formats.join(', ')})` : ''}`,
      d.description,
      d.languages,
      example(d.trips[0], d.field),
    ].map((cell) => cell.replace(/\|/g, '\\|')),
  );
  const header = ['check', 'severity', 'on', 'what it holds a text to', 'languages', 'reported, for example'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => [...r[i]].length)));
  const pad = (c: string, w: number) => c + ' '.repeat(w - [...c].length);
  const line = (cells: string[]) => `| ${cells.map((c, i) => pad(c, widths[i])).join(' | ')} |`;
  return [line(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)].join('\n');
}

/** `markdown` with what stands between its two markers replaced by the current table. */
export function withChecksTable(markdown: string): string {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${CHECKS_DOC}: no ${START} ... ${END} markers`);
  return `${markdown.slice(0, start + START.length)}\n\n${renderTable()}\n\n${markdown.slice(end)}`;
}
