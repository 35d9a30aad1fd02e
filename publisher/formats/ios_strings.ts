// Old-style Apple `.strings`: `"key" = "value";` pairs with `/* */` and `//` comments, one language per file.
// Escapes follow Foundation's property-list reader: `\"` `\\` `\n` `\t` `\r`, `\U1234`/`\u1234`, octal `\101`, and a
// backslash before anything else (a newline included) stands for that character, so a backslash-newline inside a
// key or a value continues it onto the next line with the newline kept. A repeated key: the last one wins.
import { FormatError, type Catalog, type CatalogEntry, type FormatModule } from '../catalog.js';
import { APPLE, icuToPrintf, orderOf } from '../printf.js';
import { hasExt, icuText, UNKNOWN_LANGUAGE, valueFor } from './json.js';

const invalid = (message: string) => new FormatError('invalid_argument', message);

const UNQUOTED = /[A-Za-z0-9_$+/:.-]/;

function parseStrings(input: string): Catalog {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const len = text.length;
  let pos = 0;
  const lineOf = (at: number) => text.slice(0, at).split('\n').length;
  const fail = (what: string, at = pos): never => {
    throw invalid(`invalid .strings file: ${what} on line ${lineOf(at)}`);
  };

  let comment: string | null = null;
  /** Skips whitespace and comments; the last comment before an entry is that entry's comment. */
  const skip = () => {
    for (;;) {
      while (pos < len && /\s/.test(text[pos])) pos++;
      if (text.startsWith('/*', pos)) {
        const end = text.indexOf('*/', pos + 2);
        if (end === -1) fail('unterminated comment');
        comment = text.slice(pos + 2, end).trim();
        pos = end + 2;
      } else if (text.startsWith('//', pos)) {
        // Consecutive `//` lines are one comment.
        const lines: string[] = [];
        for (;;) {
          let end = text.indexOf('\n', pos);
          if (end === -1) end = len;
          lines.push(text.slice(pos + 2, end).trim());
          const next = /^[ \t]*\r?\n?[ \t]*/.exec(text.slice(end, end + 200))![0].length + end;
          if (!text.startsWith('//', next)) {
            pos = end;
            break;
          }
          pos = next;
        }
        comment = lines.join('\n');
      } else {
        return;
      }
    }
  };

  const readQuoted = (): string => {
    const start = pos;
    pos++;
    let out = '';
    for (;;) {
      if (pos >= len) fail('unterminated string', start);
      const c = text[pos];
      if (c === '"') {
        pos++;
        return out;
      }
      if (c !== '\\') {
        out += c;
        pos++;
        continue;
      }
      const e = text[pos + 1];
      if (e === undefined) fail('unterminated string', start);
      pos += 2;
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'a':
          out += '\x07';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'v':
          out += '\v';
          break;
        case 'U':
        case 'u': {
          const hex = /^[0-9a-fA-F]{1,4}/.exec(text.slice(pos, pos + 4))?.[0];
          if (!hex) fail('bad \\U escape', pos - 2);
          out += String.fromCharCode(parseInt(hex!, 16));
          pos += hex!.length;
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            const oct = /^[0-7]{1,3}/.exec(text.slice(pos - 1, pos + 2))![0];
            out += String.fromCharCode(parseInt(oct, 8));
            pos += oct.length - 1;
          } else {
            out += e;
          }
      }
    }
  };

  const readToken = (what: string): string => {
    if (text[pos] === '"') return readQuoted();
    const start = pos;
    while (pos < len && UNQUOTED.test(text[pos])) pos++;
    if (pos === start)
      fail(
        pos >= len
          ? `unexpected end of file, expected a ${what}`
          : `expected a ${what}, found ${JSON.stringify(text[pos])}`,
      );
    return text.slice(start, pos);
  };

  const entries: CatalogEntry[] = [];
  const index = new Map<string, number>();
  for (;;) {
    comment = null;
    skip();
    if (pos >= len) break;
    const entryComment: string | null = comment;
    const key = readToken('key');
    skip();
    let value = key;
    if (text[pos] === '=') {
      pos++;
      skip();
      value = readToken('value');
      skip();
    }
    if (text[pos] !== ';') fail(`expected ";" after ${JSON.stringify(key)}`);
    pos++;
    const entry: CatalogEntry = { fileKey: key, values: { [UNKNOWN_LANGUAGE]: { kind: 'text', text: value } } };
    if (entryComment) entry.comment = entryComment;
    const at = index.get(key);
    if (at === undefined) {
      index.set(key, entries.length);
      entries.push(entry);
    } else {
      entries[at] = entry;
    }
  }
  return { format: 'ios_strings', sourceLanguage: null, language: null, entries };
}

const escape = (s: string) =>
  s.replace(/[\\"\n\t\r]/g, (c) => ({ '\\': '\\\\', '"': '\\"', '\n': '\\n', '\t': '\\t', '\r': '\\r' })[c]!);

function renderStrings(catalog: Catalog, opts: { languages: string[]; baseLanguage: string }): string {
  const lang = opts.languages[0] ?? opts.baseLanguage;
  const blocks: string[] = [];
  for (const entry of catalog.entries) {
    const v = valueFor(entry, lang);
    if (!v) continue;
    const comment = entry.comment ? `/* ${entry.comment.replace(/\*\//g, '* /')} */\n` : '';
    blocks.push(
      `${comment}"${escape(entry.fileKey)}" = "${escape(icuToPrintf(icuText(v), orderOf(entry.source ?? v), APPLE))}";\n`,
    );
  }
  return blocks.join('\n');
}

export const format: FormatModule = {
  id: 'ios_strings',
  detect(text, fileName) {
    const ext = hasExt(fileName, '.strings');
    if (/^\s*"(?:[^"\\\n]|\\.)*"\s*=\s*"/m.test(text) && !/^\s*[{[]/.test(text)) return 0.85 + (ext ? 0.15 : 0);
    return ext ? 0.4 : 0;
  },
  parse: parseStrings,
  render: renderStrings,
};
