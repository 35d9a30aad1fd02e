// XLIFF 1.2 and 2.0: the bilingual exchange files translation agencies and CAT tools (Trados, memoQ, Phrase, Okapi,
// translate-toolkit) read and write. One file holds one language pair: each key is a unit whose source is the base
// language's text and whose target is the language's value (none when the cell is missing). Messages travel as ICU
// text, plurals included (`{count, plural, one {# file} other {# files}}`), escaped as XML text and never turned into
// inline codes, so a tool shows and returns exactly the string the service holds. The key's ctx and comment are notes;
// the target's state follows the cell's status (docs/guides/formats.md, "XLIFF"). Parsing takes both versions back in
// (the import route, spec `importTranslations`), with the state of each target and the key as the unit names it.
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
import { hasExt, icuText, UNKNOWN_LANGUAGE, valueFor } from './json.js';
import { bcp47, languageKey } from '../languages.js';
import { decodeEntities } from './xml-entities.js';

const invalid = (message: string) => new FormatError('invalid_argument', message);

/**
 * The snapshot's cell status (packages/core/src/snapshot.ts) a value carries into an XLIFF render, as each version
 * names it: 1.2 `<target state>` (with `approved="yes"` on the unit, which translate-toolkit reads as not fuzzy) and
 * 2.0 `<segment state>`. `fallback` is a source text baked in for a missing cell: written as no target at all.
 */
const STATE_12: Record<string, string> = { translated: 'translated', reviewed: 'signed-off', approved: 'final' };
const STATE_20: Record<string, string> = { translated: 'translated', reviewed: 'reviewed', approved: 'final' };

/**
 * Target states that say no one translated the unit yet (1.2 `new`, `needs-translation`; 2.0 `initial`): such a
 * target is often a copy of the source a tool put there, and is not read as a translation.
 */
const UNTRANSLATED = new Set(['new', 'needs-translation', 'initial']);

/** The note category (2.0) and `from` (1.2) that carry a key's ctx, so a parse tells it from the comment. */
const CONTEXT_NOTE = 'context';

// ---------------------------------------------------------------------------------------------------------------
// Render

const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string) => escapeText(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');

/**
 * Characters XML 1.0 cannot hold even as references (C0 controls but tab, newline and carriage return; lone
 * surrogates; U+FFFE and U+FFFF). A message with one is written without them, and the renderer says so.
 */
const NOT_XML =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `s` as XML text; `\r` as a reference, since a parser turns a raw one into `\n`. */
function xmlText(s: string, warn: (reason: string) => void): string {
  NOT_XML.lastIndex = 0;
  if (NOT_XML.test(s)) warn('characters XML 1.0 cannot hold (control characters) were left out');
  return escapeText(s.replace(NOT_XML, '')).replace(/\r/g, '&#13;');
}

/** An XLIFF 2.0 `id` is an NMTOKEN: a key name that is one is its own id; any other gets one derived from it. */
function nmtoken(name: string, used: Set<string>): string {
  let id = /^[A-Za-z0-9._:-]+$/.test(name) ? name : `k${fnv1a(name)}`;
  for (let n = 2; used.has(id); n++) id = `${id}-${n}`;
  used.add(id);
  return id;
}

/** A short, stable hash (FNV-1a, 32 bits, hex): the core renders without node:crypto so it runs in any runtime. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

interface Unit {
  name: string;
  source: string;
  target: string | null;
  /** The snapshot's status of the target (translated, reviewed, approved), when known. */
  status: string | undefined;
  ctx: string | null;
  comment: string | null;
}

/** The units of a one-language catalog: the source from the project (or the base value), the target from `lang`. */
function unitsOf(catalog: Catalog, opts: RenderOptions): { units: Unit[]; lang: string; isBase: boolean } {
  const lang = opts.languages[0] ?? opts.baseLanguage;
  const isBase = languageKey(lang) === languageKey(opts.baseLanguage);
  const units: Unit[] = [];
  for (const entry of catalog.entries) {
    const base = entry.source ?? valueFor(entry, opts.baseLanguage);
    const v = isBase ? undefined : valueFor(entry, lang);
    const written = v && v.state !== 'fallback' ? v : undefined;
    units.push({
      name: entry.fileKey,
      source: base ? icuText(base) : '',
      target: written ? icuText(written) : null,
      status: written?.state,
      ctx: entry.ctx ?? null,
      comment: entry.comment ?? null,
    });
  }
  return { units, lang, isBase };
}

function render12(catalog: Catalog, opts: RenderOptions): string {
  const { units, lang, isBase } = unitsOf(catalog, opts);
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">',
    `  <file original="messages" datatype="plaintext" source-language="${escapeAttr(bcp47(opts.baseLanguage))}"${
      isBase ? '' : ` target-language="${escapeAttr(bcp47(lang))}"`
    }>`,
    '    <body>',
  ];
  for (const u of units) {
    const warn = (reason: string) => opts.warn?.({ key: u.name, lang, reason });
    const state = u.target !== null ? (STATE_12[u.status ?? ''] ?? 'translated') : null;
    out.push(
      `      <trans-unit id="${escapeAttr(u.name)}" resname="${escapeAttr(u.name)}"${state ? ' approved="yes"' : ''} xml:space="preserve">`,
    );
    out.push(`        <source>${xmlText(u.source, warn)}</source>`);
    if (u.target !== null) out.push(`        <target state="${state}">${xmlText(u.target, warn)}</target>`);
    if (u.comment) out.push(`        <note from="developer">${xmlText(u.comment, warn)}</note>`);
    if (u.ctx) out.push(`        <note from="${CONTEXT_NOTE}">${xmlText(u.ctx, warn)}</note>`);
    out.push('      </trans-unit>');
  }
  out.push('    </body>', '  </file>', '</xliff>', '');
  return out.join('\n');
}

function render20(catalog: Catalog, opts: RenderOptions): string {
  const { units, lang, isBase } = unitsOf(catalog, opts);
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="${escapeAttr(bcp47(opts.baseLanguage))}"${
      isBase ? '' : ` trgLang="${escapeAttr(bcp47(lang))}"`
    }>`,
    '  <file id="messages">',
  ];
  const used = new Set<string>();
  for (const u of units) {
    const warn = (reason: string) => opts.warn?.({ key: u.name, lang, reason });
    out.push(`    <unit id="${escapeAttr(nmtoken(u.name, used))}" name="${escapeAttr(u.name)}" xml:space="preserve">`);
    if (u.comment || u.ctx) {
      out.push('      <notes>');
      if (u.comment) out.push(`        <note category="description">${xmlText(u.comment, warn)}</note>`);
      if (u.ctx) out.push(`        <note category="${CONTEXT_NOTE}">${xmlText(u.ctx, warn)}</note>`);
      out.push('      </notes>');
    }
    const state = u.target !== null ? (STATE_20[u.status ?? ''] ?? 'translated') : 'initial';
    out.push(`      <segment state="${state}">`);
    out.push(`        <source>${xmlText(u.source, warn)}</source>`);
    if (u.target !== null) out.push(`        <target>${xmlText(u.target, warn)}</target>`);
    out.push('      </segment>', '    </unit>');
  }
  out.push('  </file>', '</xliff>', '');
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// Parse

type Node = Record<string, unknown> & { ':@'?: Record<string, string> };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  // Source, target and note contents are taken raw: their inline elements are looked at, never trusted as structure.
  stopNodes: ['*.source', '*.target', '*.note'],
  processEntities: false,
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  removeNSPrefix: true,
});

const tagOf = (node: Node) => Object.keys(node).find((k) => k !== ':@') ?? '';
const childrenOf = (node: Node): Node[] => {
  const c = node[tagOf(node)];
  return Array.isArray(c) ? (c as Node[]) : [];
};
const attr = (node: Node, name: string): string | undefined => {
  const a = node[':@'];
  return a && Object.hasOwn(a, name) ? decodeEntities(a[name]) : undefined;
};

/**
 * The text of a raw `<source>`/`<target>`/`<note>`: CDATA kept, entities decoded, `<mrk>` annotations unwrapped (a
 * CAT tool marks terms and segments with them; they are no part of the text). Any other inline element (`<g>`,
 * `<x/>`, `<ph>`, `<pc>`, ...) is a code of some other tool's file format that an ICU message cannot hold: refused.
 */
function rawText(raw: string, where: string): string {
  let out = '';
  const re = /<!\[CDATA\[([\s\S]*?)\]\]>|<(\/?)([A-Za-z_][\w.:-]*)\b[^>]*?(\/?)>/g;
  let from = 0;
  for (let m = re.exec(raw); m; m = re.exec(raw)) {
    out += decodeEntities(raw.slice(from, m.index));
    from = m.index + m[0].length;
    if (m[1] !== undefined) {
      out += m[1];
      continue;
    }
    const name = m[3].replace(/^.*:/, '');
    if (name === 'mrk' || name === 'sm' || name === 'em') continue;
    throw invalid(
      `${where}: the inline element <${name}> is not supported; values are ICU text (export the file from the service to see its form)`,
    );
  }
  return out + decodeEntities(raw.slice(from));
}

const textOf = (node: Node | undefined, where: string): string | null => {
  if (!node) return null;
  const parts = childrenOf(node);
  return rawText(parts.map((n) => (typeof n['#text'] === 'string' ? n['#text'] : '')).join(''), where);
};

/** A value as the file holds it: ICU plural text becomes forms later, where the project knows the source's shape. */
const textValue = (text: string, state?: string): CatalogValue =>
  state === undefined ? { kind: 'text', text } : { kind: 'text', text, state };

interface Parsed {
  srcLang: string | null;
  trgLang: string | null;
  entries: CatalogEntry[];
}

function rootOf(text: string): Node {
  if (/<!DOCTYPE|<!ENTITY/i.test(text))
    throw invalid('an XLIFF file has no DOCTYPE or entity declarations (refused, as they can expand without bound)');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw invalid(`invalid XML: ${valid.err.msg} on line ${valid.err.line}`);
  const doc = parser.parse(text) as Node[];
  const root = doc.find((n) => tagOf(n) === 'xliff');
  if (!root) throw new FormatError('format_mismatch', 'an XLIFF file has an <xliff> root');
  return root;
}

/**
 * Elements of `nodes` named `tag`, looking inside `<group>`s (both versions nest units in groups). A 1.2 group of
 * `restype="x-gettext-plurals"` (translate-toolkit's po2xliff: one unit per msgstr[n]) is one plural message:
 * `plurals` lists those groups alone, and the units inside them are not listed as units of their own.
 */
function deep(nodes: Node[], tag: string, out: Node[] = [], plurals = false): Node[] {
  for (const n of nodes) {
    const t = tagOf(n);
    const pluralGroup = t === 'group' && attr(n, 'restype') === 'x-gettext-plurals';
    if (plurals ? pluralGroup : t === tag) out.push(n);
    else if (pluralGroup) continue;
    else if (t === 'group' || t === 'body') deep(childrenOf(n), tag, out, plurals);
  }
  return out;
}

const childNamed = (node: Node, tag: string) => childrenOf(node).find((n) => tagOf(n) === tag);

function addEntry(
  entries: CatalogEntry[],
  seen: Set<string>,
  fields: {
    name: string;
    source: string | null;
    target: string | null;
    state?: string;
    notes: Array<{ category?: string; text: string }>;
  },
  langs: { src: string; trg: string | null },
) {
  if (seen.has(fields.name)) throw invalid(`the unit ${fields.name} appears twice`);
  seen.add(fields.name);
  const entry: CatalogEntry = { fileKey: fields.name, values: dict() };
  if (fields.source !== null && fields.source !== '') entry.values[langs.src] = textValue(fields.source);
  if (langs.trg && fields.target !== null && fields.target !== '') {
    entry.values[langs.trg] = textValue(fields.target, fields.state);
  }
  const ctx = fields.notes.find((n) => n.category === CONTEXT_NOTE);
  if (ctx) entry.ctx = ctx.text;
  const comment = fields.notes
    .filter((n) => n !== ctx)
    .map((n) => n.text)
    .join('\n');
  if (comment) entry.comment = comment;
  entries.push(entry);
}

function parse12(text: string): Parsed {
  const root = rootOf(text);
  const entries: CatalogEntry[] = [];
  const seen = new Set<string>();
  let srcLang: string | null = null;
  let trgLang: string | null = null;
  for (const file of childrenOf(root).filter((n) => tagOf(n) === 'file')) {
    const src = attr(file, 'source-language') ?? null;
    const trg = attr(file, 'target-language') ?? null;
    if (!src) throw invalid('<file> has no source-language');
    if (srcLang !== null && (src !== srcLang || trg !== trgLang))
      throw invalid('the <file> elements name different languages: one file holds one language pair');
    srcLang = src;
    trgLang = trg;
    for (const group of deep(childrenOf(file), 'group', [], true)) {
      const name = attr(group, 'resname') ?? attr(group, 'id');
      if (!name) throw invalid('a plural <group> has no id');
      const units = childrenOf(group).filter((n) => tagOf(n) === 'trans-unit');
      const forms = dict<string>();
      let state: string | undefined;
      units.forEach((u, i) => {
        const target = childNamed(u, 'target');
        state ??= target ? attr(target, 'state') : undefined;
        const t = target ? textOf(target, name) : null;
        if (t) forms[String(i)] = t;
      });
      const notes = [group, ...units]
        .flatMap((n) => childrenOf(n).filter((c) => tagOf(c) === 'note'))
        .map((n) => ({ category: attr(n, 'from'), text: textOf(n, name) ?? '' }))
        .filter((n, i, all) => n.text !== '' && all.findIndex((o) => o.text === n.text) === i);
      const source = textOf(childNamed(units[0] ?? { x: [] }, 'source'), name);
      addEntry(entries, seen, { name, source, target: null, notes }, { src, trg: null });
      const entry = entries[entries.length - 1];
      entry.meta = { gettextPlural: units.length };
      if (Object.keys(forms).length && !UNTRANSLATED.has(state ?? ''))
        entry.values[trg ?? UNKNOWN_LANGUAGE] =
          state === undefined ? { kind: 'plural', forms } : { kind: 'plural', forms, state };
    }
    for (const unit of deep(childrenOf(file), 'trans-unit')) {
      const name = attr(unit, 'resname') ?? attr(unit, 'id');
      if (!name) throw invalid('a <trans-unit> has no id');
      // translate-toolkit's po2xliff carries the PO header as a unit of its own: no message.
      if (attr(unit, 'translate') === 'no' || attr(unit, 'restype') === 'x-gettext-domain-header') continue;
      const targetNode = childNamed(unit, 'target');
      const notes = childrenOf(unit)
        .filter((n) => tagOf(n) === 'note')
        .map((n) => ({ category: attr(n, 'from'), text: textOf(n, name) ?? '' }))
        .filter((n) => n.text !== '');
      const state = targetNode ? attr(targetNode, 'state') : undefined;
      addEntry(
        entries,
        seen,
        {
          name,
          source: textOf(childNamed(unit, 'source'), name),
          target: targetNode && !UNTRANSLATED.has(state ?? '') ? textOf(targetNode, name) : null,
          state,
          notes,
        },
        // A file with no target-language (po2xliff writes none) still carries targets: the caller names the language.
        { src, trg: trg ?? UNKNOWN_LANGUAGE },
      );
    }
  }
  return { srcLang, trgLang, entries };
}

function parse20(text: string): Parsed {
  const root = rootOf(text);
  const srcLang = attr(root, 'srcLang') ?? null;
  const trgLang = attr(root, 'trgLang') ?? null;
  if (!srcLang) throw invalid('<xliff> has no srcLang');
  const entries: CatalogEntry[] = [];
  const seen = new Set<string>();
  for (const file of childrenOf(root).filter((n) => tagOf(n) === 'file')) {
    for (const unit of deep(childrenOf(file), 'unit')) {
      const name = attr(unit, 'name') ?? attr(unit, 'id');
      if (!name) throw invalid('a <unit> has no id');
      if (attr(unit, 'translate') === 'no') continue;
      const notes = (childrenOf(childNamed(unit, 'notes') ?? { notes: [] }) ?? [])
        .filter((n) => tagOf(n) === 'note')
        .map((n) => ({ category: attr(n, 'category'), text: textOf(n, name) ?? '' }))
        .filter((n) => n.text !== '');
      // A unit's text is its segments (and ignorables) in order; the state is the first segment's.
      let source = '';
      let target = '';
      let hasTarget = false;
      let state: string | undefined;
      for (const part of childrenOf(unit)) {
        const tag = tagOf(part);
        if (tag !== 'segment' && tag !== 'ignorable') continue;
        if (tag === 'segment' && state === undefined) state = attr(part, 'state') ?? 'initial';
        const s = textOf(childNamed(part, 'source'), name) ?? '';
        const t = textOf(childNamed(part, 'target'), name);
        source += s;
        if (t !== null) hasTarget = true;
        target += t ?? (tag === 'ignorable' ? s : '');
      }
      addEntry(
        entries,
        seen,
        {
          name,
          source,
          target: hasTarget && !UNTRANSLATED.has(state ?? '') ? target : null,
          state,
          notes,
        },
        { src: srcLang, trg: trgLang },
      );
    }
  }
  return { srcLang, trgLang, entries };
}

function toCatalog(format: 'xliff12' | 'xliff20', p: Parsed): Catalog {
  return { format, sourceLanguage: p.srcLang, language: p.trgLang, entries: p.entries };
}

/** The version an `<xliff>` root declares, or null when the text has none. */
function xliffVersion(text: string): string | null {
  const head = text.slice(0, 4096);
  const m = /<xliff\b[^>]*?\bversion\s*=\s*["']([^"']+)["']/.exec(head);
  return m ? m[1] : /<xliff\b/.test(head) ? '' : null;
}

function detectFor(major: '1' | '2') {
  return (text: string, fileName?: string): number => {
    const v = xliffVersion(text);
    const ext = hasExt(fileName, '.xlf', '.xliff');
    if (v === null) return ext ? 0.2 : 0;
    if (v.startsWith(`${major}.`)) return 1;
    return v === '' ? (ext ? 0.5 : 0.3) : 0;
  };
}

export const xliff12: FormatModule = {
  id: 'xliff12',
  detect: detectFor('1'),
  parse: (text) => toCatalog('xliff12', parse12(text)),
  render: render12,
};

export const xliff20: FormatModule = {
  id: 'xliff20',
  detect: detectFor('2'),
  parse: (text) => toCatalog('xliff20', parse20(text)),
  render: render20,
};
