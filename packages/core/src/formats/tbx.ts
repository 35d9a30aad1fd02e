// TBX, the termbase exchange file (ISO 30042): a termbase written as TBX-Basic (`writeTbx`: the 2008 `<martif>` form
// translate-toolkit, Weblate, Crowdin and most CAT tools read) and read back from TBX-Basic files of either edition
// (`parseTbx`: `<martif>` with `termEntry`/`langSet`/`tig`|`ntig`, and the 2019 `<tbx>` with
// `conceptEntry`/`langSec`/`termSec`, as Crowdin's "TBX (v3)" export writes). What each data category becomes is in
// docs/guides/terms.md ("TBX"). Hostile files are refused as tmx.ts and xliff.ts refuse them: a size limit checked
// before parsing, no internal DTD subset and no entity declaration (billion laughs, external entities), only XML's
// own entities, malformed bytes refused, never replaced.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { bcp47 } from '../languages.js';
import {
  checkEntry,
  decodeText,
  MAX_FILE_ENTRIES,
  partOfSpeechOf,
  TermFileError,
  translationsDict,
  type PartOfSpeech,
  type TermEntry,
} from '../terms/entry.js';
import { decodeEntities } from './xml-entities.js';

/** The largest file `parseTbx` reads unless told otherwise (the import route's limit). */
const TBX_MAX_BYTES = 5 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------------------------
// Write

interface TbxHeader {
  /** The termbase's language: the root's `xml:lang` and each entry's first `langSet`. */
  sourceLanguage: string;
  /** The file's title (`<titleStmt><title>`). */
  title?: string;
}

/** An entry as written: an id for `termEntry/@id` besides the fields. */
export type TbxEntry = TermEntry & { id?: string };

const escapeText = (s: string) =>
  s
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
const escapeAttr = (s: string) => escapeText(s).replace(/"/g, '&quot;');

/** TBX-Basic's picklist spelling of a part of speech (`properNoun`); the others as Crowdin names them. */
const tbxPartOfSpeech = (p: PartOfSpeech) => (p === 'proper noun' ? 'properNoun' : p);

/** An XML ID for `termEntry/@id`: the entry's own when it is one, else `c<n>`. */
const entryId = (id: string | undefined, n: number) => (id && /^[A-Za-z_][\w.-]*$/.test(id) ? id : `c${n}`);

/**
 * A whole TBX-Basic file: one `termEntry` per entry, the source language's `langSet` first (translate-toolkit reads
 * the first as the source), the definition (`description`) there, part of speech and term type on the source term,
 * `deprecatedTerm-admn-sts` on the translations of a forbidden entry, and the flags TBX-Basic has no category for
 * as `x-` term notes (`x-caseSensitive`, `x-nonTranslatable`, value `yes`).
 */
export function writeTbx(header: TbxHeader, entries: Iterable<TbxEntry>): string {
  const src = bcp47(header.sourceLanguage);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<martif type="TBX-Basic" xml:lang="${escapeAttr(src)}">`,
    '  <martifHeader>',
    '    <fileDesc>',
    ...(header.title ? [`      <titleStmt><title>${escapeText(header.title)}</title></titleStmt>`] : []),
    '      <sourceDesc><p>Glossa</p></sourceDesc>',
    '    </fileDesc>',
    '    <encodingDesc><p type="XCSURI">TBXBasicXCSV02.xcs</p></encodingDesc>',
    '  </martifHeader>',
    '  <text>',
    '    <body>',
  ];
  let n = 0;
  for (const e of entries) {
    n++;
    out.push(`      <termEntry id="${escapeAttr(entryId(e.id, n))}">`);
    out.push(`        <langSet xml:lang="${escapeAttr(src)}">`);
    if (e.description) out.push(`          <descrip type="definition">${escapeText(e.description)}</descrip>`);
    out.push('          <tig>', `            <term>${escapeText(e.text)}</term>`);
    if (e.partOfSpeech)
      out.push(`            <termNote type="partOfSpeech">${escapeText(tbxPartOfSpeech(e.partOfSpeech))}</termNote>`);
    if (e.abbreviation) out.push('            <termNote type="termType">abbreviation</termNote>');
    if (e.caseSensitive) out.push('            <termNote type="x-caseSensitive">yes</termNote>');
    if (e.nonTranslatable) out.push('            <termNote type="x-nonTranslatable">yes</termNote>');
    out.push('          </tig>', '        </langSet>');
    for (const lang of Object.keys(e.translations).sort()) {
      out.push(`        <langSet xml:lang="${escapeAttr(bcp47(lang))}">`);
      out.push('          <tig>', `            <term>${escapeText(e.translations[lang])}</term>`);
      if (e.forbidden) out.push('            <termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote>');
      out.push('          </tig>', '        </langSet>');
    }
    out.push('      </termEntry>');
  }
  out.push('    </body>', '  </text>', '</martif>', '');
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// Parse

interface TbxParseOptions {
  /** Files over this many bytes are refused before any parsing; `TBX_MAX_BYTES` by default. */
  maxBytes?: number;
  /**
   * Whether a language the file names is the termbase's language (the caller's rule: same language where one side
   * names no region). Entries without a term in it are counted in `skipped`.
   */
  isSource: (lang: string) => boolean;
}

interface TbxParsed {
  /** The root's `xml:lang`, as written, or null. */
  language: string | null;
  entries: TermEntry[];
  /** Concepts with no term in the termbase's language. */
  skipped: number;
  /** Every language of a translation, as the file writes it, in order of first appearance. */
  languages: string[];
}

type Node = Record<string, unknown> & { ':@'?: Record<string, string> };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  processEntities: false,
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  removeNSPrefix: true,
});

const refuse = (message: string) => new TermFileError('invalid_argument', message);
const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/**
 * The one DOCTYPE a TBX file may carry names an external DTD and declares nothing (`<!DOCTYPE martif SYSTEM
 * "TBXBasiccoreStructV02.dtd">`, as TBX-Basic tools write it); it is never fetched. An internal subset, an ENTITY
 * anywhere or a second DOCTYPE is refused (tmx.ts has the same rule).
 */
function checkDoctype(text: string) {
  const doctype =
    /<!DOCTYPE\s+[^\s[>]+(?:\s+SYSTEM\s+(?:"[^"]*"|'[^']*')|\s+PUBLIC\s+(?:"[^"]*"|'[^']*')\s+(?:"[^"]*"|'[^']*'))?\s*>/y;
  const prolog = /^(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->)*/.exec(text)![0].length;
  doctype.lastIndex = prolog;
  const allowed = text.startsWith('<!DOCTYPE', prolog) && doctype.test(text) ? prolog : -1;
  const re = /<!(DOCTYPE|ENTITY)/gi;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index === allowed) continue;
    throw refuse(
      `line ${lineOf(text, m.index)}: a TBX file may name its DTD but declare nothing (no internal subset, no <!ENTITY>): refused, as declarations can expand without bound or read other files`,
    );
  }
  return allowed;
}

const XML_ENTITIES = new Set(['amp', 'lt', 'gt', 'quot', 'apos']);

/** Whether a character reference (`#233`, `#xE9`) names a character XML 1.0 allows. */
function xmlChar(name: string): boolean {
  const m = /^#(?:x([0-9a-fA-F]{1,6})|(\d{1,7}))$/.exec(name);
  if (!m) return false;
  const cp = m[1] !== undefined ? parseInt(m[1], 16) : parseInt(m[2], 10);
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

/** Raw text decoded; a reference to an entity XML does not predefine (`&nbsp;`, no DTD declares it) is refused. */
function decodeRaw(raw: string): string {
  if (!raw.includes('&')) return raw;
  for (const m of raw.matchAll(/&([^;&\s]*);?/g)) {
    const name = m[1];
    const ok = m[0].endsWith(';') && (XML_ENTITIES.has(name) || xmlChar(name));
    if (!ok) throw refuse(`${m[0]} is not an XML reference (only &amp; &lt; &gt; &quot; &apos; and characters)`);
  }
  return decodeEntities(raw);
}

const tagOf = (node: Node) => Object.keys(node).find((k) => k !== ':@') ?? '';
const childrenOf = (node: Node): Node[] => {
  const c = node[tagOf(node)];
  return Array.isArray(c) ? (c as Node[]) : [];
};
const attr = (node: Node, name: string): string | null => {
  const a = node[':@'];
  return a && Object.hasOwn(a, name) ? decodeRaw(a[name]) : null;
};
const langOf = (node: Node) => attr(node, 'xml:lang') ?? attr(node, 'lang');
const kids = (node: Node, ...tags: string[]) => childrenOf(node).filter((n) => tags.includes(tagOf(n)));

/** An element's text: its text and its inline elements' (`<hi>`) text, decoded (the parser reads CDATA as text). */
function textOf(node: Node): string {
  let out = '';
  for (const c of childrenOf(node)) {
    if (typeof c['#text'] === 'string') out += decodeRaw(c['#text']);
    else if (tagOf(c) !== '#comment') out += textOf(c);
  }
  return out;
}

/** Data categories of a node and of its `descripGrp`/`termGrp`/`termNoteGrp` groups, by `type`. */
function categories(node: Node, tag: string): Array<{ type: string; value: string }> {
  const out: Array<{ type: string; value: string }> = [];
  for (const c of childrenOf(node)) {
    const t = tagOf(c);
    if (t === tag) out.push({ type: (attr(c, 'type') ?? '').trim(), value: textOf(c).trim() });
    else if (t.endsWith('Grp')) out.push(...categories(c, tag));
  }
  return out;
}

const DEPRECATED = /deprecated|superseded|obsolete|forbidden|not ?recommended/i;

interface RawTerm {
  text: string;
  status: string;
  partOfSpeech: string | null;
  termType: string | null;
  definition: string | null;
  notes: Map<string, string>;
}

/** The terms of a `langSet`/`langSec`: each `tig`, `ntig` (its `termGrp`) or `termSec`. */
function termsOf(langSet: Node): RawTerm[] {
  return kids(langSet, 'tig', 'ntig', 'termSec').map((t) => {
    const grp = tagOf(t) === 'ntig' ? (kids(t, 'termGrp')[0] ?? t) : t;
    const term = kids(grp, 'term')[0];
    const notes = new Map<string, string>();
    for (const n of [...categories(grp, 'termNote'), ...(grp === t ? [] : categories(t, 'termNote'))])
      if (!notes.has(n.type)) notes.set(n.type, n.value);
    const definition = [...categories(t, 'descrip')].find((d) => d.type === 'definition')?.value ?? null;
    return {
      text: term ? textOf(term).trim() : '',
      status: notes.get('administrativeStatus') ?? notes.get('normativeAuthorization') ?? '',
      partOfSpeech: notes.get('partOfSpeech') ?? null,
      termType: notes.get('termType') ?? null,
      definition,
      notes,
    };
  });
}

const yes = (v: string | undefined) => v !== undefined && /^(yes|true|1|y)$/i.test(v);

/**
 * Reads a TBX file (TBX-Basic, 2008 `<martif>` or 2019 `<tbx>`) into entries in the termbase's language. A concept
 * gives one entry for its preferred term in that language, with the first allowed translation per language, and a
 * forbidden entry beside it when it has translations marked deprecated (or superseded, obsolete, not recommended).
 * Refuses with a `TermFileError` anything but such a file.
 */
export function parseTbx(input: Uint8Array | string, options: TbxParseOptions): TbxParsed {
  const max = options.maxBytes ?? TBX_MAX_BYTES;
  const size = typeof input === 'string' ? new TextEncoder().encode(input).byteLength : input.byteLength;
  if (size > max) throw new TermFileError('too_large', `the file is over ${max} bytes (${size})`);
  let text = typeof input === 'string' ? input : decodeText(input);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!/\S/.test(text)) throw refuse('the file is empty');
  if (!/^\s*</.test(text)) throw new TermFileError('format_mismatch', 'the file is not XML, so not TBX');
  // eslint-disable-next-line no-control-regex
  const control = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.exec(text);
  if (control) throw refuse(`line ${lineOf(text, control.index)}: a control character XML 1.0 does not allow`);
  const doctype = checkDoctype(text);
  // The parser never sees the DOCTYPE it let through (fast-xml-parser would read its declarations).
  if (doctype >= 0) text = text.slice(0, doctype) + text.slice(text.indexOf('>', doctype) + 1);
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw refuse(`invalid XML: ${valid.err.msg} on line ${valid.err.line}`);
  const doc = parser.parse(text) as Node[];
  const root = doc.find((n) => !tagOf(n).startsWith('?') && !tagOf(n).startsWith('#'));
  const rootTag = root ? tagOf(root) : '';
  if (!root || (rootTag !== 'martif' && rootTag !== 'tbx'))
    throw new TermFileError(
      'format_mismatch',
      `the file is XML but not TBX: its root is <${rootTag}>, not <martif> or <tbx>`,
    );
  const body = kids(root, 'text').flatMap((t) => kids(t, 'body'));
  if (!body.length) throw refuse('a TBX file has <text><body>');

  const out: TbxParsed = { language: langOf(root), entries: [], skipped: 0, languages: [] };
  const concepts = body.flatMap((b) => kids(b, 'termEntry', 'conceptEntry'));
  if (concepts.length > MAX_FILE_ENTRIES)
    throw new TermFileError('too_many_entries', `the file has ${concepts.length} entries; at most ${MAX_FILE_ENTRIES}`);
  concepts.forEach((concept, i) => {
    const where = `${tagOf(concept)} ${attr(concept, 'id') ?? i + 1}`;
    const conceptDefinition = categories(concept, 'descrip').find((d) => d.type === 'definition')?.value ?? null;
    const langSets = kids(concept, 'langSet', 'langSec');
    let source: { set: Node; term: RawTerm } | null = null;
    const targets: Array<{ lang: string; terms: RawTerm[] }> = [];
    for (const set of langSets) {
      const lang = langOf(set);
      if (!lang) throw refuse(`${where}: a ${tagOf(set)} without xml:lang`);
      const terms = termsOf(set).filter((t) => t.text);
      if (!terms.length) continue;
      if (options.isSource(lang)) {
        if (!source) source = { set, term: terms.find((t) => !DEPRECATED.test(t.status)) ?? terms[0] };
      } else {
        targets.push({ lang, terms });
        if (!out.languages.includes(lang)) out.languages.push(lang);
      }
    }
    if (!source) {
      out.skipped++;
      return;
    }
    const t = source.term;
    const description =
      t.definition ??
      categories(source.set, 'descrip').find((d) => d.type === 'definition')?.value ??
      conceptDefinition ??
      null;
    const base: Omit<TermEntry, 'translations'> = {
      text: t.text,
      description: description || null,
      partOfSpeech: partOfSpeechOf(t.partOfSpeech),
      abbreviation: /abbreviation|acronym|initialism|shortForm/i.test(t.termType ?? ''),
      caseSensitive: yes(t.notes.get('x-caseSensitive')),
      nonTranslatable: yes(t.notes.get('x-nonTranslatable')) || /^no$/i.test(t.notes.get('translationNote') ?? ''),
    };
    const allowed = translationsDict();
    const banned = translationsDict();
    for (const { lang, terms } of targets)
      for (const term of terms) {
        const into = DEPRECATED.test(term.status) ? banned : allowed;
        if (!(lang in into)) into[lang] = term.text;
      }
    const entries: TermEntry[] = [];
    if (Object.keys(allowed).length || !Object.keys(banned).length)
      entries.push({ ...base, forbidden: false, translations: allowed });
    if (Object.keys(banned).length) entries.push({ ...base, forbidden: true, translations: banned });
    for (const e of entries) checkEntry(e, where);
    out.entries.push(...entries);
  });
  if (out.entries.length > MAX_FILE_ENTRIES)
    throw new TermFileError(
      'too_many_entries',
      `the file has ${out.entries.length} entries; at most ${MAX_FILE_ENTRIES}`,
    );
  return out;
}
