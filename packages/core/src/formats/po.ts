// GNU gettext PO/POT, through gettext-parser. One language per file: msgid is the base language's text, msgctxt the
// context, msgstr the translation; msgstr[n] of a plural entry maps to the language's CLDR categories. A file read
// from PO (its msgid its key) is written back as it was; a project's messages are converted (renderPo).
import { po as gettextPo, type GetTextTranslation, type GetTextTranslations } from 'gettext-parser';
import {
  dict,
  FormatError,
  own,
  type Catalog,
  type CatalogEntry,
  type CatalogValue,
  type FormatModule,
  type RenderOptions,
} from '../catalog.js';
import { collapse, describe, flatten, splitOptions, writeLeaf, type Flat, type Part, type Warn } from '../convert.js';
import { icuToForms, pluralCategories } from '../icu.js';
import { fileSpelling, hasExt, icuText, UNKNOWN_LANGUAGE, valueFor } from './json.js';
import { languageKey, platformLocale } from '../languages.js';
import { manyNumbers } from '../plural-coverage.js';
import { gettextRefusal } from './gettext-check.js';

const invalid = (message: string) => new FormatError('invalid_argument', message);

// gettext orders msgstr[n] like CLDR orders categories for the languages whose Plural-Forms follow CLDR (Transifex,
// Django, Weblate), so index n is the n-th category. When the count disagrees, these are the usual shapes by count.
const BY_COUNT: Record<number, string[]> = {
  1: ['other'],
  2: ['one', 'other'],
  3: ['one', 'few', 'other'],
  4: ['one', 'few', 'many', 'other'],
  5: ['one', 'two', 'few', 'many', 'other'],
  6: ['zero', 'one', 'two', 'few', 'many', 'other'],
};

export function categoriesFor(lang: string | null, nplurals: number): string[] {
  if (lang) {
    try {
      const cats = pluralCategories(lang);
      if (cats.length === nplurals) return cats;
    } catch {
      // an unknown Language header: fall back on the count
    }
  }
  return BY_COUNT[nplurals] ?? [...Array(nplurals).keys()].map((i) => (i === nplurals - 1 ? 'other' : `=${i}`));
}

// Plural-Forms expressions whose indexes follow the CLDR category order of the language (as Transifex writes them).
const RU =
  '(n % 10 == 1 && n % 100 != 11 ? 0 : n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14) ? 1 : n % 10 == 0 || (n % 10 >= 5 && n % 10 <= 9) || (n % 100 >= 11 && n % 100 <= 14) ? 2 : 3)';
const ROMANCE_MANY = '(n == 1 ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2)';
const FR_MANY = '((n == 0 || n == 1) ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2)';
const HR = '(n % 10 == 1 && n % 100 != 11 ? 0 : n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14) ? 1 : 2)';
const PLURAL_EXPR: Record<string, string> = {
  fr: FR_MANY,
  pt: FR_MANY,
  'pt-pt': ROMANCE_MANY,
  es: ROMANCE_MANY,
  it: ROMANCE_MANY,
  ca: ROMANCE_MANY,
  ru: RU,
  uk: RU,
  be: RU,
  pl: '(n == 1 ? 0 : n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14) ? 1 : n != 1 && n % 10 >= 0 && n % 10 <= 1 || n % 10 >= 5 && n % 10 <= 9 || n % 100 >= 12 && n % 100 <= 14 ? 2 : 3)',
  cs: '((n == 1 && n % 1 == 0) ? 0 : (n >= 2 && n <= 4 && n % 1 == 0) ? 1 : (n % 1 != 0) ? 2 : 3)',
  sk: '((n == 1 && n % 1 == 0) ? 0 : (n >= 2 && n <= 4 && n % 1 == 0) ? 1 : (n % 1 != 0) ? 2 : 3)',
  lt: '(n % 10 == 1 && (n % 100 > 19 || n % 100 < 11) ? 0 : (n % 10 >= 2 && n % 10 <= 9) && (n % 100 > 19 || n % 100 < 11) ? 1 : n % 1 != 0 ? 2 : 3)',
  ar: '(n == 0 ? 0 : n == 1 ? 1 : n == 2 ? 2 : n % 100 >= 3 && n % 100 <= 10 ? 3 : n % 100 >= 11 && n % 100 <= 99 ? 4 : 5)',
  he: '((n == 1 && n % 1 == 0) ? 0 : (n == 2 && n % 1 == 0) ? 1 : 2)',
  ro: '(n == 1 ? 0 : (n == 0 || (n % 100 > 0 && n % 100 < 20)) ? 1 : 2)',
  hr: HR,
  sr: HR,
  bs: HR,
  sl: '(n % 100 == 1 ? 0 : n % 100 == 2 ? 1 : n % 100 == 3 || n % 100 == 4 ? 2 : 3)',
  lv: '(n % 10 == 0 || n % 100 >= 11 && n % 100 <= 19 ? 0 : n % 10 == 1 && n % 100 != 11 ? 1 : 2)',
  ga: '(n == 1 ? 0 : n == 2 ? 1 : n >= 3 && n <= 6 ? 2 : n >= 7 && n <= 10 ? 3 : 4)',
  cy: '(n == 0 ? 0 : n == 1 ? 1 : n == 2 ? 2 : n == 3 ? 3 : n == 6 ? 4 : 5)',
  mk: '(n % 10 == 1 && n % 100 != 11 ? 0 : 1)',
  is: '(n % 10 != 1 || n % 100 == 11)',
  // one = 0 and 1
  hi: '(n > 1)',
  bn: '(n > 1)',
  fa: '(n > 1)',
  gu: '(n > 1)',
  kn: '(n > 1)',
  am: '(n > 1)',
  zu: '(n > 1)',
  as: '(n > 1)',
};

/**
 * Categories (msgstr order) and the Plural-Forms expression to write for a language; `known` is false when no
 * expression is known for its categories and only `other` is written (the renderer warns of each plural).
 */
function pluralFormsFor(lang: string): { categories: string[]; expr: string; known: boolean } {
  let cats: string[];
  try {
    cats = pluralCategories(lang);
  } catch {
    return { categories: ['one', 'other'], expr: '(n != 1)', known: true };
  }
  const tag = languageKey(lang);
  const expr = own(PLURAL_EXPR, tag) ?? own(PLURAL_EXPR, tag.split('-')[0]);
  if (expr) return { categories: cats, expr, known: true };
  if (cats.length === 1) return { categories: cats, expr: '0', known: true };
  if (cats.length === 2 && cats[0] === 'one') return { categories: cats, expr: '(n != 1)', known: true };
  return { categories: ['other'], expr: '0', known: false };
}

const splitLines = (s: string | undefined) => (s ? s.split('\n') : []);

const orderKey = (ctx: string | null | undefined, msgid: string) => `${ctx ?? ''}\u0004${msgid}`;

const PO_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v' };
const unquote = (s: string) => s.replace(/\\(.)/g, (_m, c: string) => own(PO_ESCAPES, c) ?? c);

/**
 * Position of each (msgctxt, msgid) in the file. gettext-parser groups messages by context, which would move
 * `msgctxt` entries away from their neighbours; this light scan restores the file's order.
 */
function fileOrder(text: string): Map<string, number> {
  const order = new Map<string, number>();
  let field: 'ctx' | 'id' | null = null;
  let ctx: string | null = null;
  let id = '';
  const finish = () => {
    if (field === 'id' && !order.has(orderKey(ctx, id))) order.set(orderKey(ctx, id), order.size);
    if (field === 'id') ctx = null;
    field = null;
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const str = /^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)?\s*"(.*)"$/.exec(line);
    if (!str) {
      finish();
      continue;
    }
    const [, keyword, body] = str;
    if (keyword === 'msgctxt') {
      finish();
      field = 'ctx';
      ctx = unquote(body);
    } else if (keyword === 'msgid') {
      if (field !== 'ctx') finish();
      field = 'id';
      id = unquote(body);
    } else if (keyword) {
      finish();
    } else if (field === 'ctx') {
      ctx += unquote(body);
    } else if (field === 'id') {
      id += unquote(body);
    }
  }
  finish();
  return order;
}

function parsePo(text: string): Catalog {
  let po: GetTextTranslations;
  try {
    po = gettextPo.parse(text);
  } catch (e) {
    throw invalid(`invalid PO: ${(e as Error).message}`);
  }
  const headers = po.headers ?? {};
  const language = headers.Language?.trim() || null;
  const nplurals = Number(/nplurals\s*=\s*(\d+)/.exec(headers['Plural-Forms'] ?? '')?.[1] ?? 2);
  const cats = categoriesFor(language, nplurals);
  const lang = language ?? UNKNOWN_LANGUAGE;

  const entries: CatalogEntry[] = [];
  let headerComments: GetTextTranslation['comments'] | undefined;
  for (const [ctx, byId] of Object.entries(po.translations)) {
    for (const [msgid, t] of Object.entries(byId)) {
      if (ctx === '' && msgid === '') {
        headerComments = t.comments;
        continue;
      }
      // The Language header names the values' language: a dict keeps even `__proto__` as data.
      const entry: CatalogEntry = { fileKey: msgid, values: dict() };
      if (t.msgctxt !== undefined) entry.ctx = t.msgctxt;
      const c = t.comments ?? {};
      const comment = [c.extracted, c.translator].filter((s) => s).join('\n');
      if (comment) entry.comment = comment;
      const meta: Record<string, unknown> = {};
      if (c.translator) meta.translatorComment = c.translator;
      if (c.extracted) meta.extractedComment = c.extracted;
      if (c.reference) meta.references = splitLines(c.reference);
      if (c.previous) meta.previous = c.previous;
      const flags = (c.flag ?? '')
        .split(',')
        .map((f) => f.trim())
        .filter(Boolean);
      if (flags.length) meta.flags = flags;
      const state = flags.includes('fuzzy') ? { state: 'fuzzy' } : {};
      if (t.msgid_plural !== undefined) {
        meta.msgidPlural = t.msgid_plural;
        if (t.msgstr.some((s) => s)) {
          const forms = dict<string>();
          t.msgstr.forEach((s, i) => {
            forms[cats[i] ?? `=${i}`] = s;
          });
          entry.values[lang] = { kind: 'plural', forms, arg: 'n', ...state };
        }
      } else if (t.msgstr[0]) {
        entry.values[lang] = { kind: 'text', text: t.msgstr[0], ...state };
      }
      if (Object.keys(meta).length) entry.meta = meta;
      entries.push(entry);
    }
  }
  const order = fileOrder(text);
  const pos = (e: CatalogEntry) => order.get(orderKey(e.ctx, e.fileKey)) ?? Number.MAX_SAFE_INTEGER;
  entries.sort((a, b) => pos(a) - pos(b));
  const meta: Record<string, unknown> = { headers };
  if (headerComments?.translator) meta.headerComment = headerComments.translator;
  if (headerComments?.flag) meta.headerFlags = headerComments.flag;
  return { format: 'po', sourceLanguage: null, language, entries, meta };
}

// ---------------------------------------------------------------------------------------------------------------
// A project's messages as gettext programs look them up. msgid is the base language's text, msgctxt the key's ctx,
// msgid_plural the `other` form; the key name is an extracted comment. Placeholders are python-brace-format
// (`{name}`, a plural's `#` as `{count}`, literal braces doubled), the flavour Python's gettext, Babel and Django's
// `format()` read. What gettext cannot express falls back as README "What each file can express" says, with a warning.

/** A message reduced to what gettext can hold: one text, or one cardinal plural of texts by CLDR category. */
type Shape = { kind: 'text'; parts: Part[] } | { kind: 'plural'; name: string; forms: Record<string, Part[]> };

const leafParts = (f: Flat | undefined): Part[] => (f?.kind === 'leaf' ? f.parts : []);

/** `icu` as gettext can hold it; each fallback applied is told to `warn`. */
function shapeOf(icu: string, warn: Warn): Shape {
  const flat = flatten(icu);
  if (!flat) {
    warn('not an ICU message: written as it is');
    return { kind: 'text', parts: [{ type: 'text', text: icu }] };
  }
  let plural: string | null = null;
  const kept = collapse(
    flat,
    (node) => {
      if (node.kind === 'select') return `${describe(node)} (gettext chooses forms by a number only)`;
      if (node.ordinal) return `${describe(node)} (gettext has no ordinal forms)`;
      if (plural !== null) return `${describe(node)} inside plural {${plural}} (a gettext message has one plural)`;
      plural = node.name;
      return null;
    },
    warn,
  );
  if (kept.kind === 'leaf') return { kind: 'text', parts: kept.parts };
  // What collapse kept is the one cardinal plural, every option a leaf.
  const forms = dict<Part[]>();
  const { categories, exact } = splitOptions(kept.options);
  for (const key of exact) warn(`\`${key}\` of plural {${kept.name}} dropped (gettext chooses forms by category only)`);
  for (const c of categories) forms[c] = leafParts(kept.options[c]);
  if (kept.kind === 'plural' && kept.offset)
    warn(
      `plural {${kept.name}} offset:${kept.offset}: gettext has no offset; the app passes {${kept.name}} minus ${kept.offset} to ngettext and format()`,
    );
  return { kind: 'plural', name: kept.name, forms };
}

/** The message needs `str.format()`: it has a placeholder or a literal brace (written doubled). */
const isFormat = (shape: Shape) =>
  (shape.kind === 'text' ? [shape.parts] : Object.values(shape.forms)).some((parts) =>
    parts.some((p) => p.type !== 'text' || /[{}]/.test(p.text)),
  );

/** A sentence in python-brace-format (`format`) or as plain text. Numbers and dates are the app's to format. */
function writeParts(parts: Part[], format: boolean, warn: Warn): string {
  const typed = (p: Extract<Part, { type: 'number' | 'date' | 'time' }>) => {
    if (p.type !== 'number' || p.style !== null)
      warn(`{${p.name}, ${p.type}${p.style ? `, ${p.style}` : ''}} written as {${p.name}}: the app formats it`);
    return `{${p.name}}`;
  };
  return writeLeaf(parts, {
    text: (p) => (format ? p.text.replace(/[{}]/g, '$&$&') : p.text),
    arg: (p) => `{${p.name}}`,
    count: (p) => `{${p.name}}`,
    number: typed,
    date: typed,
    time: typed,
  });
}

/** The base language's value of an entry built from a project, or null for an entry read from a PO file. */
function sourceOf(entry: CatalogEntry, baseLanguage: string): string | null {
  if (entry.source) return icuText(entry.source);
  const base = languageKey(baseLanguage);
  for (const [lang, v] of Object.entries(entry.values)) if (languageKey(lang) === base) return icuText(v);
  return null;
}

/** What identifies a gettext message, and what the source says of it. */
interface PoIdentity {
  ctx: string | null;
  msgid: string;
  msgidPlural?: string;
  format: boolean;
  /** Its flags but `fuzzy` (a synced template's, and python-brace-format when `format`). */
  flags: string[];
  /** The entry came from a project (else it is a PO file's own message, written back as the file had it). */
  project: boolean;
}

function identityOf(entry: CatalogEntry, baseLanguage: string): PoIdentity {
  const ctx = entry.ctx ?? null;
  const source = sourceOf(entry, baseLanguage);
  if (source === null) {
    const m = entry.meta ?? {};
    const msgidPlural = typeof m.msgidPlural === 'string' ? m.msgidPlural : undefined;
    return { ctx, msgid: entry.fileKey, msgidPlural, format: false, flags: flagsOf(entry, false), project: false };
  }
  // The source's fallbacks are reported by the base language's file, which writes the same shape as its msgstr.
  const shape = shapeOf(source, () => {});
  const format = isFormat(shape);
  const flags = flagsOf(entry, format);
  const quiet = () => {};
  if (shape.kind === 'text')
    return { ctx, msgid: writeParts(shape.parts, format, quiet), format, flags, project: true };
  const other = shape.forms.other ?? [];
  const msgid = writeParts(shape.forms.one ?? other, format, quiet);
  // msgfmt refuses a translated message whose msgid and msgid_plural differ in a leading or trailing newline; the
  // program looks the message up by msgid alone (gettext's catalogs and Python's key plural entries by msgid), so
  // msgid_plural takes msgid's newlines as every msgstr does (newlinesOf).
  const msgidPlural = newlinesOf(msgid, writeParts(other, format, quiet));
  return { ctx, msgid, msgidPlural, format, flags, project: true };
}

/** The msgstr (or msgstr[n], by `categories`) of a project entry in `lang`. */
function msgstrsOf(
  id: PoIdentity,
  v: CatalogValue | undefined,
  categories: string[],
  lang: string,
  warn: Warn,
): string[] {
  if (!v) return id.msgidPlural !== undefined ? categories.map(() => '') : [''];
  const shape = shapeOf(icuText(v), warn);
  const write = (parts: Part[]) => newlinesOf(id.msgid, writeParts(parts, id.format, warn));
  if (id.msgidPlural === undefined) {
    if (shape.kind === 'text') return coveredForms(id, [write(shape.parts)], categories, lang, warn);
    warn(`plural {${shape.name}} of a message whose source has none: written as its \`other\` form`);
    return coveredForms(id, [write(shape.forms.other ?? [])], categories, lang, warn);
  }
  const msgstrs =
    shape.kind === 'text'
      ? categories.map(() => write(shape.parts))
      : categories.map((c) => write(own(shape.forms, c) ?? shape.forms.other ?? []));
  return coveredForms(id, msgstrs, categories, lang, warn);
}

/**
 * The msgstrs as written: a message `msgfmt --check` would refuse (gettext-check.ts) is written untranslated, which
 * gettext answers with msgid or msgid_plural, and the renderer says so. The publish gates refuse most such cells (a
 * Russian `one`, 1, 21, 31, …, without the number: packages/core/src/plural-coverage.ts), but a file's own import, a
 * restored version, the source baked in for a missing cell, or a flag the gates do not read (a synced template's
 * `python-format`) can still bring one.
 */
function coveredForms(id: PoIdentity, msgstrs: string[], categories: string[], lang: string, warn: Warn): string[] {
  const plural = id.msgidPlural !== undefined;
  const numbers = (n: number) => (plural ? manyNumbers(lang, categories[n]) : null);
  const refusal = gettextRefusal(id.flags, id.msgid, id.msgidPlural, msgstrs, (n) => numbers(n) !== null);
  if (!refusal) return msgstrs;
  const many = numbers(refusal.form);
  const where = !plural
    ? 'the translation'
    : `plural form \`${categories[refusal.form]}\`${many ? ` stands for ${many.slice(0, 3).join(', ')}, … in ${lang} but` : ''}`;
  warn(`${where} ${refusal.problem}: gettext refuses it, so the message is written untranslated`);
  return msgstrs.map(() => '');
}

const identityKey = (id: PoIdentity) => JSON.stringify([id.ctx, id.msgid]);
const identityName = (id: PoIdentity) => (id.ctx === null ? id.msgid : `${id.ctx} | ${id.msgid}`);

/**
 * Keys that gettext would have to hold as one message but cannot: the same msgctxt and msgid with a different
 * msgid_plural or a different msgstr in one of `languages`. Keys that agree everywhere are one message (the renderer
 * lists each key name): nothing is lost, so nothing is refused. packages/core/src/collisions.ts answers these as
 * `export_collision`; the renderer merges by the same identity, so the two agree by construction.
 */
export function poCollisions(
  catalog: Catalog,
  opts: { languages: string[]; baseLanguage: string },
): Array<{ name: string; entries: number[] }> {
  const groups = new Map<string, { id: PoIdentity; entries: number[] }>();
  catalog.entries.forEach((entry, i) => {
    const id = identityOf(entry, opts.baseLanguage);
    const key = identityKey(id);
    const g = groups.get(key);
    if (g) g.entries.push(i);
    else groups.set(key, { id, entries: [i] });
  });
  const out: Array<{ name: string; entries: number[] }> = [];
  for (const { id, entries } of groups.values()) {
    if (entries.length < 2) continue;
    const contents = entries.map((i) => contentOf(catalog.entries[i], opts));
    if (contents.some((c) => c !== contents[0])) out.push({ name: identityName(id), entries });
  }
  return out;
}

/** Everything a message holds in every language but its comments, as one comparable string. */
function contentOf(entry: CatalogEntry, opts: { languages: string[]; baseLanguage: string }): string {
  const id = identityOf(entry, opts.baseLanguage);
  const quiet = () => {};
  return JSON.stringify([
    id.msgidPlural ?? null,
    ...opts.languages.map((lang) => msgstrsOf(id, valueFor(entry, lang), pluralFormsFor(lang).categories, lang, quiet)),
  ]);
}

function renderPo(catalog: Catalog, opts: RenderOptions): string {
  const lang = opts.languages[0] ?? opts.baseLanguage;
  const meta = catalog.meta ?? {};
  const fileHeaders = (meta.headers as Record<string, string> | undefined) ?? {};
  const fileCount = Number(/nplurals\s*=\s*(\d+)/.exec(fileHeaders['Plural-Forms'] ?? '')?.[1]);
  const headers: Record<string, string> = { ...fileHeaders };
  headers['MIME-Version'] ??= '1.0';
  headers['Content-Type'] ??= 'text/plain; charset=UTF-8';
  headers['Content-Transfer-Encoding'] ??= '8bit';
  let categories: string[];
  let knownForms = true;
  if (languageKey(lang) === UNKNOWN_LANGUAGE) {
    // The values of a file that named no language: write them back under the file's own plural header.
    categories = categoriesFor(null, fileCount || 2);
    headers['Plural-Forms'] ??= 'nplurals=2; plural=(n != 1);';
  } else {
    const forms = pluralFormsFor(lang);
    categories = forms.categories;
    knownForms = forms.known;
    headers.Language = platformLocale(fileSpelling(lang, catalog), 'posix');
    // The file's own expression is kept when it is for this language and has the count we write.
    const sameLanguage = catalog.language != null && languageKey(catalog.language) === languageKey(lang);
    if (!(sameLanguage && fileCount === categories.length)) {
      headers['Plural-Forms'] = `nplurals=${categories.length}; plural=${forms.expr};`;
    }
  }

  const header: GetTextTranslation = { msgid: '', msgstr: [''] };
  if (meta.headerComment || meta.headerFlags) {
    header.comments = {};
    if (typeof meta.headerComment === 'string') header.comments.translator = meta.headerComment;
    if (typeof meta.headerFlags === 'string') header.comments.flag = meta.headerFlags;
  }
  // By msgctxt, then msgid: both are user data (a ctx `constructor` or `__proto__` on plain objects reached Object
  // and Object.prototype, and the msgid was then set on them). Dicts keep them data; gettext-parser reads own keys.
  const translations: GetTextTranslations['translations'] = dict([['', dict([['', header]])]]);
  const rank = new Map<GetTextTranslation, number>();
  // Entries with one identity are one message: the first writes it, the others add their key names (poCollisions).
  const written = new Map<string, { t: GetTextTranslation; content: string; first: string; notes: string[] }>();
  for (const entry of catalog.entries) {
    const warn: Warn = (reason) => opts.warn?.({ key: entry.fileKey, lang, reason });
    const id = identityOf(entry, opts.baseLanguage);
    const v = valueFor(entry, lang);
    const t: GetTextTranslation = { msgid: id.msgid, msgstr: [''] };
    if (id.ctx !== null) t.msgctxt = id.ctx;
    if (id.project) {
      if (id.msgidPlural !== undefined) {
        t.msgid_plural = id.msgidPlural;
        if (!knownForms) warn(`plural: no gettext Plural-Forms known for ${lang}, written as its \`other\` form`);
      }
      t.msgstr = msgstrsOf(id, v, categories, lang, warn);
    } else {
      const plural = pluralOf(v, id.msgidPlural !== undefined);
      if (id.msgidPlural !== undefined || plural) {
        t.msgid_plural = id.msgidPlural ?? entry.fileKey;
        t.msgstr = categories.map((c) => newlinesOf(entry.fileKey, plural?.[c] ?? plural?.other ?? ''));
      } else if (v) {
        t.msgstr = [newlinesOf(entry.fileKey, icuText(v))];
      }
    }
    t.comments = commentsOf(entry, v, id);
    const key = identityKey(id);
    const content = JSON.stringify([t.msgid_plural ?? null, t.msgstr]);
    const seen = written.get(key);
    if (!seen) {
      written.set(key, { t, content, first: entry.fileKey, notes: t.comments.extracted ? [t.comments.extracted] : [] });
      (translations[entry.ctx ?? ''] ??= dict())[id.msgid] = t;
      rank.set(t, rank.size);
    } else if (seen.content === content) {
      const note = t.comments.extracted;
      if (note && !seen.notes.includes(note)) seen.notes.push(note);
      (seen.t.comments ??= {}).extracted = seen.notes.join('\n');
    } else {
      warn(
        `same msgctxt and msgid as ${seen.first} with another translation: gettext holds one message, ${seen.first}'s`,
      );
    }
  }
  const sort = (a: GetTextTranslation, b: GetTextTranslation) => (rank.get(a) ?? 0) - (rank.get(b) ?? 0);
  return gettextPo.compile({ charset: 'utf-8', headers, translations }, { sort }).toString('utf8');
}

/**
 * gettext refuses a message whose msgid and msgstr differ in a leading or trailing newline (msgfmt: "entries do
 * not both begin with '\n'"), so a translation takes its msgid's: the newline is layout the program prints.
 */
function newlinesOf(msgid: string, text: string): string {
  if (text === '') return text;
  let out = text;
  if (msgid.startsWith('\n') !== out.startsWith('\n'))
    out = msgid.startsWith('\n') ? `\n${out}` : out.replace(/^\n+/, '');
  if (msgid.endsWith('\n') !== out.endsWith('\n')) out = msgid.endsWith('\n') ? `${out}\n` : out.replace(/\n+$/, '');
  return out;
}

/** Forms of a value written as msgstr[n]: a plural value, or an ICU plural text of an entry that has msgid_plural. */
function pluralOf(v: CatalogValue | undefined, entryIsPlural: boolean): Record<string, string> | null {
  if (!v) return null;
  if (v.kind === 'plural') return v.forms;
  return entryIsPlural ? (icuToForms(v.text)?.forms ?? null) : null;
}

function commentsOf(
  entry: CatalogEntry,
  v: CatalogValue | undefined,
  id: PoIdentity,
): NonNullable<GetTextTranslation['comments']> {
  const m = entry.meta ?? {};
  const c: NonNullable<GetTextTranslation['comments']> = {};
  const parsedComment = [m.extractedComment, m.translatorComment].filter((s) => s).join('\n');
  if (id.project) {
    // The key name is how a team finds the message in the service; the program looks it up by its text.
    // A line ending in a backslash would continue onto the next for msgfmt's reader: a space ends it.
    c.extracted = [entry.fileKey, entry.comment]
      .filter((s) => s)
      .join('\n')
      .replace(/\\$/gm, '\\ ');
    if (typeof m.translatorComment === 'string') c.translator = m.translatorComment;
  } else if (entry.comment && entry.comment !== parsedComment) {
    c.extracted = entry.comment;
  } else {
    if (typeof m.translatorComment === 'string') c.translator = m.translatorComment;
    if (typeof m.extractedComment === 'string') c.extracted = m.extractedComment;
  }
  if (Array.isArray(m.references)) c.reference = m.references.join('\n');
  if (typeof m.previous === 'string') c.previous = m.previous;
  let flags = Array.isArray(m.flags) ? (m.flags as string[]) : [];
  if (id.format && !flags.includes(PYTHON_BRACE)) flags = [...flags, PYTHON_BRACE];
  // fuzzy follows the value: a value that is no longer in the fuzzy state drops the flag
  if (v && v.state !== 'fuzzy') flags = flags.filter((f) => f !== 'fuzzy');
  if (v?.state === 'fuzzy' && !flags.includes('fuzzy')) flags = ['fuzzy', ...flags];
  if (flags.length) c.flag = flags.join(', ');
  return c;
}

const PYTHON_BRACE = 'python-brace-format';

/** The flags msgfmt checks an entry's translations under: the file's, and python-brace-format when `format`. */
function flagsOf(entry: CatalogEntry, format: boolean): string[] {
  const flags = Array.isArray(entry.meta?.flags) ? (entry.meta.flags as string[]) : [];
  return format && !flags.includes(PYTHON_BRACE) ? [...flags, PYTHON_BRACE] : flags;
}

export const format: FormatModule = {
  id: 'po',
  detect(text, fileName) {
    const ext = hasExt(fileName, '.po', '.pot');
    if (/^\s*msgid\s+"/m.test(text) && /^\s*msgstr(\[\d+\])?\s+"/m.test(text)) return 0.9 + (ext ? 0.1 : 0);
    return ext ? 0.4 : 0;
  },
  parse: parsePo,
  render: renderPo,
};
