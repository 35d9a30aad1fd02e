// Android string resources (`res/values*/strings.xml`), one language per file (the language is in the folder name,
// which the file does not carry). `<string>` → text, `<plurals>` → plural value by `quantity`, `<string-array>` →
// kept in meta (no model value). The XML comment right before a resource is its comment.
//
// A value is the element's content as text: inline markup (`<b>`, `<xliff:g …>`) is kept as written, CDATA is
// unwrapped (meta.cdata remembers it), XML entities in text are decoded, and Android's escapes are resolved
// (`\'` `\"` `\n` `\t` `\\` `\@` `\?` `\uXXXX`; unescaped double quotes only delimit whitespace-preserving spans).
//
// Rendering reads each value as ICU (packages/core/src/convert.ts) and writes what Android's runtime can show: a message
// whose source is a cardinal plural (a plural inside a sentence hoisted into whole sentences) is a `<plurals>` with
// the language's CLDR quantities, anything else a `<string>`; arguments are positional printf specifiers numbered by
// the source (`%1$s`, a count `%1$d`); ICU quoting is resolved and the text escaped for aapt2. What Android cannot
// express is written as a documented fallback and reported through `warn` (README "What each file can express").
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import {
  dict,
  FormatError,
  type Catalog,
  type CatalogEntry,
  type CatalogValue,
  type FormatModule,
  type RenderOptions,
} from '../catalog.js';
import {
  collapse,
  describe,
  exactValue,
  flatten,
  simpleParts,
  leaves,
  splitOptions,
  type Flat,
  type Part,
  type Warn,
} from '../convert.js';
import { isExactKey, simpleArguments } from '../icu.js';
import { bcp47 } from '../languages.js';
import { ANDROID, argOrder, leafToPrintf } from '../printf.js';
import { hasExt, icuText, UNKNOWN_LANGUAGE, valueFor } from './json.js';
import { decodeEntities } from './xml-entities.js';

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

/**
 * A key as an Android resource name: aapt2 takes Java identifier characters (and `.`, which the R class turns into
 * `_` anyway), and refuses a leading digit. Keys are written with `[A-Za-z0-9_]` only, every other character as `_`,
 * and `_` before a leading digit, so the name a file holds is the name the app's code uses. packages/core/src/collisions.ts
 * refuses the keys this maps onto one name.
 */
export function resourceName(key: string): string {
  const name = key.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

const QUANTITIES = ['zero', 'one', 'two', 'few', 'many', 'other'];

/** The CLDR plural categories Android's runtime picks from for `lang`, or null for a language Intl does not know. */
function categoriesOf(lang: string): string[] | null {
  try {
    const tag = bcp47(lang);
    if (!Intl.PluralRules.supportedLocalesOf([tag]).length) return null;
    return new Intl.PluralRules(tag).resolvedOptions().pluralCategories;
  } catch {
    return null;
  }
}

// Counts that tell CLDR's integer rules apart: every rule is periodic in 100 or 1000, except French-style `many`
// for millions.
const SAMPLES = [...Array.from({ length: 1100 }, (_, i) => i), 1_000_000, 2_000_000, 1_000_001];
const exactCategories = new Map<string, Map<number, string>>();

/**
 * For `lang`, the integers that are alone in their plural category (`zero` is 0 alone in Arabic, `one` is 1 alone in
 * English): an ICU `=N` on such a number is exactly that category's item on Android.
 */
function exactCategory(lang: string, n: number): string | null {
  const tag = bcp47(lang);
  let alone = exactCategories.get(tag);
  if (!alone) {
    const rules = new Intl.PluralRules(tag);
    const members = new Map<string, number[]>();
    for (const i of SAMPLES) {
      const c = rules.select(i);
      const m = members.get(c);
      if (m) m.push(i);
      else members.set(c, [i]);
    }
    alone = new Map([...members].filter(([, m]) => m.length === 1).map(([c, [i]]) => [i, c]));
    exactCategories.set(tag, alone);
  }
  return alone.get(n) ?? null;
}

type Selector = Exclude<Flat, { kind: 'leaf' }>;

/**
 * The tree Android can write: at most one cardinal plural, on top. A select and a selectordinal anywhere, and a
 * plural inside another, are written as their `other` branch (reported through `warn`).
 */
function androidTree(flat: Flat, warn: Warn): Flat {
  const top = collapse(flat, (n) => (n.kind === 'select' || n.ordinal ? describe(n) : null), warn);
  if (top.kind !== 'plural') return top;
  const options = dict<Flat>();
  for (const [k, v] of Object.entries(top.options))
    options[k] = collapse(v, (n) => `${describe(n)} inside plural {${top.name}}`, warn);
  return { ...top, options };
}

/** What the app passes for an argument: its value, or a string it formatted as a date, a time or a styled number. */
function slotKind(p: Exclude<Part, { type: 'text' }>): string {
  if (p.type === 'date' || p.type === 'time') return p.type;
  if (p.type === 'number' && p.style !== null && p.style !== 'integer') return 'number';
  return 'value';
}

/**
 * The printf arguments of a key, from its source so that every language numbers alike. Each argument the Android
 * form of the source uses (a collapsed select's argument is not one) takes one position, in the order the source
 * first names them; one the source uses in two ways (`{when, date}` and `{when, time}`) takes one position per way,
 * since the app formats each into its own string. `slot` names a part's position in `order`.
 */
function printfArguments(
  icu: string | null,
  flat: Flat | null,
): {
  order: string[];
  slot: (p: Exclude<Part, { type: 'text' }>) => string;
} {
  const kinds = new Map<string, string[]>();
  const seen = (name: string, kind: string) => {
    const k = kinds.get(name) ?? [];
    if (!k.includes(kind)) kinds.set(name, [...k, kind]);
  };
  if (flat) {
    const tree = androidTree(flat, () => undefined);
    if (tree.kind === 'plural') seen(tree.name, 'value');
    for (const parts of leaves(tree)) for (const p of parts) if (p.type !== 'text') seen(p.name, slotKind(p));
  }
  const slotName = (name: string, kind: string) => ((kinds.get(name)?.length ?? 0) > 1 ? `${name} (${kind})` : name);
  const order =
    icu === null || !flat ? [] : argOrder(icu).flatMap((n) => (kinds.get(n) ?? []).map((k) => slotName(n, k)));
  return { order, slot: (p) => slotName(p.name, slotKind(p)) };
}

const hasArguments = (tree: Flat) => leaves(tree).some((parts) => parts.some((p) => p.type !== 'text'));

/**
 * A plural's items as Android's runtime picks them: one per CLDR category of `lang` the message has. An exact match
 * `=N` becomes the item of a category that holds N alone in `lang` (Arabic `=0` → `zero`); any other has no
 * Android equivalent (English has no `zero`: the runtime never picks it for 0) and is left out, reported. An offset
 * is dropped, reported: the app passes the count minus the offset, which is what `#` showed.
 */
function pluralItems(tree: Selector & { kind: 'plural' }, lang: string, warn: Warn): Array<[string, Flat]> {
  const categories = categoriesOf(lang);
  const { categories: named, exact } = splitOptions(tree.options);
  const items = dict<Flat>();
  for (const c of named) {
    // A category the language lacks is one ICU never picks either; a name that is no category at all is reported.
    if (!QUANTITIES.includes(c)) warn(`plural {${tree.name}} ${c}: not a CLDR plural category; left out`);
    else if (!categories || categories.includes(c)) items[c] = tree.options[c];
  }
  if (tree.offset)
    warn(
      `plural {${tree.name}} offset:${tree.offset}: Android plurals have no offset; the app passes ${tree.name} − ${tree.offset} as the quantity and the argument`,
    );
  for (const key of exact) {
    const n = exactValue(key) - tree.offset;
    const c = categories && Number.isInteger(n) && n >= 0 ? exactCategory(lang, n) : null;
    if (c) items[c] = tree.options[key];
    else
      warn(
        `plural {${tree.name}} ${key}: Android plurals have no exact match and no ${lang} quantity holds ${exactValue(key)} alone; left out (the app tests ${exactValue(key)} itself)`,
      );
  }
  return QUANTITIES.filter((q) => q in items).map((q) => [q, items[q]]);
}

function renderAndroid(catalog: Catalog, opts: RenderOptions): string {
  const lang = opts.languages[0] ?? opts.baseLanguage;
  const lines: string[] = [];
  for (const entry of catalog.entries) {
    const m = entry.meta ?? {};
    const v: CatalogValue | undefined = valueFor(entry, lang);
    const stringArray = Array.isArray(m.stringArray) ? (m.stringArray as string[]) : null;
    if (!v && !stringArray) continue;
    const attrs = [`name="${escapeAttr(resourceName(entry.fileKey))}"`];
    if (m.translatable === false) attrs.push('translatable="false"');
    for (const [k, a] of Object.entries((m.attributes as Record<string, string> | undefined) ?? {}))
      attrs.push(`${k}="${escapeAttr(a)}"`);
    if (entry.comment) lines.push(`    ${commentXml(entry.comment)}`);
    const cdata = m.cdata === true;
    const quoted = m.quoted === true;
    // One report per reason and cell, however many branches carried it; the set only when there is one.
    let reasons: Set<string> | undefined;
    if (v)
      lines.push(
        ...renderValue(entry, v, lang, attrs.join(' '), { cdata, quoted }, (r) => (reasons ??= new Set()).add(r)),
      );
    else if (stringArray) {
      lines.push(`    <string-array ${attrs.join(' ')}>`);
      for (const item of stringArray) lines.push(`        <item>${textToContent(item, false)}</item>`);
      lines.push('    </string-array>');
    }
    if (reasons) for (const reason of reasons) opts.warn?.({ key: entry.fileKey, lang, reason });
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

/** One value as a `<string>` or a `<plurals>` (whichever the source is, so every language has the same resource). */
function renderValue(
  entry: CatalogEntry,
  v: CatalogValue,
  lang: string,
  attrs: string,
  style: { cdata: boolean; quoted: boolean },
  warn: Warn,
): string[] {
  const icu = icuText(v);
  const sourceIcu = entry.source ? icuText(entry.source) : icu;
  // Text and simple `{name}` arguments in both (most cells of a publish): no tree to build, nothing to report.
  const sourceArgs = v.kind === 'text' && entry.source?.kind !== 'plural' ? simpleArguments(sourceIcu) : null;
  const valueArgs = sourceArgs && simpleArguments(icu);
  if (sourceArgs && valueArgs) {
    const formatted = sourceArgs.length > 0 || valueArgs.length > 0;
    const text = formatted ? leafToPrintf(simpleParts(icu), sourceArgs, ANDROID, warn) : icu;
    return [`    <string ${attrs}>${textToContent(text, style.cdata, style.quoted)}</string>`];
  }
  const content = (text: string) => textToContent(text, style.cdata, style.quoted);
  const flat = flatten(icu);
  const sourceFlat = sourceIcu === icu ? flat : flatten(sourceIcu);
  const asPlurals = sourceFlat ? androidTree(sourceFlat, () => undefined).kind === 'plural' : v.kind === 'plural';
  if (!flat) {
    // Not ICU (a synced file's own text that ICU cannot read): written as the file had it.
    if (v.kind === 'text') return [`    <string ${attrs}>${content(v.text)}</string>`];
    const forms = Object.entries(v.forms).filter(([q]) => {
      if (!isExactKey(q)) return true;
      warn(`plural ${q}: Android plurals have no exact match; left out`);
      return false;
    });
    return [
      `    <plurals ${attrs}>`,
      ...forms.map(([q, f]) => `        <item quantity="${escapeAttr(q)}">${content(f)}</item>`),
      '    </plurals>',
    ];
  }
  let tree = androidTree(flat, warn);
  if (!asPlurals && tree.kind === 'plural') {
    warn(`${describe(tree)}: the source is not a plural; written as its \`other\` branch`);
    tree = collapse(
      tree,
      () => 'plural',
      () => undefined,
    );
  }
  const { order, slot } = printfArguments(sourceIcu, sourceFlat);
  // A message with no argument is not formatted by the app: its `%` stays as written (a synced file's `%1$s`). A
  // plural's count alone, which no form shows as `#`, is no argument either: forms such as `%d files` came from an
  // Android file and are written back as they were, not as `%%d files`.
  const count = sourceFlat?.kind === 'plural' ? sourceFlat.name : null;
  const formatted = order.some((n) => n !== count) || hasArguments(tree);
  const sentence = (f: Flat) => {
    const parts = f.kind === 'leaf' ? f.parts : [];
    return formatted
      ? leafToPrintf(
          parts.map((p) => (p.type === 'text' ? p : { ...p, name: slot(p) })),
          order,
          ANDROID,
          warn,
        )
      : parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
  };
  if (!asPlurals) return [`    <string ${attrs}>${content(sentence(tree))}</string>`];
  // A translation that is no plural (a language without plural forms, written as a sentence) is the `other` item.
  const items: Array<[string, Flat]> = tree.kind === 'plural' ? pluralItems(tree, lang, warn) : [['other', tree]];
  return [
    `    <plurals ${attrs}>`,
    ...items.map(([q, f]) => `        <item quantity="${q}">${content(sentence(f))}</item>`),
    '    </plurals>',
  ];
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

/**
 * A file this renderer wrote without the resources named `names` (with the comment written before each): the pull
 * leaves a string the base file marks `translatable="false"` to that file alone, though the project still holds it
 * (pushed before such strings were kept out of translation). Anything but the renderer's own layout is left as it is.
 */
export function withoutResources(xml: string, names: ReadonlySet<string>): string {
  if (!names.size) return xml;
  const resource =
    /^( {4}<!--(?:(?!-->)[^])*-->\n)?( {4}<string name="([A-Za-z0-9_]+)"[^>\n]*>[^\n]*<\/string>\n| {4}<(plurals|string-array) name="([A-Za-z0-9_]+)"[^>\n]*>\n(?: {8}[^\n]*\n)*? {4}<\/\4>\n)/gm;
  return xml.replace(resource, (whole, _comment, _res, name?: string, _tag?: string, blockName?: string) =>
    names.has(name ?? blockName ?? '') ? '' : whole,
  );
}
