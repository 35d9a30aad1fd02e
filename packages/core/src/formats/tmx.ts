// TMX 1.4b: the translation-memory exchange file CAT tools (Trados, memoQ, Phrase, OmegaT, Okapi), Crowdin, Weblate
// and translate-toolkit read and write. A memory is exported as one file (`writeTmx`, or `tmxChunks`/`tmxStream` for a
// memory too large to hold as one string) and files from those tools are read back into language pairs (`parseTmx`).
// Not a catalog format: a TMX file holds pairs of sentences, not a project's keys in one language, so it is not in
// the format registry (formats/index.ts). Messages travel as ICU text escaped as XML, never as inline codes, as in
// XLIFF (formats/xliff.ts, docs/decisions/0018-xliff-and-imports.md); what a tool's inline codes become on import,
// the languages read and the files refused are in docs/decisions/0022-tmx.md and docs/guides/formats.md ("TMX").
import { FormatError } from '../catalog.js';
import { bcp47, canonicalLanguage, sameLanguageAndScript } from '../languages.js';
import { decodeEntities } from './xml-entities.js';

/** One pair of a memory: what `writeTmx` writes as one `<tu>` and `parseTmx` returns for each target `<tuv>`. */
export interface TmxEntry {
  sourceLanguage: string;
  targetLanguage: string;
  source: string;
  target: string;
  ctx?: string | null;
  /** The key name the pair was translated under. */
  key?: string | null;
  project?: string | null;
  origin?: string | null;
  status?: string | null;
  /** Epoch milliseconds (TMX `creationdate`, `changedate`). */
  createdAt?: number | null;
  updatedAt?: number | null;
}

/** The fields of an entry each travel in a `<prop>` of this type, so our own reader gets them back. */
const PROPS = {
  ctx: 'x-glossa-ctx',
  key: 'x-glossa-key',
  project: 'x-glossa-project',
  origin: 'x-glossa-origin',
  status: 'x-glossa-status',
} as const;
type PropField = keyof typeof PROPS;
const PROP_FIELDS = Object.keys(PROPS) as PropField[];

/** TMX's header `srclang` for a memory whose units may take any of their languages as the source. */
const ALL_LANGUAGES = '*all*';

/** The largest file `parseTmx` reads unless told otherwise (the import route's limit). */
export const TMX_MAX_BYTES = 50 * 1024 * 1024;

/**
 * Why a file was refused, for a caller that answers each differently (`too_large` as 413, say): `too_large`,
 * `empty`, `dtd` (a DOCTYPE that declares anything), `malformed` (not well-formed XML, or TMX structure missing),
 * `not_tmx` (XML of another kind, code `format_mismatch`), `no_source` (a unit without its source language),
 * `language` (a code that is no BCP 47 tag), `inline` (an element TMX does not allow in a `<seg>`).
 */
export type TmxRefusal = 'too_large' | 'empty' | 'dtd' | 'malformed' | 'not_tmx' | 'no_source' | 'language' | 'inline';

export class TmxError extends FormatError {
  constructor(
    readonly reason: TmxRefusal,
    message: string,
  ) {
    super(reason === 'not_tmx' ? 'format_mismatch' : 'invalid_argument', message);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Write

export interface TmxHeader {
  /** The memory's source language, or `*all*`; an entry in another source language names its own on its `<tu>`. */
  sourceLanguage: string;
  /** The language of notes and props (TMX `adminlang`); `en` unless told. */
  adminLanguage?: string;
  /** TMX `creationtoolversion` (required by 1.4b): the service's version. */
  toolVersion?: string;
  /** Epoch milliseconds, the header's `creationdate`; none when absent, so the same memory gives the same bytes. */
  createdAt?: number;
  /** Called for each entry a character was left out of (`index` counts entries from 0). */
  warn?: (warning: { index: number; reason: string }) => void;
}

const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string) => escapeText(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');

/**
 * Characters XML 1.0 cannot hold even as references: C0 controls but tab, newline and carriage return, U+FFFE, U+FFFF
 * and lone surrogates (which no UTF-8 file can hold either). The writer leaves them out and warns, as xliff.ts does.
 */
const NOT_XML =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `s` as XML text; `\r` as a reference, since a parser reads a raw one as `\n`. */
function xmlText(s: string, warn: () => void): string {
  NOT_XML.lastIndex = 0;
  if (NOT_XML.test(s)) {
    warn();
    s = s.replace(NOT_XML, '');
  }
  return escapeText(s).replace(/\r/g, '&#13;');
}

/** TMX's date form, `YYYYMMDDThhmmssZ` in UTC; null for a time that is none. */
export function tmxDate(ms: number): string | null {
  const d = new Date(ms);
  if (!Number.isFinite(d.getTime()) || d.getUTCFullYear() < 1 || d.getUTCFullYear() > 9999) return null;
  return d
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

const dateAttr = (name: string, ms: number | null | undefined) => {
  const d = ms === null || ms === undefined ? null : tmxDate(ms);
  return d ? ` ${name}="${d}"` : '';
};

/** A language as TMX spells it (`xml:lang="pt-BR"`), or `*all*` as given. */
const tmxLang = (code: string) => (code.trim().toLowerCase() === ALL_LANGUAGES ? ALL_LANGUAGES : bcp47(code));

function head(header: TmxHeader): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<tmx version="1.4">',
    `  <header creationtool="Glossa" creationtoolversion="${escapeAttr(header.toolVersion ?? '1')}" segtype="sentence"` +
      ` o-tmf="Glossa" adminlang="${escapeAttr(tmxLang(header.adminLanguage ?? 'en'))}"` +
      ` srclang="${escapeAttr(tmxLang(header.sourceLanguage))}" datatype="plaintext"${dateAttr('creationdate', header.createdAt)}/>`,
    '  <body>',
    '',
  ].join('\n');
}

const TAIL = '  </body>\n</tmx>\n';

function tu(header: TmxHeader, entry: TmxEntry, index: number): string {
  let warned = false;
  const warn = () => {
    if (!warned)
      header.warn?.({
        index,
        reason: 'characters XML 1.0 cannot hold (control characters, lone surrogates) were left out',
      });
    warned = true;
  };
  const src = tmxLang(entry.sourceLanguage);
  // A unit in another source language than the header's says so (TMX 1.4b: `<tu srclang>`).
  const srcAttr =
    src.toLowerCase() === tmxLang(header.sourceLanguage).toLowerCase() ? '' : ` srclang="${escapeAttr(src)}"`;
  const out = [
    `    <tu${srcAttr}${dateAttr('creationdate', entry.createdAt ?? entry.updatedAt)}${dateAttr('changedate', entry.updatedAt)}>`,
  ];
  for (const field of PROP_FIELDS) {
    const v = entry[field];
    if (v !== null && v !== undefined && v !== '')
      out.push(`      <prop type="${PROPS[field]}">${xmlText(v, warn)}</prop>`);
  }
  // The source first: translate-toolkit (and other readers that ignore srclang) take the first <tuv> as the source.
  // `<seg>` on one line with its `<tuv>`: whitespace inside a segment is text.
  out.push(`      <tuv xml:lang="${escapeAttr(src)}"><seg>${xmlText(entry.source, warn)}</seg></tuv>`);
  out.push(
    `      <tuv xml:lang="${escapeAttr(tmxLang(entry.targetLanguage))}"><seg>${xmlText(entry.target, warn)}</seg></tuv>`,
  );
  out.push('    </tu>', '');
  return out.join('\n');
}

/** Chunks are joined up to this many characters, so a stream is neither one string nor a write per unit. */
const CHUNK = 64 * 1024;

/** The file as chunks of text, in order: a memory read from a cursor is written without holding it whole. */
export function* tmxChunks(header: TmxHeader, entries: Iterable<TmxEntry>): Generator<string, void, undefined> {
  let buf = head(header);
  let index = 0;
  for (const entry of entries) {
    buf += tu(header, entry, index++);
    if (buf.length >= CHUNK) {
      yield buf;
      buf = '';
    }
  }
  yield buf + TAIL;
}

/** `tmxChunks` over entries that arrive asynchronously (a database stream); `Readable.from` takes it as a body. */
export async function* tmxStream(
  header: TmxHeader,
  entries: AsyncIterable<TmxEntry> | Iterable<TmxEntry>,
): AsyncGenerator<string, void, undefined> {
  let buf = head(header);
  let index = 0;
  for await (const entry of entries) {
    buf += tu(header, entry, index++);
    if (buf.length >= CHUNK) {
      yield buf;
      buf = '';
    }
  }
  yield buf + TAIL;
}

/** A whole TMX 1.4b file: one `<tu>` per entry, the source `<tuv>` first. */
export function writeTmx(header: TmxHeader, entries: Iterable<TmxEntry>): string {
  return [...tmxChunks(header, entries)].join('');
}

// ---------------------------------------------------------------------------------------------------------------
// Parse

export interface TmxParseOptions {
  /** Files over this many bytes (UTF-8, or as given) are refused before any parsing; `TMX_MAX_BYTES` by default. */
  maxBytes?: number;
  /**
   * The source language the caller wants. A file whose `srclang` is `*all*` needs it; pairs whose source is another
   * language are counted in `skipped`, not returned.
   */
  sourceLanguage?: string;
  /** The target languages the caller wants; pairs into other languages are counted in `skipped`. All when absent. */
  targetLanguages?: readonly string[];
}

export interface TmxSkippedPair {
  /** As the file names them, normalised (`en-us`). */
  sourceLanguage: string;
  targetLanguage: string;
  count: number;
}

export interface TmxParsed {
  header: {
    /** The header's `srclang` normalised, `*all*`, or null when the file has none. */
    sourceLanguage: string | null;
    creationTool: string | null;
    creationToolVersion: string | null;
    /** TMX's `o-tmf`: the memory format the file was exported from. */
    originalFormat: string | null;
  };
  /** Every pair in a wanted language, in file order; languages as the options name them (or normalised). */
  entries: Required<TmxEntry>[];
  /** Pairs in languages the options did not ask for, counted per language pair, in order of first appearance. */
  skipped: TmxSkippedPair[];
  /** `<tu>` elements read. */
  units: number;
  /** Pairs left out because the source or the target `<seg>` is empty (a tool's untranslated unit). */
  emptySegments: number;
  /** Units of a `*all*` file with no `<tuv>` in the wanted source language. */
  unitsWithoutSource: number;
}

type Attrs = Record<string, string>;

const refuse = (reason: TmxRefusal, message: string) => new TmxError(reason, message);

/** The line of `index` in `text`, for messages. */
const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** UTF-8 length of a string, counted only when its length alone does not settle it against `max`. */
function overLimit(text: string, max: number): number | null {
  // Every UTF-16 unit is at least one UTF-8 byte and at most three.
  if (text.length > max) return text.length;
  if (text.length * 3 <= max) return null;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3; // a surrogate pair is 4: 2 + 2
  }
  return bytes > max ? bytes : null;
}

/**
 * Bytes as text: a BOM (UTF-8, UTF-16LE, UTF-16BE) or UTF-16's `<?` pattern decides, then the XML declaration's
 * `encoding` (Trados and older tools write UTF-16 files), else UTF-8. Malformed bytes are refused, not replaced.
 */
function decode(bytes: Uint8Array): string {
  let label = 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) label = 'utf-16le';
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) label = 'utf-16be';
  else if (bytes[0] === 0x3c && bytes[1] === 0 && bytes[2] === 0x3f && bytes[3] === 0) label = 'utf-16le';
  else if (bytes[0] === 0 && bytes[1] === 0x3c && bytes[2] === 0 && bytes[3] === 0x3f) label = 'utf-16be';
  else if (!(bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)) {
    const decl = /^<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(
      new TextDecoder('latin1').decode(bytes.subarray(0, 200)),
    );
    // A file that says UTF-16 without a BOM or the pattern above is not UTF-16, whatever it says: read as UTF-8.
    if (decl && !decl[1].toLowerCase().startsWith('utf-16')) label = decl[1].toLowerCase();
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch {
    throw refuse('malformed', `the file declares the encoding ${label}, which is not one we read`);
  }
  try {
    return decoder.decode(bytes);
  } catch {
    throw refuse('malformed', `the file is not valid ${decoder.encoding}`);
  }
}

/** The first character XML 1.0 cannot hold, written raw (a string may also hold lone surrogates). */
const RAW_NOT_XML = new RegExp(NOT_XML.source);

/**
 * The one DOCTYPE a TMX file may carry names an external DTD and declares nothing (`<!DOCTYPE tmx SYSTEM
 * "tmx14.dtd">`, as translate-toolkit, Weblate, OmegaT and Okapi write it); it is never fetched. An internal subset
 * (`[...]`, where entities are declared: billion laughs, external entities), a second DOCTYPE or an ENTITY anywhere
 * is refused, even inside a comment or CDATA, where nothing but a forged file puts one.
 */
function checkDoctype(text: string) {
  const at = prologDoctype(text);
  let ok = false;
  if (at >= 0) {
    EXTERNAL_ONLY.lastIndex = at;
    ok = EXTERNAL_ONLY.test(text);
  }
  const re = /<!(DOCTYPE|ENTITY)/gi;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (ok && m.index === at) continue;
    throw refuse(
      'dtd',
      `line ${lineOf(text, m.index)}: a TMX file may name its DTD but declare nothing (no internal subset, no <!ENTITY>): refused, as declarations can expand without bound or read other files`,
    );
  }
}

const QUOTED = `(?:"[^"]*"|'[^']*')`;
/** A DOCTYPE with a name and at most an external ID: no internal subset. */
const EXTERNAL_ONLY = new RegExp(
  `<!DOCTYPE\\s+[^\\s[>]+(?:\\s+SYSTEM\\s+${QUOTED}|\\s+PUBLIC\\s+${QUOTED}\\s+${QUOTED})?\\s*>`,
  'y',
);

/** Where a DOCTYPE starts when only the prolog (whitespace, the XML declaration, PIs, comments) comes before it, or -1. */
function prologDoctype(text: string): number {
  let i = 0;
  for (;;) {
    while (i < text.length && ' \t\r\n'.includes(text[i])) i++;
    let close: string;
    if (text.startsWith('<?', i)) close = '?>';
    else if (text.startsWith('<!--', i)) close = '-->';
    else return text.startsWith('<!DOCTYPE', i) ? i : -1;
    const end = text.indexOf(close, i + 2);
    if (end < 0) return -1;
    i = end + close.length;
  }
}

const XML_ENTITIES = new Set(['amp', 'lt', 'gt', 'quot', 'apos']);
const xmlChar = (cp: number) =>
  cp === 0x9 ||
  cp === 0xa ||
  cp === 0xd ||
  (cp >= 0x20 && cp <= 0xd7ff) ||
  (cp >= 0xe000 && cp <= 0xfffd) ||
  (cp >= 0x10000 && cp <= 0x10ffff);

/**
 * Text as a parser with entities off left it, decoded. A reference to an entity XML does not predefine (`&nbsp;`,
 * which no DTD of ours declares) or to a character XML 1.0 forbids (`&#1;`) is refused: the file is not well-formed,
 * and keeping it as written would store the markup as text.
 */
function decodeText(raw: string, where: string): string {
  // Text slices never hold one (segText tokenizes every `<`); an attribute value may not.
  if (raw.includes('<')) throw refuse('malformed', `${where}: invalid XML (a < in an attribute value)`);
  if (!raw.includes('&')) return raw;
  for (const m of raw.matchAll(/&([^;&\s]*);?/g)) {
    const name = m[1];
    const ok =
      m[0].endsWith(';') &&
      (name[0] === '#'
        ? xmlChar(
            name[1] === 'x' ? parseInt(name.slice(2), 16) : /^#\d+$/.test(name) ? parseInt(name.slice(1), 10) : -1,
          )
        : XML_ENTITIES.has(name));
    if (!ok)
      throw refuse(
        'malformed',
        `${where}: ${m[0]} is not an XML reference (only &amp; &lt; &gt; &quot; &apos; and characters XML allows)`,
      );
  }
  return decodeEntities(raw);
}

/** The elements TMX 1.4b allows in a `<seg>`: paired codes, placeholders, isolated and unknown tags, highlights and subflows. */
const INLINE = new Set(['bpt', 'ept', 'ph', 'it', 'ut', 'hi', 'sub']);

/**
 * The text of a raw `<seg>` (or `<prop>`, `<note>`: `inline` false, no element allowed): the concatenation of all
 * its text, as translate-toolkit reads it. So a code element (`<bpt>`, `<ept>`, `<ph>`, `<it>`, `<ut>`) gives the
 * native code it holds (`<bpt i="1">&lt;b&gt;</bpt>` gives `<b>`: Okapi, memoQ and Trados 2007 write tags so), an
 * empty one (Trados Studio's `<bpt i="1" type="bold"/>`) gives nothing, `<hi>` gives its content and `<sub>` its
 * text in place inside the code. CDATA is text, comments and processing instructions are nothing.
 */
function segText(raw: string, where: string, inline = true): string {
  let out = '';
  let from = 0;
  for (let lt = raw.indexOf('<'); lt !== -1; lt = raw.indexOf('<', from)) {
    out += decodeText(raw.slice(from, lt), where);
    const t = token(raw, lt, where, false);
    from = t.end;
    if (t.cdata !== undefined) out += t.cdata;
    else if (t.name !== undefined && !(inline && INLINE.has(t.name)))
      throw refuse(
        'inline',
        `${where}: <${t.name}> is not allowed here (a <seg> holds text and <bpt>, <ept>, <ph>, <it>, <ut>, <hi>, <sub>; markup in a message is written escaped, as &lt;b&gt;)`,
      );
  }
  return out + decodeText(raw.slice(from), where);
}

/**
 * The markup at a `<`: CDATA (1: its text), a comment, a PI, the DOCTYPE checkDoctype let through, or the start of
 * a tag (2: `/` when it closes, 3: its name). Matched only where a `<` is (sticky), so an unterminated comment costs
 * one look to the end, not one per `<`.
 */
const MARKUP = /<!\[CDATA\[([\s\S]*?)\]\]>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!DOCTYPE[^>]*>|<(\/?)([^\s/>!?<="']+)/y;
/** One attribute of a tag, and a tag's end: read in a loop, as one pattern repeating per attribute overflows V8's stack. */
const ATTR = /\s+([^\s=/><"']+)\s*=\s*(?:"([^"]*)"|'([^']*)')/y;
const TAG_END = /\s*(\/?)>/y;

const notUnderstood = (text: string, at: number, where: string | null) =>
  refuse('malformed', `${where ?? `line ${lineOf(text, at)}`}: invalid XML (markup not understood)`);

interface Token {
  end: number;
  /** CDATA's text. */
  cdata?: string;
  /** A tag's name, whether it closes, whether it is empty (`<x/>`) and its attributes. */
  name?: string;
  close?: boolean;
  empty?: boolean;
  attrs?: Attrs;
}

/** The markup at `at` (a `<`); anything else there is refused. Attributes are read only when `withAttrs`. */
function token(text: string, at: number, where: string | null, withAttrs: boolean): Token {
  MARKUP.lastIndex = at;
  const m = MARKUP.exec(text);
  if (!m) throw notUnderstood(text, at, where);
  if (m[3] === undefined) return { end: MARKUP.lastIndex, cdata: m[1] };
  const attrs: Attrs | undefined = withAttrs ? (Object.create(null) as Attrs) : undefined;
  let i = MARKUP.lastIndex;
  for (;;) {
    ATTR.lastIndex = i;
    const a = ATTR.exec(text);
    if (!a) break;
    i = ATTR.lastIndex;
    if (attrs) {
      if (a[1] in attrs)
        throw refuse(
          'malformed',
          `${where ?? `line ${lineOf(text, at)}`}: invalid XML (the attribute ${a[1]} is repeated)`,
        );
      attrs[a[1]] = a[2] ?? a[3];
    }
  }
  TAG_END.lastIndex = i;
  const e = TAG_END.exec(text);
  const close = m[2] === '/';
  if (!e || (close && (i !== MARKUP.lastIndex || e[1]))) throw notUnderstood(text, at, where);
  return { end: TAG_END.lastIndex, name: m[3], close, empty: e[1] === '/', attrs };
}

/** `YYYYMMDDThhmmssZ` (TMX 1.4b) as epoch milliseconds; null for anything else, which no memory needs to refuse. */
function fromTmxDate(s: string | null): number | null {
  const m = s ? /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s) : null;
  if (!m) return null;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number);
  const ms = Date.UTC(y, mo - 1, d, h, mi, se);
  const back = new Date(ms);
  // Date.UTC rolls 20240231 over to March 2: such a date is none.
  const same =
    back.getUTCFullYear() === y &&
    back.getUTCMonth() === mo - 1 &&
    back.getUTCDate() === d &&
    back.getUTCHours() === h &&
    back.getUTCMinutes() === mi &&
    back.getUTCSeconds() === se;
  return same ? ms : null;
}

/**
 * Whether a file's language `lang` is the language `wanted`: exactly, else the same language and script where one
 * side names no region (a file's `de-DE` is a project's `de`, its `de` a project's `de-at`; `de-AT` is not `de-DE`,
 * `zh-TW`, written in Hant, not `zh-Hans`). Both canonical (`canonicalLanguage`).
 */
function sameLanguage(lang: string, wanted: string): boolean {
  if (lang === wanted) return true;
  const noRegion = (c: string) => !new Intl.Locale(c).region;
  return (noRegion(lang) || noRegion(wanted)) && sameLanguageAndScript(lang, wanted);
}

/** The wanted languages as a matcher from a file's code to the wanted one it is (exact first), cached per code. */
function languageMatcher(wanted: readonly string[] | undefined): (lang: string) => string | null {
  const list = wanted?.map((w) => {
    const c = canonicalLanguage(w);
    if (!c) throw refuse('language', `${JSON.stringify(w)} is not a language code`);
    return c;
  });
  const cache = new Map<string, string | null>();
  return (lang) => {
    if (!list) return lang;
    let hit = cache.get(lang);
    if (hit === undefined) {
      hit = list.find((w) => w === lang) ?? list.find((w) => sameLanguage(lang, w)) ?? null;
      cache.set(lang, hit);
    }
    return hit;
  };
}

/** A file's language code normalised (`EN_us` → `en-us`), refused when it is no BCP 47 tag. */
function normaliseLanguage(code: string | null, where: string): string {
  const c = code === null ? null : canonicalLanguage(code);
  if (!c)
    throw refuse(
      'language',
      `${where}: ${code === null ? 'no xml:lang' : `${JSON.stringify(code)} is not a language code`}`,
    );
  return c;
}

/**
 * Reads a TMX file (1.1 to 1.4b) into language pairs: each `<tu>`'s source `<tuv>` (the language its `srclang` or
 * the header's names; with `*all*`, the wanted source) with each of its other `<tuv>`s. Bytes are decoded as the file
 * says; a string is taken as decoded text. Refuses with a `TmxError` (a `FormatError`) anything but a TMX file.
 */
export function parseTmx(input: string | Uint8Array, options: TmxParseOptions = {}): TmxParsed {
  const max = options.maxBytes ?? TMX_MAX_BYTES;
  const size = typeof input === 'string' ? overLimit(input, max) : input.byteLength > max ? input.byteLength : null;
  if (size !== null)
    throw refuse('too_large', `the file is over ${max} bytes (${size}${typeof input === 'string' ? ' or more' : ''})`);
  let text = typeof input === 'string' ? input : decode(input);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!/\S/.test(text)) throw refuse('empty', 'the file is empty');
  if (!/^\s*</.test(text)) throw refuse('not_tmx', 'the file is not XML, so not TMX');

  const control = RAW_NOT_XML.exec(text);
  if (control)
    throw refuse(
      'malformed',
      `line ${lineOf(text, control.index)}: the character U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} is not allowed in XML 1.0`,
    );
  checkDoctype(text);
  // XML's end-of-line handling: a file saved on Windows reads as one saved anywhere (`&#13;` stays a carriage return).
  if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');

  const reader = new UnitReader(options);
  scan(text, reader);
  return reader.result();
}

/** A `<tu>` as the scan found it: attributes, its props' raw content, and each `<tuv>`'s attributes and raw `<seg>`s. */
interface RawUnit {
  attrs: Attrs;
  props: Array<{ attrs: Attrs; raw: string }>;
  tuvs: Array<{ attrs: Attrs; segs: Array<{ raw: string }> }>;
}

/**
 * One pass over the document without building a tree (fast-xml-parser's tree of a 60 MB memory holds 570 MB of heap,
 * docs/decisions/0022-tmx.md): the `<tmx>`
 * root, its `<header>` and each `<tu>` handed to `reader` as it closes. `<seg>` and `<prop>` contents are sliced raw
 * for `segText`.
 */
function scan(text: string, reader: UnitReader) {
  const stack: string[] = [];
  let rootSeen = false;
  let unit: RawUnit | null = null;
  // The element whose raw content is being collected (a <seg> or <prop>), its depth and where its content starts.
  let capture: { depth: number; from: number; into: { raw: string } } | null = null;
  let last = 0;
  for (;;) {
    const lt = text.indexOf('<', last);
    if (stack.length === 0 && text.slice(last, lt === -1 ? text.length : lt).trim() !== '')
      throw refuse('malformed', `invalid XML: text outside the root element on line ${lineOf(text, last)}`);
    if (lt === -1) break;
    const { end, name, close, empty, attrs = {}, cdata } = token(text, lt, null, !capture);
    last = end;
    if (name === undefined) {
      // CDATA, a comment, a PI, the DOCTYPE: part of a captured element's text, else nothing (CDATA is no prolog).
      if (stack.length === 0 && cdata !== undefined)
        throw refuse('malformed', `invalid XML: CDATA outside the root element on line ${lineOf(text, lt)}`);
      continue;
    }
    if (close) {
      const open = stack.pop();
      if (open !== name)
        throw refuse(
          'malformed',
          `invalid XML: </${name}> on line ${lineOf(text, lt)} closes ${open ? `<${open}>` : 'no element'}`,
        );
      if (capture && stack.length === capture.depth) {
        capture.into.raw = text.slice(capture.from, lt);
        capture = null;
      } else if (name === 'tu' && unit && stack.length === 2) {
        reader.unit(unit);
        unit = null;
      }
      continue;
    }
    if (capture) {
      // Inline elements of a <seg>: segText reads them from the slice.
      if (!empty) stack.push(name);
      continue;
    }
    const depth = stack.length;
    const parent = stack[depth - 1];
    let into: { raw: string } | null = null;
    if (depth === 0) {
      if (rootSeen) throw refuse('malformed', 'invalid XML: more than one root element');
      rootSeen = true;
      reader.root(name, attrs);
    } else if (depth === 1 && name === 'header') reader.header(attrs);
    else if (depth === 2 && parent === 'body' && name === 'tu') unit = { attrs, props: [], tuvs: [] };
    else if (depth === 3 && parent === 'tu' && unit) {
      if (name === 'tuv') unit.tuvs.push({ attrs, segs: [] });
      else if (name === 'prop') {
        const prop = { attrs, raw: '' };
        unit.props.push(prop);
        into = prop;
      }
    } else if (depth === 4 && parent === 'tuv' && unit && name === 'seg') {
      unit.tuvs[unit.tuvs.length - 1].segs.push((into = { raw: '' }));
    }
    if (!empty) {
      stack.push(name);
      if (into) capture = { depth, from: last, into };
    } else if (unit && depth === 2 && name === 'tu') {
      // An empty <tu/>: no source, refused as any unit without one. An empty <seg/> or <prop/> stays ''.
      reader.unit(unit);
      unit = null;
    }
  }
  if (!rootSeen) throw refuse('not_tmx', 'the file is not XML (no root element), so not TMX');
  if (stack.length) throw refuse('malformed', `invalid XML: <${stack[stack.length - 1]}> is not closed`);
}

/** Turns each unit the scan hands over into entries, as `parseTmx` describes. */
class UnitReader {
  private readonly out: TmxParsed = {
    header: { sourceLanguage: null, creationTool: null, creationToolVersion: null, originalFormat: null },
    entries: [],
    skipped: [],
    units: 0,
    emptySegments: 0,
    unitsWithoutSource: 0,
  };
  private readonly skippedPairs = new Map<string, TmxSkippedPair>();
  private srclang: string | null = null;
  private readonly wantedSource: string | null;
  private readonly matchSource: (lang: string) => string | null;
  private readonly matchTarget: (lang: string) => string | null;
  private readonly isSourceCache = new Map<string, boolean>();
  private readonly languages = new Map<string, string>();

  constructor(options: TmxParseOptions) {
    this.matchSource = languageMatcher(options.sourceLanguage === undefined ? undefined : [options.sourceLanguage]);
    this.matchTarget = languageMatcher(options.targetLanguages);
    this.wantedSource = options.sourceLanguage === undefined ? null : canonicalLanguage(options.sourceLanguage);
  }

  root(name: string, attrs: Attrs) {
    if (name !== 'tmx') throw refuse('not_tmx', `the file is XML but not TMX: its root is <${name}>, not <tmx>`);
    const version = attr(attrs, 'version', '<tmx>');
    if (version !== null && !/^1(\.|$)/.test(version.trim()))
      throw refuse('not_tmx', `TMX version ${version} is not read (1.1 to 1.4b are)`);
  }

  header(attrs: Attrs) {
    const srclang = attr(attrs, 'srclang', '<header>');
    this.srclang = srclang;
    this.out.header = {
      sourceLanguage: srclang === null ? null : isAll(srclang) ? ALL_LANGUAGES : this.language(srclang, '<header>'),
      creationTool: attr(attrs, 'creationtool', '<header>'),
      creationToolVersion: attr(attrs, 'creationtoolversion', '<header>'),
      originalFormat: attr(attrs, 'o-tmf', '<header>'),
    };
  }

  /** A file's language code normalised (`EN_us` → `en-us`), cached: a file repeats a few codes. */
  private language(code: string | null, where: string): string {
    let c = code === null ? undefined : this.languages.get(code);
    if (c === undefined) {
      c = normaliseLanguage(code, where);
      if (code !== null) this.languages.set(code, c);
    }
    return c;
  }

  /** Whether a `<tuv>` in `lang` is the source `src` (same rule as the wanted languages), cached. */
  private isSource(src: string, lang: string): boolean {
    const k = `${src}\u0000${lang}`;
    let hit = this.isSourceCache.get(k);
    if (hit === undefined) this.isSourceCache.set(k, (hit = sameLanguage(lang, src)));
    return hit;
  }

  private skip(sourceLanguage: string, targetLanguage: string) {
    const k = `${sourceLanguage}\u0000${targetLanguage}`;
    const s = this.skippedPairs.get(k) ?? { sourceLanguage, targetLanguage, count: 0 };
    if (s.count++ === 0) this.skippedPairs.set(k, s);
  }

  unit(raw: RawUnit) {
    const out = this.out;
    out.units++;
    const tuid = attr(raw.attrs, 'tuid', '<tu>');
    const where = `translation unit ${out.units}${tuid ? ` (tuid ${JSON.stringify(tuid)})` : ''}`;
    const tuSrc = attr(raw.attrs, 'srclang', where) ?? this.srclang;
    const anySource = tuSrc === null || isAll(tuSrc);
    let src: string;
    if (anySource) {
      if (!this.wantedSource)
        throw refuse(
          'no_source',
          `${where}: the file names ${tuSrc === null ? 'no source language (no srclang)' : 'every language as a source (srclang *all*)'}: name the source language to read it`,
        );
      src = this.wantedSource;
    } else src = this.language(tuSrc, where);

    const tuvs = raw.tuvs.map((tuv, i) => {
      const at = `${where}, <tuv> ${i + 1}`;
      if (tuv.segs.length > 1) throw refuse('malformed', `${at}: a <tuv> holds one <seg>, not ${tuv.segs.length}`);
      return {
        lang: this.language(attr(tuv.attrs, 'xml:lang', at) ?? attr(tuv.attrs, 'lang', at), at),
        text: tuv.segs.length ? segText(tuv.segs[0].raw, at) : '',
        created: fromTmxDate(attr(tuv.attrs, 'creationdate', at)),
        changed: fromTmxDate(attr(tuv.attrs, 'changedate', at)),
      };
    });
    // The source <tuv>: its language exactly, else the same language where one side names no region (a header's
    // `en` over `en-US` units; under `*all*`, the wanted `en`).
    const source = tuvs.find((t) => t.lang === src) ?? tuvs.find((t) => this.isSource(src, t.lang));
    if (!source) {
      if (anySource) {
        out.unitsWithoutSource++;
        return;
      }
      throw refuse('no_source', `${where}: no <tuv> in its source language ${bcp47(src)}`);
    }

    const fields: Record<PropField, string | null> = {
      ctx: null,
      key: null,
      project: null,
      origin: null,
      status: null,
    };
    for (const prop of raw.props) {
      const type = attr(prop.attrs, 'type', `${where}, <prop>`);
      const field = PROP_FIELDS.find((f) => PROPS[f] === type);
      if (field) fields[field] = segText(prop.raw, `${where}, <prop type="${type}">`, false);
    }
    const created = fromTmxDate(attr(raw.attrs, 'creationdate', where));
    const changed = fromTmxDate(attr(raw.attrs, 'changedate', where));
    const sourceLanguage = this.matchSource(source.lang);

    for (const target of tuvs) {
      if (target === source) continue;
      if (source.text === '' || target.text === '') {
        out.emptySegments++;
        continue;
      }
      const targetLanguage = this.matchTarget(target.lang);
      if (sourceLanguage === null || targetLanguage === null || targetLanguage === sourceLanguage) {
        this.skip(source.lang, target.lang);
        continue;
      }
      out.entries.push({
        sourceLanguage,
        targetLanguage,
        source: source.text,
        target: target.text,
        ...fields,
        createdAt: target.created ?? created ?? source.created,
        updatedAt: target.changed ?? changed ?? target.created ?? created,
      });
    }
  }

  result(): TmxParsed {
    this.out.skipped = [...this.skippedPairs.values()];
    return this.out;
  }
}

const isAll = (s: string) => s.trim().toLowerCase() === ALL_LANGUAGES;
/** An attribute's value, decoded, with tabs and newlines as spaces (XML's attribute-value normalisation). */
const attr = (attrs: Attrs, name: string, where: string): string | null =>
  Object.hasOwn(attrs, name) ? decodeText(attrs[name].replace(/[\t\n]/g, ' '), where) : null;
