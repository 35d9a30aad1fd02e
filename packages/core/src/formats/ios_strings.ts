// Old-style Apple `.strings`: `"key" = "value";` pairs with `/* */` and `//` comments, one language per file.
// Escapes follow Foundation's property-list reader: `\"` `\\` `\n` `\t` `\r`, `\U1234`/`\u1234`, octal `\101`, and a
// backslash before anything else (a newline included) stands for that character, so a backslash-newline inside a
// key or a value continues it onto the next line with the newline kept. A repeated key: the last one wins.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import {
  dict,
  FormatError,
  own,
  type Catalog,
  type CatalogEntry,
  type FormatModule,
  type RenderOptions,
} from '../catalog.js';
import { APPLE, orderOf } from '../printf.js';
import { appleMessage, type AppleMessage } from './apple.js';
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

/**
 * Each entry of `lang` as Apple writes it (packages/core/src/formats/apple.ts): printf numbered by the source's argument
 * order, a plural as its forms. A value that is not ICU (a file's own `%1$s` text) is written as it is.
 */
function* appleEntries(catalog: Catalog, opts: RenderOptions): Generator<{ entry: CatalogEntry; msg: AppleMessage }> {
  const lang = opts.languages[0] ?? opts.baseLanguage;
  for (const entry of catalog.entries) {
    const v = valueFor(entry, lang);
    if (!v) continue;
    const warn = (reason: string) => opts.warn?.({ key: entry.fileKey, lang, reason });
    const icu = icuText(v);
    const order = [...orderOf(entry.source ?? v)];
    const msg = appleMessage(icu, { order, lang, positional: true, warn }) ?? { kind: 'text', text: icu };
    yield { entry, msg };
  }
}

// A plural is written in .strings as its `other` form, so `NSLocalizedString` without the .stringsdict (which
// Foundation prefers for the same key) still shows a sentence; the .stringsdict carries every form.
function renderStrings(catalog: Catalog, opts: RenderOptions): string {
  const blocks: string[] = [];
  for (const { entry, msg } of appleEntries(catalog, opts)) {
    const comment = entry.comment ? `/* ${entry.comment.replace(/\*\//g, '* /')} */\n` : '';
    const text = msg.kind === 'text' ? msg.text : (msg.forms.other ?? '');
    blocks.push(`${comment}"${escape(entry.fileKey)}" = "${escape(text)}";\n`);
  }
  return blocks.join('\n');
}

const xml = (s: string) => s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);

// Apple's plural rule keys in the order Xcode lists them.
const RULE_ORDER = ['zero', 'one', 'two', 'few', 'many', 'other'];

/**
 * The `.stringsdict` of `opts.languages[0]` (the companion of renderStrings' file, same directory): one entry per
 * plural message, as Xcode writes it (XML property list 1.0, tab-indented). The format key is the plural variable
 * alone (`%#@count@`, or `%2$#@count@` when the count is not the first argument): hoisting put the whole sentence
 * in every form. Foundation picks the form by the language's plural rules, with `zero` for 0 in every language.
 */
export function renderStringsdict(catalog: Catalog, opts: RenderOptions): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
  ];
  for (const { entry, msg } of appleEntries(catalog, opts)) {
    if (msg.kind !== 'plural') continue;
    // The variable is a dictionary key beside NSStringLocalizedFormatKey: a message argument of that name is renamed.
    const variable = msg.arg === 'NSStringLocalizedFormatKey' ? `${msg.arg}_` : msg.arg;
    lines.push(
      `\t<key>${xml(entry.fileKey)}</key>`,
      '\t<dict>',
      '\t\t<key>NSStringLocalizedFormatKey</key>',
      `\t\t<string>%${msg.argNum > 1 ? `${msg.argNum}$` : ''}#@${xml(variable)}@</string>`,
      `\t\t<key>${xml(variable)}</key>`,
      '\t\t<dict>',
      '\t\t\t<key>NSStringFormatSpecTypeKey</key>',
      '\t\t\t<string>NSStringPluralRuleType</string>',
      '\t\t\t<key>NSStringFormatValueTypeKey</key>',
      `\t\t\t<string>${APPLE.number}</string>`,
    );
    for (const cat of RULE_ORDER) {
      const form = own(msg.forms, cat);
      if (form !== undefined) lines.push(`\t\t\t<key>${cat}</key>`, `\t\t\t<string>${xml(form)}</string>`);
    }
    lines.push('\t\t</dict>', '\t</dict>');
  }
  lines.push('</dict>', '</plist>', '');
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// Reading a `.stringsdict` back (the import route, spec `importTranslations`): the plurals its `.strings` holds as
// their `other` form only.

type PlistNode = Record<string, unknown>;

const plistParser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: true,
  processEntities: false,
  trimValues: false,
  parseTagValue: false,
});

const plistTag = (n: PlistNode) => Object.keys(n).find((k) => k !== ':@') ?? '';
const plistChildren = (n: PlistNode): PlistNode[] => {
  const c = n[plistTag(n)];
  return Array.isArray(c) ? (c as PlistNode[]) : [];
};
const plistText = (n: PlistNode) =>
  plistChildren(n)
    .map((c) => (typeof c['#text'] === 'string' ? c['#text'] : ''))
    .join('')
    .replace(/&(lt|gt|amp|quot|apos);/g, (_m, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" })[e]!);

/** A plist `<dict>` as its keys and value nodes, in order (elements only; whitespace and comments skipped). */
function plistDict(node: PlistNode): Array<[string, PlistNode]> {
  const items = plistChildren(node).filter((c) => !['#text', '#comment'].includes(plistTag(c)));
  const out: Array<[string, PlistNode]> = [];
  for (let i = 0; i + 1 < items.length; i += 2) {
    if (plistTag(items[i]) !== 'key') throw invalid('a .stringsdict <dict> holds a value without its <key>');
    out.push([plistText(items[i]), items[i + 1]]);
  }
  return out;
}

/** Whether `text` is a `.stringsdict` (an XML property list of plural rules). */
export const isStringsdict = (text: string) => /<plist\b/.test(text) && text.includes('NSStringLocalizedFormatKey');

/**
 * A `.stringsdict`'s plural messages: one entry per key whose format key holds one plural variable (text around it,
 * as Xcode allows, goes into every form); forms keep the file's printf, which the import reads back as ICU.
 */
export function parseStringsdict(text: string): Catalog {
  if (/<!ENTITY/i.test(text)) throw invalid('a .stringsdict has no entity declarations');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw invalid(`invalid XML: ${valid.err.msg} on line ${valid.err.line}`);
  const doc = plistParser.parse(text) as PlistNode[];
  const plist = doc.find((n) => plistTag(n) === 'plist');
  const root = plist && plistChildren(plist).find((n) => plistTag(n) === 'dict');
  if (!root) throw new FormatError('format_mismatch', 'a .stringsdict is a property list with a <dict> root');
  const entries: CatalogEntry[] = [];
  for (const [key, node] of plistDict(root)) {
    if (plistTag(node) !== 'dict') continue;
    const fields = new Map(plistDict(node));
    const formatKey = fields.get('NSStringLocalizedFormatKey');
    const variables = formatKey ? [...plistText(formatKey).matchAll(/%(?:\d+\$)?#@([^@]+)@/g)] : [];
    const entry: CatalogEntry = { fileKey: key, values: dict() };
    entries.push(entry);
    // Two plural variables in one message have no single ICU plural: the entry stays without a value.
    if (variables.length !== 1) continue;
    const [whole, name] = variables[0];
    const [before, after] = plistText(formatKey!).split(whole);
    const rule = fields.get(name);
    if (!rule || plistTag(rule) !== 'dict') continue;
    const forms = dict<string>();
    for (const [cat, v] of plistDict(rule))
      if (!cat.startsWith('NSString') && plistTag(v) === 'string') forms[cat] = `${before}${plistText(v)}${after}`;
    if (Object.hasOwn(forms, 'other')) entry.values[UNKNOWN_LANGUAGE] = { kind: 'plural', forms, arg: name };
  }
  return { format: 'ios_strings', sourceLanguage: null, language: null, entries };
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
