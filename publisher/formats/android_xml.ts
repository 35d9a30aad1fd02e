// Android string resources (`res/values*/strings.xml`), one language per file (the language is in the folder name,
// which the file does not carry). `<string>` → text, `<plurals>` → plural value by `quantity`, `<string-array>` →
// kept in meta (no model value). The XML comment right before a resource is its comment.
//
// A value is the element's content as text: inline markup (`<b>`, `<xliff:g …>`) is kept as written, CDATA is
// unwrapped (meta.cdata remembers it), XML entities in text are decoded, and Android's escapes are resolved
// (`\'` `\"` `\n` `\t` `\\` `\@` `\?` `\uXXXX`; unescaped double quotes only delimit whitespace-preserving spans).
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import {
  dict,
  FormatError,
  type Catalog,
  type CatalogEntry,
  type CatalogValue,
  type FormatModule,
} from '../catalog.js';
import { ANDROID, icuToPrintf, orderOf } from '../printf.js';
import { hasExt, icuText, UNKNOWN_LANGUAGE, valueFor } from './json.js';

const invalid = (message: string) => new FormatError('invalid_argument', message);

type Node = Record<string, unknown> & { ':@'?: Record<string, string> };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  commentPropName: '#comment',
  // Resource contents are taken raw, so markup inside a value stays text instead of becoming XML nodes.
  stopNodes: ['resources.string', 'resources.plurals.item', 'resources.string-array.item'],
  processEntities: false,
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
});

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name[0] === '#') {
      const cp = name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(cp) && cp <= 0x10ffff ? String.fromCodePoint(cp) : whole;
    }
    // Own entities only: `&constructor;` is not an entity (on a plain object it found Object).
    return Object.hasOwn(ENTITIES, name) ? ENTITIES[name] : whole;
  });
}

/** Resolves Android's backslash escapes and drops the unescaped double quotes that only guard whitespace. */
function unescapeAndroid(s: string, quoted: { value: boolean }): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && i + 1 < s.length) {
      const e = s[++i];
      if (e === 'n') out += '\n';
      else if (e === 't') out += '\t';
      else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(i + 1, i + 5))) {
        out += String.fromCharCode(parseInt(s.slice(i + 1, i + 5), 16));
        i += 4;
      } else out += e;
    } else if (c === '"') {
      quoted.value = true;
    } else {
      out += c;
    }
  }
  return out;
}

const TAG = /<!\[CDATA\[[\s\S]*?\]\]>|<\/?[A-Za-z][^<>]*>/g;

/** Raw element content → value text, keeping markup, unwrapping CDATA. */
function contentToText(raw: string): { text: string; cdata: boolean; quoted: boolean } {
  let text = '';
  let cdata = false;
  const quoted = { value: false };
  let from = 0;
  for (const m of raw.matchAll(TAG)) {
    text += unescapeAndroid(decodeEntities(raw.slice(from, m.index)), quoted);
    if (m[0].startsWith('<![CDATA[')) {
      cdata = true;
      text += unescapeAndroid(m[0].slice(9, -3), quoted);
    } else {
      text += m[0];
    }
    from = m.index + m[0].length;
  }
  text += unescapeAndroid(decodeEntities(raw.slice(from)), quoted);
  return { text, cdata, quoted: quoted.value };
}

const childrenOf = (node: Node, tag: string) => (node[tag] as Node[] | undefined) ?? [];
const textOf = (nodes: Node[]) => nodes.map((n) => (typeof n['#text'] === 'string' ? n['#text'] : '')).join('');
const tagOf = (node: Node) => Object.keys(node).find((k) => k !== ':@');

function parseAndroid(text: string): Catalog {
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw invalid(`invalid XML: ${valid.err.msg} on line ${valid.err.line}`);
  const doc = parser.parse(text) as Node[];
  const resources = doc.find((n) => tagOf(n) === 'resources');
  if (!resources) throw new FormatError('format_mismatch', 'an Android resource file has a <resources> root');

  const lang = UNKNOWN_LANGUAGE;
  const entries: CatalogEntry[] = [];
  let comment: string | null = null;
  for (const node of childrenOf(resources, 'resources')) {
    const tag = tagOf(node);
    if (tag === '#comment') {
      comment = textOf(childrenOf(node, '#comment')).trim();
      continue;
    }
    if (tag === '#text') continue; // whitespace between resources
    if (tag !== 'string' && tag !== 'plurals' && tag !== 'string-array') {
      comment = null;
      continue;
    }
    const attrs = node[':@'] ?? {};
    const name = attrs.name;
    if (!name) throw invalid(`<${tag}> without a name attribute`);
    const entry: CatalogEntry = { fileKey: name, values: dict() };
    if (comment) entry.comment = comment;
    comment = null;
    const meta: Record<string, unknown> = {};
    const extraAttrs = Object.fromEntries(Object.entries(attrs).filter(([k]) => k !== 'name' && k !== 'translatable'));
    if (attrs.translatable === 'false') meta.translatable = false;
    if (Object.keys(extraAttrs).length) meta.attributes = extraAttrs;

    if (tag === 'string') {
      const c = contentToText(textOf(childrenOf(node, 'string')));
      if (c.cdata) meta.cdata = true;
      if (c.quoted) meta.quoted = true;
      if (c.text !== '') entry.values[lang] = { kind: 'text', text: c.text };
    } else if (tag === 'plurals') {
      // Quantities are the file's names: a dict keeps `quantity="__proto__"` as data.
      const forms = dict<string>();
      for (const item of childrenOf(node, 'plurals')) {
        if (tagOf(item) !== 'item') continue;
        const q = item[':@']?.quantity;
        if (!q) throw invalid(`${name}: <item> without a quantity`);
        const c = contentToText(textOf(childrenOf(item, 'item')));
        if (c.cdata) meta.cdata = true;
        forms[q] = c.text;
      }
      meta.plurals = true;
      if (Object.keys(forms).length) entry.values[lang] = { kind: 'plural', forms };
    } else {
      meta.stringArray = childrenOf(node, 'string-array')
        .filter((item) => tagOf(item) === 'item')
        .map((item) => contentToText(textOf(childrenOf(item, 'item'))).text);
    }
    if (Object.keys(meta).length) entry.meta = meta;
    entries.push(entry);
  }
  // Namespace declarations (xliff, tools, moz, ...) that the resources' attributes and markup rely on.
  const rootAttributes = resources[':@'];
  const meta = rootAttributes && Object.keys(rootAttributes).length ? { rootAttributes } : undefined;
  return { format: 'android_xml', sourceLanguage: null, language: null, entries, ...(meta && { meta }) };
}

// ---------------------------------------------------------------------------------------------------------------
// Render

const escapeXmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string) => escapeXmlText(s).replace(/"/g, '&quot;');

/** Android escaping of plain text: backslash, quotes, newlines, tabs, and a leading `@` or `?` (resource references). */
function escapeAndroid(s: string, first: boolean, layout = true): string {
  let out = s.replace(
    layout ? /[\\'"\n\t]/g : /[\\'"]/g,
    (c) => ({ '\\': '\\\\', "'": "\\'", '"': '\\"', '\n': '\\n', '\t': '\\t' })[c]!,
  );
  if (first && (out.startsWith('@') || out.startsWith('?'))) out = `\\${out}`;
  return out;
}

const MARKUP = /<\/?[A-Za-z][\w:.-]*(?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*\/?>/g;

/**
 * The markup of a value that can be written as XML elements: self-closing tags, and opening/closing tags that pair up
 * properly nested. A value from another format may hold tag-like text that is not XML (`Press <Enter>`, HTML's `<br>`,
 * crossed tags); written raw, it made the whole file malformed, so such tags are left to be escaped as text.
 */
function wellFormedMarkup(text: string): RegExpMatchArray[] {
  const tags = [...text.matchAll(MARKUP)];
  const keep = new Set<number>();
  const open: Array<{ name: string; at: number }> = [];
  tags.forEach((m, i) => {
    const name = /^<\/?([^\s/>]+)/.exec(m[0])![1];
    if (m[0].endsWith('/>')) keep.add(i);
    else if (!m[0].startsWith('</')) open.push({ name, at: i });
    else {
      const p = open.map((o) => o.name).lastIndexOf(name);
      if (p === -1) return;
      // Tags opened inside the pair and never closed stay text.
      keep.add(open[p].at).add(i);
      open.length = p;
    }
  });
  return tags.filter((_, i) => keep.has(i));
}

// Attribute values of kept markup are written as the value holds them; an `&` that does not start one of XML's own
// entity references (a URL's `?a=1&b=2`, HTML's `&nbsp;`) or a `<` inside a quoted value would not parse.
const escapeMarkup = (tag: string) =>
  tag[0] +
  tag
    .slice(1)
    .replace(/&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/g, '&amp;')
    .replace(/</g, '&lt;');

// aapt trims a value and collapses each run of spaces to one, except inside unescaped double quotes; a `\u0020`
// escape is resolved after that, so it keeps a leading, trailing or repeated space wherever markup stands.
const escapeSpaces = (run: string) => '\\u0020'.repeat(run.length);
function keepSpaces(s: string, first: boolean, last: boolean): string {
  const out = s.replace(first ? /^ +| {2,}/g : / {2,}/g, escapeSpaces);
  return last ? out.replace(/ +$/, escapeSpaces) : out;
}

/**
 * Value text → element content: well-formed markup kept, the text around it escaped for XML and for Android.
 * `quoted`: the file wrapped the value in double quotes (kept for a value without markup).
 */
function textToContent(text: string, cdata: boolean, quoted = false): string {
  // Inside CDATA, newlines and tabs are layout the file had: written as they are.
  if (cdata) return `<![CDATA[${escapeAndroid(text, true, false).replace(/\]\]>/g, ']]]]><![CDATA[>')}]]>`;
  const markup = wellFormedMarkup(text);
  if (quoted && !markup.length) return `"${escapeXmlText(escapeAndroid(text, false))}"`;
  let out = '';
  let from = 0;
  for (const m of markup) {
    out += escapeXmlText(keepSpaces(escapeAndroid(text.slice(from, m.index), from === 0), from === 0, false));
    out += escapeMarkup(m[0]);
    from = m.index! + m[0].length;
  }
  return out + escapeXmlText(keepSpaces(escapeAndroid(text.slice(from), from === 0), from === 0, true));
}

const commentXml = (c: string) => `<!-- ${c.replace(/--/g, '- -')} -->`;

function renderAndroid(catalog: Catalog, opts: { languages: string[]; baseLanguage: string }): string {
  const lang = opts.languages[0] ?? opts.baseLanguage;
  const lines: string[] = [];
  for (const entry of catalog.entries) {
    const m = entry.meta ?? {};
    const v: CatalogValue | undefined = valueFor(entry, lang);
    const stringArray = Array.isArray(m.stringArray) ? (m.stringArray as string[]) : null;
    if (!v && !stringArray) continue;
    const attrs = [`name="${escapeAttr(entry.fileKey)}"`];
    if (m.translatable === false) attrs.push('translatable="false"');
    for (const [k, a] of Object.entries((m.attributes as Record<string, string> | undefined) ?? {}))
      attrs.push(`${k}="${escapeAttr(a)}"`);
    if (entry.comment) lines.push(`    ${commentXml(entry.comment)}`);
    const cdata = m.cdata === true;
    const order = orderOf(entry.source ?? v);
    if (v?.kind === 'plural') {
      lines.push(`    <plurals ${attrs.join(' ')}>`);
      for (const [q, f] of Object.entries(v.forms)) {
        if (q.startsWith('=')) continue; // Android quantities are CLDR categories only
        lines.push(
          `        <item quantity="${q}">${textToContent(icuToPrintf(f, order, ANDROID, v.arg ?? 'count'), cdata, m.quoted === true)}</item>`,
        );
      }
      lines.push('    </plurals>');
    } else if (v) {
      lines.push(
        `    <string ${attrs.join(' ')}>${textToContent(icuToPrintf(icuText(v), order, ANDROID), cdata, m.quoted === true)}</string>`,
      );
    } else if (stringArray) {
      lines.push(`    <string-array ${attrs.join(' ')}>`);
      for (const item of stringArray) lines.push(`        <item>${textToContent(item, false)}</item>`);
      lines.push('    </string-array>');
    }
  }
  const rootAttrs: Record<string, string> = {
    ...((catalog.meta?.rootAttributes as Record<string, string> | undefined) ?? {}),
  };
  if (lines.some((l) => l.includes('<xliff:')) && !rootAttrs['xmlns:xliff'])
    rootAttrs['xmlns:xliff'] = 'urn:oasis:names:tc:xliff:document:1.2';
  const ns = Object.entries(rootAttrs)
    .map(([k, a]) => ` ${k}="${escapeAttr(a)}"`)
    .join('');
  return `<?xml version="1.0" encoding="utf-8"?>\n<resources${ns}>\n${lines.join('\n')}${lines.length ? '\n' : ''}</resources>\n`;
}

export const format: FormatModule = {
  id: 'android_xml',
  detect(text, fileName) {
    const ext = hasExt(fileName, '.xml');
    if (/^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<resources[\s>/]/.test(text.replace(/^\ufeff/, '')))
      return 0.95 + (ext ? 0.05 : 0);
    if (/<resources[\s>/]/.test(text) && /<(string|plurals)\s/.test(text)) return 0.8;
    return ext && text.trimStart().startsWith('<') ? 0.3 : 0;
  },
  parse: parseAndroid,
  render: renderAndroid,
};
