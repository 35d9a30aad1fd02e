// The configuration table of docs/operations/configuration.md, written from the variables' declarations in
// server/infra/config.ts by `npm run generate`; test/contract/configuration.test.ts fails when it is stale.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { variableDocs, variables } from '../server/infra/config.js';

export const CONFIGURATION_DOC = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../docs/operations/configuration.md',
);
const START = '<!-- config-table:start -->';
const END = '<!-- config-table:end -->';

/** A default as the table shows it: the declared words, else the value a missing variable parses to. */
function shownDefault(schema: (typeof variables.shape)[keyof typeof variables.shape], words?: string): string {
  if (words !== undefined) return words;
  const parsed = schema.safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return 'none';
  if (typeof parsed.data === 'boolean') return parsed.data ? 'on' : 'off';
  return `\`${String(parsed.data)}\``;
}

/** The table in markdown, columns padded to one width as prettier lays tables out. */
function renderTable(): string {
  const rows = Object.entries(variables.shape).map(([name, schema]) => {
    const doc = variableDocs.get(schema);
    if (!doc) throw new Error(`${name} has no description in server/infra/config.ts`);
    return [`\`${name}\``, shownDefault(schema, doc.shownDefault), doc.description].map((cell) =>
      cell.replace(/\|/g, '\\|'),
    );
  });
  const header = ['variable', 'default', 'meaning'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)].join('\n');
}

/** `markdown` with what stands between its two markers replaced by the current table. */
export function withConfigTable(markdown: string): string {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${CONFIGURATION_DOC}: no ${START} ... ${END} markers`);
  return `${markdown.slice(0, start + START.length)}\n\n${renderTable()}\n\n${markdown.slice(end)}`;
}
