// A linear scan of a markdown text for the shapes whose parse costs far more than their length (rules.ts,
// MAX_LINE_NESTING and the limits after it), run before any parse: on the parser thread for a push (parse.ts), so
// the common attack is refused for the price of reading the text once; on the event loop for a run's units
// (runner.ts), which are at most a paragraph each. What it misses is still bounded by the parse's depth check and
// deadline (parse.ts, parse-pool.ts). HTML and plain text have no pre-scan: parse5's cost grows with the text, and
// their depth is checked on the tree.
import { MAX_INDENT_COLUMNS, MAX_LINE_NESTING, MAX_PARAGRAPH_DELIMITERS } from './rules.js';
import type { DocFormat } from './blocks.js';

/** Why the text is refused before its parse, or null. One pass over the text, no regular expression. */
export function prescan(format: DocFormat, text: string): string | null {
  if (format !== 'markdown') return null;
  let delimiters = 0;
  let inTable = false;
  let lineNo = 0;
  for (let pos = 0; pos <= text.length; lineNo++) {
    const nl = text.indexOf('\n', pos);
    const end = nl < 0 ? text.length : nl;
    const start = pos;
    pos = end + 1;
    const { indent, markers, blank } = lineStart(text, start, end);
    if (blank) {
      // A blank line ends the paragraph (and the table).
      delimiters = 0;
      inTable = false;
      continue;
    }
    if (indent > MAX_INDENT_COLUMNS)
      return `line ${lineNo + 1} is indented ${indent} columns (at most ${MAX_INDENT_COLUMNS})`;
    if (markers > MAX_LINE_NESTING)
      return `line ${lineNo + 1} opens ${markers} nested lists or quotes (at most ${MAX_LINE_NESTING})`;
    let dashes = false;
    let pipes = false;
    let onlyDelimiterRow = true;
    for (let i = start; i < end; i++) {
      const c = text[i];
      if (c === '-') dashes = true;
      else if (c === '|') pipes = true;
      else if (c !== ':' && c !== ' ' && c !== '\t' && c !== '\r') onlyDelimiterRow = false;
      if (c === '\\') i++;
      else if (c === '[' || c === ']') delimiters++;
      else if ((c === '*' || c === '_' || c === '~' || c === '`') && (i === start || text[i - 1] !== c)) delimiters++;
    }
    // A GFM table's delimiter row (`| --- | :-: |`): from there on, each line is a row with its own inline content.
    if (onlyDelimiterRow && dashes && pipes) inTable = true;
    if (inTable) delimiters = 0;
    if (delimiters > MAX_PARAGRAPH_DELIMITERS)
      return `the paragraph ending on line ${lineNo + 1} holds more than ${MAX_PARAGRAPH_DELIMITERS} emphasis, code or link delimiters`;
  }
  return null;
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t';

/** The line's indentation in columns, how many quote and list markers open it, and whether it is blank. */
function lineStart(text: string, start: number, end: number): { indent: number; markers: number; blank: boolean } {
  let i = start;
  let indent = 0;
  for (; i < end && isSpace(text[i]); i++) indent += text[i] === '\t' ? 4 : 1;
  let markers = 0;
  for (;;) {
    while (i < end && isSpace(text[i])) i++;
    if (i < end && text[i] === '>') {
      i++;
    } else if (i + 1 < end && (text[i] === '-' || text[i] === '+' || text[i] === '*') && isSpace(text[i + 1])) {
      i += 2;
    } else {
      let j = i;
      while (j < end && j - i < 9 && text[j] >= '0' && text[j] <= '9') j++;
      if (j === i || j + 1 >= end || (text[j] !== '.' && text[j] !== ')') || !isSpace(text[j + 1])) break;
      i = j + 2;
    }
    markers++;
  }
  // A line of only whitespace (or `\r`) is blank.
  const blank = markers === 0 && (i === end || (text[i] === '\r' && i + 1 === end));
  return { indent, markers, blank };
}
