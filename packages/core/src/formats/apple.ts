// ICU messages as Apple's runtime reads them (`String(format:)`, `String.localizedStringWithFormat`, .stringsdict
// and String Catalog plural rules), shared by ios_strings.ts (.strings + .stringsdict) and xcstrings.ts.
//
// The decisions (README "What each file can express"):
// - Arguments are printf specifiers numbered by the source's argument order (printf.ts `argOrder`: every argument
//   of the source, select arguments included, in order of first appearance), so every language takes the same
//   arguments in the same order; `#` and `integer` numbers are `%lld`, any other number, date or time is formatted
//   by the app and passed as a string (`%@`, warned by leafToPrintf).
// - A value is a format string only when its key's source has arguments: then a literal `%` is written `%%`; a
//   string without arguments is shown as it is (`NSLocalizedString` without `String(format:)`).
// - One cardinal plural (hoisted over the sentence) is native. Apple's plural rules pick `zero` for 0 in every
//   language, so `=0` is written as `zero`. Where the language's CLDR `zero` category exists too: if it holds 0
//   alone (Arabic), `zero` takes the `=0` text, which is what ICU shows for 0, and the `zero` form (which ICU never
//   shows beside `=0`) is dropped with a warning; if it holds more numbers (Latvian: 10–20, 30, …), `zero` keeps
//   the CLDR form and `=0` is dropped with a warning. Any other `=N` is dropped with a warning (N shows its
//   category's form). Categories the language does not have are left out (neither runtime ever picks them).
// - Written as the `other` branch, with a warning: a select (Apple's `%#@` variables only take plural rules), a
//   selectordinal (cardinal rules only), a plural with an offset (no offset in plural rules: `#` shows the number
//   the app passes), and a plural inside another plural's branch.
import { collapse, flatten, splitOptions, exactValue, type Flat, type Part, type Warn } from '../convert.js';
import { dict } from '../catalog.js';
import { pluralCategories } from '../icu.js';
import { APPLE, leafToPrintf, printfSpecifiers } from '../printf.js';

/** What a message becomes: one string, or one plural over `arg` (forms keyed by Apple's plural rule keys). */
export type AppleMessage =
  | { kind: 'text'; text: string }
  /** `argNum`: the count's position among the arguments (1-based). */
  | { kind: 'plural'; arg: string; argNum: number; forms: Record<string, string> };

export interface AppleOptions {
  /** The key's source argument order (printf.ts `orderOf`); extended for names only a translation has. */
  order: string[];
  lang: string;
  /** Positional specifiers (`%1$@`); off, a message of one argument is written `%@` / `%lld` (Xcode's way). */
  positional: boolean;
  warn: Warn;
  /** Overrides how the count of the plural named so is written (a String Catalog substitution's `%arg`). */
  countAs?: { name: string; text: string };
}

const zeroOnlyCache = new Map<string, boolean>();

/** Whether the language's CLDR `zero` category holds 0 and no other whole number (Arabic; not Latvian). */
function zeroIsOnlyZero(lang: string): boolean {
  let hit = zeroOnlyCache.get(lang);
  if (hit === undefined) {
    const rules = new Intl.PluralRules(lang);
    hit = true;
    for (let n = 1; n <= 1000 && hit; n++) if (rules.select(n) === 'zero') hit = false;
    zeroOnlyCache.set(lang, hit);
  }
  return hit;
}

// Marks the count of a substitution in leaf text: no `%` (so printf doubling leaves it alone) and no ICU syntax.
const COUNT_MARK = '\uE000count\uE001';

/** One leaf as printf (or as plain text when the key is not a format string). */
function printLeaf(parts: Part[], opts: AppleOptions, isFormat: boolean): string {
  const marked = opts.countAs
    ? parts.map((p): Part =>
        p.type === 'count' && p.name === opts.countAs!.name ? { type: 'text', text: COUNT_MARK } : p,
      )
    : parts;
  if (!isFormat && marked.every((p) => p.type === 'text'))
    return marked.map((p) => (p.type === 'text' ? p.text : '')).join('');
  let out = leafToPrintf(marked, opts.order, APPLE, opts.warn);
  if (opts.countAs) out = out.split(COUNT_MARK).join(opts.countAs.text);
  return opts.positional ? out : unnumbered(out);
}

/**
 * `%1$@` as `%@` in a string of one argument used once (Xcode's way); a string that uses its argument twice
 * (`{when, date} at {when, time}`) keeps `%1$@ … %1$@`, which non-positional printf cannot say.
 */
function unnumbered(s: string): string {
  const specs = printfSpecifiers(s).filter((p) => p.spec !== '%%');
  if (specs.length !== 1 || !specs[0].spec.startsWith('%1$')) return s;
  const { index, spec } = specs[0];
  return `${s.slice(0, index)}%${spec.slice(3)}${s.slice(index + spec.length)}`;
}

/** Keeps one cardinal plural without offset on top; every other selector is written as its `other` branch. */
function appleShape(flat: Flat, warn: Warn): Flat {
  let kept: string | null = null;
  return collapse(
    flat,
    (node) => {
      if (node.kind === 'select') return `select {${node.name}}: Apple strings cannot choose on a select`;
      if (node.ordinal) return `selectordinal {${node.name}}: Apple plural rules are cardinal only`;
      if (node.offset)
        return `plural {${node.name}} with offset:${node.offset}: Apple plural rules take no offset (# shows the number passed)`;
      if (kept !== null)
        return `plural {${node.name}} inside plural {${kept}}: Apple takes one plural per message here`;
      kept = node.name;
      return null;
    },
    warn,
  );
}

/** `icu` (a key's value in `lang`) as Apple writes it; null when it is not ICU (a file's own text, kept as is). */
export function appleMessage(icu: string, opts: AppleOptions): AppleMessage | null {
  const flat = flatten(icu);
  if (!flat) return null;
  const isFormat = opts.order.length > 0;
  const shaped = appleShape(flat, opts.warn);
  if (shaped.kind === 'leaf') return { kind: 'text', text: printLeaf(shaped.parts, opts, isFormat) };
  if (shaped.kind !== 'plural') throw new Error('appleShape keeps plurals only');
  // The count's position is fixed by the order even when no form shows it (`one {a photo}`).
  if (!opts.order.includes(shaped.name)) opts.order.push(shaped.name);
  const leafOf = (f: Flat): Part[] => (f.kind === 'leaf' ? f.parts : []);
  const print = (f: Flat) => printLeaf(leafOf(f), opts, true);
  const cats = pluralCategories(opts.lang);
  const hasZero = cats.includes('zero');
  const { categories, exact } = splitOptions(shaped.options);
  const forms = dict<string>();
  for (const cat of categories) if (cats.includes(cat)) forms[cat] = print(shaped.options[cat]);
  for (const key of exact) {
    const text = print(shaped.options[key]);
    const n = exactValue(key);
    if (n !== 0) {
      opts.warn(
        `plural {${shaped.name}} ${key}: Apple plural rules have no exact matches; ${n} shows its category's form`,
      );
    } else if (!hasZero) {
      forms.zero = text;
    } else if (zeroIsOnlyZero(opts.lang)) {
      if (categories.includes('zero'))
        opts.warn(
          `plural {${shaped.name}}: =0 and the CLDR zero category both name 0 in ${opts.lang}; \`zero\` holds the =0 text (what ICU shows), the zero form is unused`,
        );
      forms.zero = text;
    } else {
      opts.warn(
        `plural {${shaped.name}} =0: Apple's \`zero\` is ${opts.lang}'s CLDR zero category (more numbers than 0) and keeps that form; 0 shows it (or \`other\`)`,
      );
    }
  }
  return { kind: 'plural', arg: shaped.name, argNum: opts.order.indexOf(shaped.name) + 1, forms };
}
