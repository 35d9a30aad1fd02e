// A linear scan of a markdown text for the shapes whose parse costs far more than their length (rules.ts,
// MAX_LINE_NESTING and the limits after it), run before any parse: the common attack is refused for the price of
// reading the text once, without a parser thread. What it misses is still bounded by the parse's depth check and
// deadline (parse.ts, parse-pool.ts). HTML and plain text have no pre-scan: parse5's cost grows with the text, and
// their depth is checked on the tree.
import { MAX_INDENT_COLUMNS, MAX_LINE_NESTING, MAX_PARAGRAPH_DELIMITERS } from './rules.js';
import type { DocFormat } from './blocks.js';

// Emphasis, strikethrough and code delimiters count by the run (`**` is one); brackets one by one.
const RUNS = new Set(['*', '_', '~', '`']);
// A GFM table's delimiter row (`| --- | :-: |`): from there on, each line is a row with its own inline content.
const TABLE_DELIMITER_ROW = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;

/** Why the text is refused before its parse, or null. */
export function prescan(format: DocFormat, text: string): string | null {
  if (format !== 'markdown') return null;
  let delimiters = 0;
  let inTable = false;
  let lineNo = 0;
  for (let pos = 0; pos <= text.length; lineNo++) {
    const nl = text.indexOf('\n', pos);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(pos, end);
    pos = end + 1;
    if (!line.trim()) {
      delimiters = 0;
      inTable = false;
      continue;
    }
    const { indent, markers } = lineStart(line);
    if (indent > MAX_INDENT_COLUMNS)
      return `line ${lineNo + 1} is indented ${indent} columns (at most ${MAX_INDENT_COLUMNS})`;
    if (markers > MAX_LINE_NESTING)
      return `line ${lineNo + 1} opens ${markers} nested lists or quotes (at most ${MAX_LINE_NESTING})`;
    if (line.includes('-') && line.includes('|') && TABLE_DELIMITER_ROW.test(line)) inTable = true;
    if (inTable) delimiters = 0;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (c === '\\') i++;
      else if (c === '[' || c === ']' || (RUNS.has(c) && line[i - 1] !== c)) delimiters++;
    }
    if (delimiters > MAX_PARAGRAPH_DELIMITERS)
      return `the paragraph ending on line ${lineNo + 1} holds more than ${MAX_PARAGRAPH_DELIMITERS} emphasis, code or link delimiters`;
  }
  return null;
}

/** The line's indentation in columns, and how many quote and list markers open it. */
function lineStart(line: string): { indent: number; markers: number } {
  let i = 0;
  let indent = 0;
  for (; i < line.length && (line[i] === ' ' || line[i] === '\t'); i++) indent += line[i] === '\t' ? 4 : 1;
  let markers = 0;
  for (;;) {
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (line[i] === '>') {
      i++;
    } else if ((line[i] === '-' || line[i] === '+' || line[i] === '*') && /[ \t]/.test(line[i + 1] ?? '')) {
      i += 2;
    } else {
      let j = i;
      while (j < line.length && j - i < 9 && line[j] >= '0' && line[j] <= '9') j++;
      if (j === i || (line[j] !== '.' && line[j] !== ')') || !/[ \t]/.test(line[j + 1] ?? '')) break;
      i = j + 2;
    }
    markers++;
  }
  return { indent, markers };
}
