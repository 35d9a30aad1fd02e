// ICU messages: the one parser configuration of the service, the ICU gate every translation passes, and the
// message shapes the formats and bundles need (plural forms, printing, CLDR categories).
import {
  parse,
  TYPE,
  type MessageFormatElement,
  type PluralElement,
  type PluralOrSelectOption,
} from '@formatjs/icu-messageformat-parser';
import { doPrintAST } from '@formatjs/icu-messageformat-parser/printer.js';
import { languageKey } from './languages.js';

export type IcuAst = MessageFormatElement[];

/** The CLDR order (zero, one, two, few, many, other); Intl returns categories in an implementation-defined order. */
const ORDER_INDEX: Record<string, number> = { zero: 0, one: 1, two: 2, few: 3, many: 4, other: 5 };

// Text with simple `{name}` arguments only (most messages): no quoting, no nesting, nothing a parse would read
// differently, so a regular expression does a parse's work. Tags are left to the caller.
const SIMPLE = /^[^{}']*(?:\{\s*\w+\s*\}[^{}']*)*$/;
export const SIMPLE_ARGUMENT = /\{\s*(\w+)\s*\}/g;

/** The argument names of a simple message, in order of first appearance; null when it needs a real parse. */
export function simpleArguments(msg: string): string[] | null {
  if (!SIMPLE.test(msg)) return null;
  const names: string[] = [];
  if (!msg.includes('{')) return names;
  // exec over matchAll: no iterator per call on a path that runs for every cell of a publish.
  SIMPLE_ARGUMENT.lastIndex = 0;
  for (let m = SIMPLE_ARGUMENT.exec(msg); m; m = SIMPLE_ARGUMENT.exec(msg)) if (!names.includes(m[1])) names.push(m[1]);
  return names;
}

/**
 * How a parse reads `<…>`, the one thing the callers of parseIcu differ on:
 * - `rich`: ICU rich text. `<b>…</b>` is a tag whose content is parsed, and an unbalanced or attributed tag is a
 *   syntax error. What the engines are held to, and what the bundles and printing read.
 * - `text`: tags are literal text, so HTML (`<br>`, `<a href='…'>`) and Android/xliff markup parse. What a synced
 *   file's values must be (markup is the publish gate's business), and what the printf and xcstrings renderers read.
 */
type TagReading = 'rich' | 'text';

// The one parser configuration. `other` is required in every plural and select, and skeletons are parsed (both
// formatjs's defaults, spelled out so that no caller differs). Locations are kept, so a caller can cut a branch
// out of the raw string; each literal's original spelling is kept, so printIcu re-prints apostrophes as written.
type ParserOptions = NonNullable<Parameters<typeof parse>[1]>;
const BASE_OPTIONS = {
  requiresOtherClause: true,
  shouldParseSkeletons: true,
  captureLocation: true,
  captureEscapes: true,
} satisfies ParserOptions;
const OPTIONS: Record<TagReading, ParserOptions> = {
  rich: { ...BASE_OPTIONS, ignoreTag: false },
  text: { ...BASE_OPTIONS, ignoreTag: true },
};

/** Parses an ICU message (`other` required; tags as `tags` says); throws a SyntaxError naming the problem. */
export function parseIcu(msg: string, tags: TagReading = 'rich'): IcuAst {
  return parse(msg, OPTIONS[tags]);
}

export function isValidIcu(msg: string, tags: TagReading = 'rich'): boolean {
  try {
    parseIcu(msg, tags);
    return true;
  } catch {
    return false;
  }
}

// A publish gates every cell of a key against the same source: its parses are kept (bounded) rather than redone.
const remembered = new Map<string, IcuAst | Error>();

/** parseIcu, remembered: for sources, parsed once though gated once per cell. The AST is shared: never mutate it. */
function parseIcuRemembered(msg: string, tags: TagReading): IcuAst {
  const key = `${tags === 'rich' ? 'r' : 't'}${msg}`;
  let hit = remembered.get(key);
  if (hit === undefined) {
    try {
      hit = parseIcu(msg, tags);
    } catch (e) {
      hit = e as Error;
    }
    if (remembered.size >= 20_000) remembered.clear();
    remembered.set(key, hit);
  }
  if (hit instanceof Error) throw hit;
  return hit;
}

// printer.d.ts re-declares the AST types (its own TYPE enum), so the two are nominally distinct though identical.
type PrinterAst = Parameters<typeof doPrintAST>[0];

/**
 * Prints an AST back to ICU in the usual spaced style (`{n, plural, =0 {…} one {…} other {…}}`), keeping select
 * keys in their order. formatjs's printAST is correct but compact and reorders select keys; literal escaping
 * and argument styles are still delegated to its doPrintAST, which knows the quoting rules.
 */
/**
 * Literal text as ICU text, to stand anywhere in a message (a plural branch included): `{`, `}` and `#` (the count,
 * inside a plural) are quoted, and an apostrophe that ICU would read as a quote (before those, beside another
 * apostrophe, or last, where an argument may follow) is doubled. Other apostrophes (`it's`) stay as ICU reads them.
 */
export function escapeIcuText(s: string): string {
  return s.replace(/'(?=[{}#|']|$)|(?<=')'/g, "''").replace(/[{}#]+/g, (m) => `'${m}'`);
}

export function printIcu(ast: IcuAst): string {
  return printNodes(ast, false, true);
}

function printNodes(ast: IcuAst, inPlural: boolean, atEnd: boolean): string {
  let out = '';
  let i = 0;
  while (i < ast.length) {
    const el = ast[i];
    if (el.type === TYPE.literal) {
      let j = i + 1;
      while (j < ast.length && ast[j].type === TYPE.literal) j++;
      // Only the message's very end may leave a trailing apostrophe unclosed, hence atEnd for the last run.
      out += doPrintAST(ast.slice(i, j), inPlural, atEnd && j === ast.length);
      i = j;
      continue;
    }
    i++;
    switch (el.type) {
      case TYPE.argument:
        out += `{${el.value}}`;
        break;
      case TYPE.pound:
        out += '#';
        break;
      case TYPE.tag:
        out += `<${el.value}>${printNodes(el.children, inPlural, false)}</${el.value}>`;
        break;
      case TYPE.plural: {
        const keys = Object.keys(el.options).sort((a, b) => pluralKeyOrder(a) - pluralKeyOrder(b));
        const head = `{${el.value}, ${el.pluralType === 'ordinal' ? 'selectordinal' : 'plural'},${el.offset ? ` offset:${el.offset}` : ''}`;
        out += `${head} ${keys.map((k) => `${k} {${printNodes(el.options[k].value, true, false)}}`).join(' ')}}`;
        break;
      }
      case TYPE.select:
        out += `{${el.value}, select, ${Object.entries(el.options)
          .map(([k, o]) => `${k} {${printNodes(o.value, false, false)}}`)
          .join(' ')}}`;
        break;
      default:
        out += doPrintAST([el] as PrinterAst, inPlural, false);
    }
  }
  return out;
}

function pluralKeyOrder(key: string): number {
  // Own keys only: `constructor` or `__proto__` can be an option key, and `in` would find Object.prototype's.
  if (Object.hasOwn(ORDER_INDEX, key)) return 1e9 + ORDER_INDEX[key];
  const n = Number(key.replace(/^=\s*/, ''));
  return Number.isFinite(n) ? n : 2e9;
}

const categoryCache = new Map<string, readonly string[]>();

/** CLDR cardinal plural categories of a language, in zero, one, two, few, many, other order. */
export function pluralCategories(lang: string): string[] {
  let cats = categoryCache.get(lang);
  if (!cats) {
    let rules: Intl.PluralRules;
    try {
      rules = new Intl.PluralRules(languageKey(lang));
    } catch {
      throw new RangeError(`invalid language tag ${JSON.stringify(lang)}`);
    }
    cats = [...rules.resolvedOptions().pluralCategories].sort((a, b) => (ORDER_INDEX[a] ?? 9) - (ORDER_INDEX[b] ?? 9));
    categoryCache.set(lang, cats);
  }
  return [...cats];
}

function categorySet(lang: string): readonly string[] {
  if (!categoryCache.has(lang)) pluralCategories(lang);
  return categoryCache.get(lang)!;
}

/** An exact-number plural key (`=0`, `= 2`), which no CLDR category stands for. */
export const isExactKey = (key: string) => /^=\s*-?\d+(\.\d+)?$/.test(key);

/**
 * `{count, plural, one {…} other {…}}` from forms keyed by CLDR category (and optionally `=N`). Forms are ICU
 * fragments already (`#`, `{name}` stay live), so nothing is escaped.
 */
export function formsToIcu(forms: Record<string, string>, arg = 'count'): string {
  const keys = Object.keys(forms).sort((a, b) => pluralKeyOrder(a) - pluralKeyOrder(b));
  return `{${arg}, plural, ${keys.map((k) => `${k} {${forms[k]}}`).join(' ')}}`;
}

interface IcuForms {
  arg: string;
  forms: Record<string, string>;
}

/**
 * The reverse of formsToIcu for a message that is exactly one cardinal plural without offset; null otherwise.
 * Each form is the branch's original text, so quoting and spacing inside it are kept.
 */
export function icuToForms(msg: string): IcuForms | null {
  let ast: IcuAst;
  try {
    ast = parseIcu(msg);
  } catch {
    return null;
  }
  if (ast.length !== 1) return null;
  const el = ast[0];
  if (el.type !== TYPE.plural || el.pluralType !== 'cardinal' || el.offset) return null;
  // Option keys are the message author's: without a prototype, one named `__proto__` is kept as a form.
  const forms = Object.create(null) as Record<string, string>;
  for (const [key, opt] of Object.entries(el.options)) {
    // An option's location spans `{…}`; the form is what is between the braces.
    const loc = opt.location;
    if (!loc) return null;
    forms[key] = msg.slice(loc.start.offset + 1, loc.end.offset - 1);
  }
  return { arg: el.value, forms };
}

export function walkIcu(ast: IcuAst, visit: (el: MessageFormatElement) => void): void {
  for (const el of ast) {
    visit(el);
    if (el.type === TYPE.plural || el.type === TYPE.select) {
      for (const opt of Object.values<PluralOrSelectOption>(el.options)) walkIcu(opt.value, visit);
    } else if (el.type === TYPE.tag) {
      walkIcu(el.children, visit);
    }
  }
}

function placeholdersOf(ast: IcuAst): Set<string> {
  const names = new Set<string>();
  walkIcu(ast, (el) => {
    if (el.type !== TYPE.literal && el.type !== TYPE.pound && el.type !== TYPE.tag) names.add(el.value);
  });
  return names;
}

function tagsOf(ast: IcuAst): string[] {
  const names: string[] = [];
  walkIcu(ast, (el) => {
    if (el.type === TYPE.tag) names.push(el.value);
  });
  return names.sort();
}

/** Argument names: `{name}`, number/date/time arguments and plural/select/selectordinal arguments. */
export function placeholders(msg: string): Set<string> {
  return placeholdersOf(parseIcu(msg));
}

/** Tag names as a sorted multiset (one entry per tag occurrence). */
export function tags(msg: string): string[] {
  return tagsOf(parseIcu(msg));
}

type ArgKind = 'plural' | 'selectordinal' | 'select';

function kindOf(el: MessageFormatElement): ArgKind | null {
  if (el.type === TYPE.select) return 'select';
  if (el.type === TYPE.plural) return el.pluralType === 'ordinal' ? 'selectordinal' : 'plural';
  return null;
}

function structuredArgs(ast: IcuAst): Map<string, { kind: ArgKind; keys: Set<string> }> {
  const args = new Map<string, { kind: ArgKind; keys: Set<string> }>();
  walkIcu(ast, (el) => {
    if (el.type !== TYPE.plural && el.type !== TYPE.select) return;
    const kind = kindOf(el)!;
    const seen = args.get(el.value) ?? { kind, keys: new Set<string>() };
    args.set(el.value, seen);
    if (kind === 'select') for (const k of Object.keys(el.options)) seen.keys.add(k);
  });
  return args;
}

const list = (xs: Iterable<string>) => [...xs].join(', ');

function badPluralCategories(el: PluralElement, cats: readonly string[]): string[] | null {
  const keys = Object.keys(el.options).filter((k) => !isExactKey(k));
  if (keys.length === cats.length && keys.every((k) => cats.includes(k))) return null;
  return keys.sort((a, b) => pluralKeyOrder(a) - pluralKeyOrder(b));
}

const braces = (names: Iterable<string>) => [...names].map((n) => `{${n}}`).join(', ');

/**
 * A source and its translation as the ICU rules read them (packages/core/src/checks/rules/icu.ts): both parsed,
 * or, for two simple messages without tags (most cells), only their argument names, with no parse at all.
 * Tags are read as the source reads them: the source as rich text if it parses so, else with tags as text (`<br>`,
 * `<a href='…'>`), and the value the same way, so a rich-text source still holds its translations to rich text
 * and a broken `<b>` is caught, while a source with HTML attributes (`<a href="/terms">`, not rich text) can be
 * translated at all.
 */
export type IcuPair =
  | { simple: true; srcArgs: string[]; valArgs: string[] }
  | { simple: false; src: IcuAst; val: IcuAst }
  /** Which side does not parse, and why. */
  | { simple: false; syntax: string; side: 'source' | 'value' };

export function icuPair(source: string, value: string): IcuPair {
  if (!source.includes('<') && !value.includes('<')) {
    const srcArgs = simpleArguments(source);
    const valArgs = srcArgs && simpleArguments(value);
    if (srcArgs && valArgs) return { simple: true, srcArgs, valArgs };
  }
  let reading: TagReading = 'rich';
  let src: IcuAst;
  try {
    src = parseIcuRemembered(source, 'rich');
  } catch {
    reading = 'text';
    try {
      src = parseIcuRemembered(source, 'text');
    } catch (e2) {
      return { simple: false, side: 'source', syntax: `source is not valid ICU: ${(e2 as Error).message}` };
    }
  }
  try {
    return { simple: false, src, val: parseIcu(value, reading) };
  } catch (e) {
    return { simple: false, side: 'value', syntax: `invalid ICU syntax: ${(e as Error).message}` };
  }
}

/** The value names exactly the source's arguments: `{name}`, typed, plural and select arguments. */
export function argumentProblem(pair: IcuPair): string | null {
  if ('syntax' in pair) return null;
  const w = new Set(pair.simple ? pair.srcArgs : placeholdersOf(pair.src));
  const h = new Set(pair.simple ? pair.valArgs : placeholdersOf(pair.val));
  const missing = [...w].filter((n) => !h.has(n));
  if (missing.length) return `missing placeholder ${braces(missing)}`;
  const extra = [...h].filter((n) => !w.has(n));
  if (extra.length) return `unknown placeholder ${braces(extra)}`;
  return null;
}

/**
 * What a model must not change (the fill's gate; a person may): the kind of each plural or select argument, each
 * select's options, and no select of its own (its options could not be checked against anything). Tags are not
 * compared here: the markup rule counts them branch by branch (packages/core/src/branches.ts).
 */
export function structureProblem(pair: IcuPair): string | null {
  if (pair.simple || 'syntax' in pair) return null;
  const sa = structuredArgs(pair.src);
  const va = structuredArgs(pair.val);
  for (const [name, s] of sa) {
    const v = va.get(name);
    if (!v || v.kind !== s.kind) return `{${name}} must stay a ${s.kind}`;
    if (s.kind === 'select' && (v.keys.size !== s.keys.size || [...s.keys].some((k) => !v.keys.has(k)))) {
      return `select {${name}} options must be ${list(s.keys)}, got ${list(v.keys)}`;
    }
  }
  for (const [name, v] of va) {
    if (!sa.has(name) && v.kind === 'select') return `{${name}} must not be a select`;
  }
  return null;
}

/** `lang` is a language tag Intl knows (it has CLDR plural rules), else why not. */
export function languageProblem(lang: string): string | null {
  try {
    categorySet(lang);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * The first cardinal plural of the value without exactly `lang`'s CLDR categories (`=N` branches may be added).
 * Ordinal plurals use another CLDR rule set and are not held to it.
 */
export function pluralProblem(pair: IcuPair, lang: string): string | null {
  if (pair.simple || 'syntax' in pair) return null;
  let cats: readonly string[] | undefined;
  const categories = () => (cats ??= categorySet(lang));
  let problem: string | null = null;
  try {
    walkIcu(pair.val, (el) => {
      if (problem || el.type !== TYPE.plural || el.pluralType === 'ordinal') return;
      const bad = badPluralCategories(el, categories());
      if (bad) problem = `plural {${el.value}} has ${list(bad)}; ${lang} needs ${list(categories())}`;
    });
  } catch (e) {
    return (e as Error).message;
  }
  return problem;
}

/**
 * Gives every cardinal plural in the AST exactly the categories of `cats` (mutates in place): a missing category
 * copies `other`, a category the language lacks is dropped, `=N` stays. Returns whether anything changed.
 */
export function conformAst(ast: IcuAst, cats: readonly string[]): boolean {
  let changed = false;
  walkIcu(ast, (el) => {
    if (el.type !== TYPE.plural || el.pluralType === 'ordinal') return;
    if (!badPluralCategories(el, cats)) return;
    const other = el.options.other;
    const options: Record<string, PluralOrSelectOption> = {};
    for (const [k, opt] of Object.entries(el.options)) if (isExactKey(k)) options[k] = opt;
    for (const c of cats) {
      const opt = el.options[c] ?? (other && { value: structuredClone(other.value) });
      if (opt) options[c] = opt;
    }
    el.options = options;
    changed = true;
  });
  return changed;
}

/**
 * `value` with every cardinal plural carrying exactly `targetLang`'s categories. Unchanged (same string) when
 * nothing needs fixing, or when the value does not parse or the language tag is invalid (the icu-syntax and
 * language-tag checks report both).
 */
export function conformPlurals(value: string, targetLang: string): string {
  let ast: IcuAst;
  let cats: readonly string[];
  try {
    ast = parseIcu(value);
    cats = categorySet(targetLang);
  } catch {
    return value;
  }
  return conformAst(ast, cats) ? printIcu(ast) : value;
}

/** The AST in the first reading that parses it (rich text first), or null when neither does. Sources are remembered. */
export function parseAny(msg: string, isSource: boolean): IcuAst | null {
  for (const tags of ['rich', 'text'] as const) {
    try {
      return isSource ? parseIcuRemembered(msg, tags) : parseIcu(msg, tags);
    } catch {
      // try the next reading
    }
  }
  return null;
}
