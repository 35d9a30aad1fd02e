// Apple String Catalog (.xcstrings): every language in one JSON file, written by Xcode in a fixed layout.
//
// Model mapping:
// - `stringUnit` → text value (with its `state`); `variations.plural` → plural value (state of the `other` form).
// - `substitutions` (`%#@name@` tokens, each a plural over `%arg`) → one ICU text where each token is
//   `{name, plural, one {… # …} other {…}}`; argNum/formatSpecifier/state per substitution go to meta.substitutions.
// - Anything else (device variations, unknown keys, forms with mixed states) is kept verbatim in meta.raw[lang], with a
//   representative value (the `other` device, or the first) so sync and translation still see the text.
import { isDeepStrictEqual } from 'node:util';
import { TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
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
import { flatten, leaves } from '../convert.js';
import { formsToIcu, parseIcu } from '../icu.js';
import { languageKey } from '../languages.js';
import { orderOf, printfSpecifiers } from '../printf.js';
import { appleMessage, type AppleOptions } from './apple.js';
import {
  icuText,
  fromPlain,
  hasExt,
  isObject,
  parseJson,
  printJson,
  sniffJson,
  toPlain,
  type JsonObject,
  type JsonValue,
  type PrintStyle,
} from './json.js';

const invalid = (message: string) => new FormatError('invalid_argument', message);

/** What render needs to rebuild one substitution of one language. */
interface SubstitutionMeta {
  /** The ICU argument name standing for the substitution in the value (`total.strings` → `total_strings`). */
  arg: string;
  argNum?: number;
  formatSpecifier?: string;
  /** State of the substitution's forms (Xcode tracks it apart from the string's own state). */
  state?: string;
}
type Substitutions = Record<string, SubstitutionMeta>;

// ---------------------------------------------------------------------------------------------------------------
// Xcode's layout

const codepointCompare = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n;) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(i)!;
    if (ca !== cb) return ca - cb;
    i += ca > 0xffff ? 2 : 1;
  }
  return a.length - b.length;
};

// Xcode orders the string keys like Foundation's localizedStandardCompare (ICU collation: case-insensitive, numeric,
// punctuation before digits before letters, so `*%lld*` sorts before `%lld`), and every other object by code point.
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'accent' });
const xcodeKeyCompare = (a: string, b: string) => collator.compare(a, b) || codepointCompare(a, b);

const XCODE_STYLE: PrintStyle = {
  indent: '  ',
  colon: ' : ',
  emptyObject: (outer) => `{\n\n${outer}}`,
  order: (path) => (path.length === 1 && path[0] === 'strings' ? xcodeKeyCompare : codepointCompare),
};

// ---------------------------------------------------------------------------------------------------------------
// Parse
//
// Every record keyed by the file's names (string keys, languages, plural categories, substitution names, unknown
// fields) is a dict: `__proto__` or `constructor` there is data to keep and write back.

const only = (m: JsonObject, allowed: readonly string[]) => [...m.keys()].every((k) => allowed.includes(k));

function readStringUnit(where: string, su: JsonValue): { value: string; state?: string } | null {
  if (!isObject(su)) throw invalid(`${where}: stringUnit must be an object`);
  const value = su.get('value');
  if (typeof value !== 'string') throw invalid(`${where}: stringUnit.value must be a string`);
  if (value === '') throw invalid(`${where}: values must be non-empty strings`);
  const state = su.get('state');
  if (state !== undefined && typeof state !== 'string') return null;
  if (!only(su, ['state', 'value'])) return null;
  return state === undefined ? { value } : { value, state };
}

/** Forms of a `plural` variation whose forms are plain string units with one state; null when it is anything richer. */
function readPlural(where: string, plural: JsonValue): { forms: Record<string, string>; state?: string } | null {
  if (!isObject(plural)) throw invalid(`${where}: variations.plural must be an object`);
  if (!plural.has('other')) throw invalid(`${where}: plural variation has no "other" form`);
  const forms = dict<string>();
  const states = new Set<string | undefined>();
  let simple = true;
  for (const [cat, node] of plural) {
    if (!isObject(node)) throw invalid(`${where}: plural form "${cat}" must be an object`);
    const su = node.get('stringUnit');
    if (su === undefined || !only(node, ['stringUnit'])) {
      simple = false;
      continue;
    }
    const unit = readStringUnit(`${where} (${cat})`, su);
    if (!unit) {
      simple = false;
      continue;
    }
    forms[cat] = unit.value;
    states.add(unit.state);
  }
  if (!simple || states.size > 1) return null;
  const state = [...states][0];
  return state === undefined ? { forms } : { forms, state };
}

const icuArgName = (name: string) => name.replace(/[^\p{L}\p{N}_]/gu, '_') || '_';

// Branch text → ICU: `%arg` is the plural's number (`#`); a literal `#` must be quoted so ICU keeps it literal.
const branchToIcu = (s: string) => s.replace(/#/g, "'#'").replace(/%arg/g, '#');
const branchFromIcu = (s: string) => s.replace(/'#'|#/g, (m) => (m === '#' ? '%arg' : '#'));

function readSubstitutions(where: string, text: string, node: JsonValue): { text: string; subs: Substitutions } | null {
  if (!isObject(node)) throw invalid(`${where}: substitutions must be an object`);
  const subs = dict<SubstitutionMeta>();
  const used = new Set<string>();
  let out = text;
  for (const [name, sub] of node) {
    if (!isObject(sub)) throw invalid(`${where}: substitution "${name}" must be an object`);
    if (!only(sub, ['argNum', 'formatSpecifier', 'variations'])) return null;
    const argNum = sub.get('argNum');
    const spec = sub.get('formatSpecifier');
    const variations = sub.get('variations');
    if (argNum !== undefined && typeof argNum !== 'number') return null;
    if (spec !== undefined && typeof spec !== 'string') return null;
    if (!isObject(variations) || !only(variations, ['plural'])) return null;
    const plural = readPlural(`${where} (${name})`, variations.get('plural')!);
    const token = `%#@${name}@`;
    if (!plural || !out.includes(token)) return null;
    let arg = icuArgName(name);
    for (let i = 2; used.has(arg); i++) arg = `${icuArgName(name)}_${i}`;
    used.add(arg);
    const forms = dict(Object.entries(plural.forms).map(([k, v]) => [k, branchToIcu(v)] as const));
    out = out.split(token).join(formsToIcu(forms, arg));
    const meta: SubstitutionMeta = { arg };
    if (argNum !== undefined) meta.argNum = argNum;
    if (spec !== undefined) meta.formatSpecifier = spec;
    if (plural.state !== undefined) meta.state = plural.state;
    subs[name] = meta;
  }
  return { text: out, subs };
}

interface Simple {
  value: CatalogValue;
  subs?: Substitutions;
}

/** A localization the model carries exactly, or null when it needs to be kept raw. */
function readSimple(where: string, node: JsonObject): Simple | null {
  if (node.has('variations')) {
    const variations = node.get('variations')!;
    if (!only(node, ['variations'])) return null;
    if (!isObject(variations)) throw invalid(`${where}: variations must be an object`);
    if (variations.size !== 1 || !variations.has('plural')) return null;
    const p = readPlural(where, variations.get('plural')!);
    if (!p) return null;
    const value: CatalogValue = { kind: 'plural', forms: p.forms };
    if (p.state !== undefined) value.state = p.state;
    return { value };
  }
  if (!node.has('stringUnit') || !only(node, ['stringUnit', 'substitutions'])) return null;
  const unit = readStringUnit(where, node.get('stringUnit')!);
  if (!unit) return null;
  const value: CatalogValue = { kind: 'text', text: unit.value };
  if (unit.state !== undefined) value.state = unit.state;
  if (!node.has('substitutions')) return { value };
  const s = readSubstitutions(where, unit.value, node.get('substitutions')!);
  if (!s) return null;
  value.text = s.text;
  return { value, subs: s.subs };
}

/**
 * The value shown for a localization kept raw: the `other` branch (or the first) of its variation, or the text of a
 * string unit with extra fields. `path` names the branch so render can replace just that branch when the value changes.
 */
function deriveRaw(where: string, node: JsonObject): { value: CatalogValue; path?: [string, string] } | undefined {
  const simple = readSimple(where, node);
  if (simple) return { value: simple.value };
  const variations = node.get('variations');
  if (isObject(variations) && variations.size > 0) {
    const [kind, branches] = [...variations][0];
    if (kind === 'plural') {
      // Forms with mixed states or extra fields: the forms' texts still make the value.
      if (!isObject(branches)) return undefined;
      const forms = dict<string>();
      let state: string | undefined;
      for (const [cat, f] of branches) {
        const su = isObject(f) ? f.get('stringUnit') : undefined;
        const v = isObject(su) ? su.get('value') : undefined;
        if (typeof v === 'string' && v) forms[cat] = v;
        if (cat === 'other' && isObject(su) && typeof su.get('state') === 'string') state = su.get('state') as string;
      }
      if (!forms.other) return undefined;
      return { value: state === undefined ? { kind: 'plural', forms } : { kind: 'plural', forms, state } };
    }
    if (!isObject(branches) || branches.size === 0) return undefined;
    const chosen = branches.has('other') ? 'other' : [...branches.keys()][0];
    const branch = branches.get(chosen);
    if (!isObject(branch)) return undefined;
    const inner = deriveRaw(`${where} (${kind} ${chosen})`, branch);
    return inner && { value: inner.value, path: [kind, chosen] };
  }
  const su = node.get('stringUnit');
  const v = isObject(su) ? su.get('value') : undefined;
  if (typeof v === 'string' && v) {
    const st = isObject(su) ? su.get('state') : undefined;
    return { value: typeof st === 'string' ? { kind: 'text', text: v, state: st } : { kind: 'text', text: v } };
  }
  return undefined;
}

function parseCatalog(text: string): Catalog {
  const root = parseJson(text);
  if (!isObject(root)) throw invalid('the file must be a JSON object');
  const sourceLanguage = root.get('sourceLanguage');
  const strings = root.get('strings');
  if (typeof sourceLanguage !== 'string' || !sourceLanguage)
    throw invalid('sourceLanguage: must be a non-empty string');
  if (!isObject(strings)) throw invalid('strings: must be an object');
  const catalogMeta: Record<string, unknown> = {};
  const rootExtra = dict<unknown>();
  for (const [k, v] of root) {
    if (k === 'version' && typeof v === 'string') catalogMeta.version = v;
    else if (k !== 'sourceLanguage' && k !== 'strings') rootExtra[k] = toPlain(v);
  }
  if (Object.keys(rootExtra).length) catalogMeta.extra = rootExtra;
  if (text.endsWith('\n')) catalogMeta.trailingNewline = true;

  const entries: CatalogEntry[] = [];
  for (const [key, e] of strings) {
    if (!isObject(e)) throw invalid(`${key}: must be an object`);
    const entry: CatalogEntry = { fileKey: key, values: dict() };
    const meta: Record<string, unknown> = {};
    const extra = dict<unknown>();
    const subs = dict<Substitutions>();
    const raw = dict<unknown>();
    for (const [field, v] of e) {
      if (field === 'comment' && typeof v === 'string') entry.comment = v;
      else if (field === 'extractionState' && typeof v === 'string') meta.extractionState = v;
      else if (field === 'shouldTranslate' && typeof v === 'boolean') meta.shouldTranslate = v;
      else if (field !== 'localizations') extra[field] = toPlain(v);
    }
    const locs = e.get('localizations');
    if (locs !== undefined) {
      if (!isObject(locs)) throw invalid(`${key}: localizations must be an object`);
      if (locs.size === 0) meta.emptyLocalizations = true;
      for (const [lang, loc] of locs) {
        const where = `${key} (${lang})`;
        if (!isObject(loc)) throw invalid(`${where}: must be an object`);
        const simple = readSimple(where, loc);
        if (simple) {
          entry.values[lang] = simple.value;
          if (simple.subs) subs[lang] = simple.subs;
          continue;
        }
        raw[lang] = toPlain(loc);
        const derived = deriveRaw(where, loc);
        if (derived) entry.values[lang] = derived.value;
      }
    }
    if (Object.keys(subs).length) meta.substitutions = subs;
    if (Object.keys(raw).length) meta.raw = raw;
    if (Object.keys(extra).length) meta.extra = extra;
    if (Object.keys(meta).length) entry.meta = meta;
    entries.push(entry);
  }
  return { format: 'xcstrings', sourceLanguage, entries, meta: catalogMeta };
}

// ---------------------------------------------------------------------------------------------------------------
// Render

const unitNode = (value: string, state: string | undefined): JsonObject => {
  const su: JsonObject = new Map();
  if (state !== undefined) su.set('state', state);
  su.set('value', value);
  return new Map([['stringUnit', su]]);
};

// Apple plural variations take CLDR categories only; an exact `=0`/`=1`/`=2` stands in for a missing category.
function appleForms(forms: Record<string, string>): Record<string, string> {
  const out = dict<string>();
  for (const [k, v] of Object.entries(forms)) if (!k.startsWith('=')) out[k] = v;
  const exact: Record<string, string> = { '=0': 'zero', '=1': 'one', '=2': 'two' };
  for (const [k, cat] of Object.entries(exact))
    if (Object.hasOwn(forms, k) && out[cat] === undefined) out[cat] = forms[k];
  return out;
}

const pluralNode = (forms: Record<string, string>, state: string | undefined): JsonObject => {
  const plural: JsonObject = new Map();
  for (const [cat, v] of Object.entries(appleForms(forms))) plural.set(cat, unitNode(v, state));
  return plural;
};

/** Splits an ICU text back into `%#@name@` tokens and their substitutions; null when it holds none of them. */
function splitSubstitutions(
  text: string,
  subs: Substitutions,
  state: string | undefined,
): { text: string; node: JsonObject } | null {
  let ast: MessageFormatElement[];
  try {
    ast = parseIcu(text, 'text');
  } catch {
    return null;
  }
  const byArg = new Map(Object.entries(subs).map(([name, m]) => [m.arg, name]));
  const node: JsonObject = new Map();
  let out = '';
  let from = 0;
  for (const el of ast) {
    if (el.type !== TYPE.plural || el.pluralType !== 'cardinal' || !byArg.has(el.value) || !el.location) continue;
    const name = byArg.get(el.value)!;
    const forms = dict<string>();
    for (const [cat, opt] of Object.entries(el.options)) {
      if (!opt.location) return null;
      forms[cat] = branchFromIcu(text.slice(opt.location.start.offset + 1, opt.location.end.offset - 1));
    }
    out += `${text.slice(from, el.location.start.offset)}%#@${name}@`;
    from = el.location.end.offset;
    const m = own(subs, name)!;
    const sub: JsonObject = new Map();
    if (m.argNum !== undefined) sub.set('argNum', m.argNum);
    if (m.formatSpecifier !== undefined) sub.set('formatSpecifier', m.formatSpecifier);
    sub.set('variations', new Map([['plural', pluralNode(forms, m.state ?? state)]]));
    node.set(name, sub);
  }
  if (!node.size) return null;
  return { text: out + text.slice(from), node };
}

// A value without a state comes from the project (an import keeps the file's state): Xcode reads it as translated.
const DEFAULT_STATE = 'translated';

function renderValue(value: CatalogValue, subs: Substitutions | undefined): JsonObject {
  let v = value;
  const state = v.state ?? DEFAULT_STATE;
  // The store hands a message that is exactly one plural back as forms; if that plural is a substitution, it stays one.
  if (v.kind === 'plural' && v.arg && subs) {
    const arg = v.arg;
    if (Object.values(subs).some((m) => m.arg === arg)) v = { kind: 'text', text: formsToIcu(v.forms, arg) };
  }
  if (v.kind === 'plural') return new Map([['variations', new Map([['plural', pluralNode(v.forms, state)]])]]);
  if (subs && Object.keys(subs).length) {
    const split = splitSubstitutions(v.text, subs, state);
    if (split) {
      const node = unitNode(split.text, state);
      node.set('substitutions', split.node);
      return node;
    }
  }
  return unitNode(v.text, state);
}

/** Whether a stored value still is what a kept localization shows (a value without state matches any state). */
function sameValue(kept: CatalogValue, v: CatalogValue): boolean {
  // Forms are dicts or plain objects (stored JSON) with the same keys: isDeepStrictEqual compares prototypes too.
  const plain = (x: CatalogValue) => ({
    ...x,
    ...(x.kind === 'plural' ? { forms: { ...x.forms } } : {}),
    ...(v.state === undefined ? { state: undefined } : {}),
  });
  return isDeepStrictEqual(plain(kept), plain(v));
}

/** A record keyed by language, read loosely: the store may hand back `zh-hans` for the file's `zh-Hans`. */
function byLang<T>(rec: Record<string, T> | undefined, lang: string): T | undefined {
  if (!rec) return undefined;
  const exact = own(rec, lang);
  if (exact !== undefined) return exact;
  const n = languageKey(lang);
  return Object.entries(rec).find(([k]) => languageKey(k) === n)?.[1];
}

/** Substitution meta of a language, or of any language of the entry (a new translation reuses the source's). */
function substitutionsFor(entry: CatalogEntry, lang: string): Substitutions | undefined {
  const all = entry.meta?.substitutions as Record<string, Substitutions> | undefined;
  if (!all) return undefined;
  return byLang(all, lang) ?? Object.values(all)[0];
}

// ---------------------------------------------------------------------------------------------------------------
// ICU values (strings pushed with POST /translate, or synced from another format) as Xcode writes them
// (packages/core/src/formats/apple.ts): `%@` / `%lld`, positional (`%1$@`) when the source has more than one argument; a
// message that is one plural over its only argument as `variations.plural`; a plural inside a sentence (or over one
// of several arguments) as Xcode's `%#@count@` token with a substitution (`argNum`, `formatSpecifier` `lld`, its
// own plural variations, `%arg` for the count). A select cannot be expressed (String Catalogs vary by plural and
// device, not by an argument's value): its `other` branch is written and reported.

/**
 * Whether an entry holds ICU to convert rather than a String Catalog's own printf text. A catalog that no
 * xcstrings file was synced into holds ICU only. In one that was, a key keeps what the file had, unless it came
 * from elsewhere (no xcstrings meta) with ICU arguments in its source and no printf specifier.
 */
function icuAuthored(catalog: Catalog, entry: CatalogEntry): boolean {
  const meta = entry.meta;
  if (meta?.substitutions !== undefined || meta?.raw !== undefined) return false;
  if (catalog.sourceLanguage === null) return true;
  if (meta || !entry.source) return false;
  const icu = icuText(entry.source);
  if (printfSpecifiers(icu).some((s) => s.spec !== '%%')) return false;
  const flat = flatten(icu);
  return !!flat && leaves(flat).some((parts) => parts.some((p) => p.type !== 'text'));
}

const pluralVariation = (forms: Record<string, string>, state: string): JsonObject => {
  const plural: JsonObject = new Map();
  for (const [cat, v] of Object.entries(forms)) plural.set(cat, unitNode(v, state));
  return new Map([['plural', plural]]);
};

const substitutionNode = (argNum: number, forms: Record<string, string>, state: string): JsonObject =>
  new Map<string, JsonValue>([
    ['argNum', argNum],
    ['formatSpecifier', 'lld'],
    ['variations', pluralVariation(forms, state)],
  ]);

/**
 * A message whose top level is text and arguments around cardinal plurals without offset: the text with one
 * `%#@name@` token per plural, and their substitutions. Null for any other shape (hoisted by convertValue).
 */
function sentenceSubstitutions(icu: string, base: AppleOptions, state: string): JsonObject | null {
  let ast: MessageFormatElement[];
  try {
    ast = parseIcu(icu, 'text');
  } catch {
    return null;
  }
  const plurals = ast.filter((el) => el.type === TYPE.plural);
  if (!plurals.length || ast.length === 1) return null;
  if (
    ast.some(
      (el) => el.type === TYPE.select || (el.type === TYPE.plural && (el.pluralType !== 'cardinal' || el.offset)),
    )
  )
    return null;
  if (plurals.some((el) => !el.location)) return null;
  const subs: JsonObject = new Map();
  const tokens = dict<string>();
  const order = [...base.order];
  let main = '';
  let from = 0;
  plurals.forEach((el, i) => {
    if (el.type !== TYPE.plural) return;
    const loc = el.location!;
    const source = icu.slice(loc.start.offset, loc.end.offset);
    const msg = appleMessage(source, { ...base, order: [...base.order], countAs: { name: el.value, text: '%arg' } });
    if (msg?.kind !== 'plural') return;
    let name = el.value;
    for (let n = 2; subs.has(name); n++) name = `${el.value}_${n}`;
    // A placeholder argument stands for the token while the text around it is written as printf.
    const placeholder = `__xcstrings_substitution_${i}`;
    main += `${icu.slice(from, loc.start.offset)}{${placeholder}}`;
    from = loc.end.offset;
    tokens[placeholder] = `%#@${name}@`;
    subs.set(name, substitutionNode(msg.argNum, msg.forms, state));
  });
  if (subs.size !== plurals.length) return null;
  main += icu.slice(from);
  const text = appleMessage(main, { ...base, order });
  if (text?.kind !== 'text') return null;
  // The placeholders came after every real argument, so their numbers are theirs alone.
  const value = text.text.replace(/%%|%(\d+)\$@/g, (m, pos?: string) => {
    const name = pos ? order[Number(pos) - 1] : undefined;
    return name !== undefined && Object.hasOwn(tokens, name) ? tokens[name] : m;
  });
  const node = unitNode(value, state);
  node.set('substitutions', subs);
  return node;
}

function convertValue(entry: CatalogEntry, lang: string, v: CatalogValue, warn: (reason: string) => void): JsonObject {
  const state = v.state ?? DEFAULT_STATE;
  const icu = icuText(v);
  const order = [...orderOf(entry.source ?? v)];
  const base: AppleOptions = { order, lang, positional: order.length > 1, warn };
  const sentence = sentenceSubstitutions(icu, base, state);
  if (sentence) return sentence;
  const msg = appleMessage(icu, base) ?? { kind: 'text', text: icu };
  if (msg.kind === 'text') return unitNode(msg.text, state);
  // Xcode varies a whole string by plural only when the count is its one argument; else it substitutes.
  if (order.length === 1) return new Map([['variations', pluralVariation(msg.forms, state)]]);
  const node = unitNode(`%#@${msg.arg}@`, state);
  const forms = appleMessage(icu, {
    ...base,
    order: [...orderOf(entry.source ?? v)],
    countAs: { name: msg.arg, text: '%arg' },
    warn: () => {},
  });
  node.set(
    'substitutions',
    new Map([[msg.arg, substitutionNode(msg.argNum, forms?.kind === 'plural' ? forms.forms : msg.forms, state)]]),
  );
  return node;
}

function renderLocalization(
  entry: CatalogEntry,
  lang: string,
  convert: ((v: CatalogValue) => JsonObject) | null,
): JsonValue | undefined {
  const v = byLang(entry.values, lang);
  if (convert) return v && convert(v);
  const raw = byLang(entry.meta?.raw as Record<string, unknown> | undefined, lang);
  if (raw === undefined) return v && renderValue(v, substitutionsFor(entry, lang));
  const node = fromPlain(raw);
  if (!v || !isObject(node)) return node;
  let derived: ReturnType<typeof deriveRaw>;
  try {
    derived = deriveRaw(`${entry.fileKey} (${lang})`, node);
  } catch {
    derived = undefined;
  }
  if (derived && sameValue(derived.value, v)) return node;
  if (derived?.path) {
    // Replace only the branch the value came from, keeping the other devices (or widths) as the file had them.
    const [kind, chosen] = derived.path;
    const branches = (node.get('variations') as JsonObject).get(kind) as JsonObject;
    const branch = branches.get(chosen) as JsonObject;
    const branchSubs = readSimpleSafe(branch)?.subs ?? substitutionsFor(entry, lang);
    branches.set(chosen, renderValue(v, branchSubs));
    return node;
  }
  return renderValue(v, substitutionsFor(entry, lang));
}

function readSimpleSafe(node: JsonObject): Simple | null {
  try {
    return readSimple('', node);
  } catch {
    return null;
  }
}

// Project codes are stored lowercase (`zh-hans`); Xcode spells them in BCP 47 case (`zh-Hans`, `pt-BR`).
function appleSpelling(lang: string): string {
  if (lang !== lang.toLowerCase() || !lang.includes('-')) return lang;
  try {
    return Intl.getCanonicalLocales(lang)[0] ?? lang;
  } catch {
    return lang;
  }
}

function renderCatalog(catalog: Catalog, opts: RenderOptions): string {
  const wanted = new Set(opts.languages.map(languageKey));
  const strings: JsonObject = new Map();
  for (const entry of catalog.entries) {
    const meta = entry.meta ?? {};
    const e: JsonObject = new Map();
    if (entry.comment != null) e.set('comment', entry.comment);
    if (typeof meta.extractionState === 'string') e.set('extractionState', meta.extractionState);
    // One localization per language however its code is spelled; the file's spelling (kept with meta) wins.
    const spelled = new Map<string, string>();
    for (const lang of Object.keys(entry.values)) spelled.set(languageKey(lang), lang);
    for (const rec of [meta.raw, meta.substitutions] as Array<object | undefined>) {
      for (const lang of Object.keys(rec ?? {}))
        if (spelled.has(languageKey(lang)) || rec === meta.raw) spelled.set(languageKey(lang), lang);
    }
    const locs: JsonObject = new Map();
    for (const [n, lang] of spelled) {
      if (!wanted.has(n)) continue;
      const convert = icuAuthored(catalog, entry)
        ? (v: CatalogValue) =>
            convertValue(entry, lang, v, (reason) => opts.warn?.({ key: entry.fileKey, lang, reason }))
        : null;
      const loc = renderLocalization(entry, lang, convert);
      if (loc !== undefined) locs.set(appleSpelling(lang), loc);
    }
    if (locs.size || meta.emptyLocalizations === true) e.set('localizations', locs);
    if (typeof meta.shouldTranslate === 'boolean') e.set('shouldTranslate', meta.shouldTranslate);
    for (const [k, v] of Object.entries((meta.extra as Record<string, unknown> | undefined) ?? {}))
      e.set(k, fromPlain(v));
    strings.set(entry.fileKey, e);
  }
  const cmeta = catalog.meta ?? {};
  const root: JsonObject = new Map<string, JsonValue>([
    ['sourceLanguage', catalog.sourceLanguage ?? opts.baseLanguage],
    ['strings', strings],
    ['version', typeof cmeta.version === 'string' ? cmeta.version : '1.0'],
  ]);
  for (const [k, v] of Object.entries((cmeta.extra as Record<string, unknown> | undefined) ?? {}))
    root.set(k, fromPlain(v));
  // Xcode writes no final newline; a file that had one keeps it.
  return printJson(root, XCODE_STYLE) + (cmeta.trailingNewline === true ? '\n' : '');
}

/** Every language a parsed catalog holds a value (or a kept localization) for: what a full re-render writes. */
export function catalogLanguages(catalog: Catalog): string[] {
  const langs = new Set<string>();
  for (const e of catalog.entries) {
    for (const l of Object.keys(e.values)) langs.add(l);
    for (const l of Object.keys((e.meta?.raw as object | undefined) ?? {})) langs.add(l);
  }
  return [...langs];
}

export const format: FormatModule = {
  id: 'xcstrings',
  detect(text, fileName) {
    const root = sniffJson(text);
    const ext = hasExt(fileName, '.xcstrings');
    if (root === null) return 0;
    if (root === 'not-object') return ext ? 0.5 : 0;
    if ('sourceLanguage' in root && 'strings' in root) return 1;
    return ext ? 0.6 : 0;
  },
  parse: parseCatalog,
  render: renderCatalog,
};

/**
 * A pulled catalog (`pulled`, rendered from a project) with the localizations the local file (`local`) has in
 * languages that are not `projectLanguages`: one file holds every language, so writing the project's rendering over
 * it would delete a language the team keeps (translated elsewhere, or not yet added to the project). Only strings
 * the pulled catalog has are merged into; `kept` names the languages taken over, as the local file spells them.
 * Returns `pulled` itself when nothing is kept, or when either file is not a catalog (the pull writes what it got).
 */
export function keepLocalLanguages(
  pulled: string,
  local: string,
  projectLanguages: readonly string[],
): { text: string; kept: string[] } {
  const unchanged = { text: pulled, kept: [] };
  let root: JsonValue;
  let mine: JsonValue;
  try {
    root = parseJson(pulled);
    mine = parseJson(local);
  } catch {
    return unchanged;
  }
  const strings = isObject(root) ? root.get('strings') : undefined;
  const localStrings = isObject(mine) ? mine.get('strings') : undefined;
  if (!isObject(root) || !isObject(strings) || !isObject(localStrings)) return unchanged;
  const project = new Set(projectLanguages.map(languageKey));
  const kept = new Set<string>();
  for (const [key, entry] of strings) {
    const theirs = localStrings.get(key);
    const locs = isObject(theirs) ? theirs.get('localizations') : undefined;
    if (!isObject(entry) || !isObject(locs)) continue;
    let into = entry.get('localizations');
    for (const [lang, loc] of locs) {
      if (project.has(languageKey(lang))) continue;
      if (!isObject(into)) {
        into = new Map();
        entry.set('localizations', into);
      }
      if (into.has(lang)) continue;
      into.set(lang, loc);
      kept.add(lang);
    }
  }
  if (!kept.size) return unchanged;
  return {
    text: printJson(root, XCODE_STYLE) + (pulled.endsWith('\n') ? '\n' : ''),
    kept: [...kept].sort(codepointCompare),
  };
}
