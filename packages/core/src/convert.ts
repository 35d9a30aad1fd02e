// The one conversion layer from ICU to the runtimes that do not read ICU (i18next, Android, Apple, gettext, Flutter).
// A message is parsed once, its selectors are hoisted so that every branch is a whole sentence (what every
// platform's plural resources hold: `{n} added {count, plural, …}` becomes one plural of full sentences), and the
// result is a small tree a format walks: selectors on top, flat runs of text and arguments at the leaves. Each
// format decides per feature what it writes (native, converted, or a documented fallback it reports with `warn`);
// README "What each file can express" is the table of those decisions.
import {
  isDateTimeSkeleton,
  isNumberSkeleton,
  TYPE,
  type MessageFormatElement,
} from '@formatjs/icu-messageformat-parser';
import { hoistSelectors } from '@formatjs/icu-messageformat-parser/manipulator.js';
import { dict } from './catalog.js';
import { isExactKey, parseIcu, SIMPLE_ARGUMENT, simpleArguments } from './icu.js';

/** One piece of a sentence between selectors. Literal text has its ICU quoting resolved (`'{'` is `{`). */
export type Part =
  | { type: 'text'; text: string }
  | { type: 'arg'; name: string }
  /** `#` (or `{count, number}` that hoisting wrote for it): the number of the enclosing plural named `name`. */
  | { type: 'count'; name: string }
  /**
   * `{n, number, …}`. `style`: null, a named style (`integer`, `percent`, `currency`) or `::skeleton`; `options`:
   * what Intl.NumberFormat makes of it (empty when there is nothing to say).
   */
  | { type: 'number'; name: string; style: string | null; options: Intl.NumberFormatOptions }
  | { type: 'date'; name: string; style: string | null; options: Intl.DateTimeFormatOptions }
  | { type: 'time'; name: string; style: string | null; options: Intl.DateTimeFormatOptions };

export type Flat =
  | { kind: 'leaf'; parts: Part[] }
  | { kind: 'plural'; name: string; ordinal: boolean; offset: number; options: Record<string, Flat> }
  | { kind: 'select'; name: string; options: Record<string, Flat> };

/** What a format reports for a message it writes in a documented fallback (publish result `formatWarnings`). */
export type Warn = (reason: string) => void;

// Named number styles as Intl reads them; `currency` names no currency, so it says nothing Intl can use alone.
const NUMBER_STYLES: Record<string, Intl.NumberFormatOptions> = {
  integer: { maximumFractionDigits: 0 },
  percent: { style: 'percent' },
};
const DATE_STYLES: Record<string, Intl.DateTimeFormatOptions['dateStyle']> = {
  short: 'short',
  medium: 'medium',
  long: 'long',
  full: 'full',
};

const plainText = (text: string): Flat => ({ kind: 'leaf', parts: text ? [{ type: 'text', text }] : [] });

/**
 * `icu` as a tree of whole sentences, or null when it is not an ICU message (a synced file's own `%1$s` text that
 * ICU cannot read is written as it is by the caller). Tags are read as text: every runtime here keeps markup as
 * written, and HTML with attributes (`<a href='…'>`) is not ICU rich text.
 */
export function flatten(icu: string): Flat | null {
  // Text with simple arguments only (most messages): no selector to hoist, no quoting to resolve.
  const simple = simpleArguments(icu);
  if (simple) return simple.length ? { kind: 'leaf', parts: simpleParts(icu) } : plainText(icu);
  try {
    const ast = parseIcu(icu, 'text');
    return toFlat(needsHoisting(ast) ? hoistSelectors(ast) : ast, null);
  } catch {
    // Not ICU, or a plural with an offset whose `#` sits outside it, which hoisting leaves beside other text.
    return null;
  }
}

/** A message of text and `{name}` arguments only (simpleArguments), split without a parse: most cells of a publish. */
export function simpleParts(icu: string): Part[] {
  const parts: Part[] = [];
  let from = 0;
  SIMPLE_ARGUMENT.lastIndex = 0;
  for (let m = SIMPLE_ARGUMENT.exec(icu); m; m = SIMPLE_ARGUMENT.exec(icu)) {
    if (m.index > from) parts.push({ type: 'text', text: icu.slice(from, m.index) });
    parts.push({ type: 'arg', name: m[1] });
    from = m.index + m[0].length;
  }
  if (from < icu.length) parts.push({ type: 'text', text: icu.slice(from) });
  return parts;
}

// hoistSelectors deep-copies the whole message, ten times the parse's cost: most plurals and selects are whole
// sentences already (one selector, nothing beside it, at every level) and skip it.
const needsHoisting = (ast: MessageFormatElement[]): boolean =>
  ast.some(
    (el) =>
      (el.type === TYPE.plural || el.type === TYPE.select) &&
      (ast.length > 1 || Object.values(el.options).some((o) => needsHoisting(o.value))),
  );

function toFlat(ast: MessageFormatElement[], plural: string | null): Flat {
  if (ast.length === 1 && (ast[0].type === TYPE.plural || ast[0].type === TYPE.select)) {
    const el = ast[0];
    const options = dict<Flat>();
    const inner = el.type === TYPE.plural ? el.value : plural;
    // Hoisting made each option a whole sentence, itself hoisted: one selector, or none.
    for (const [key, opt] of Object.entries(el.options)) options[key] = toFlat(opt.value, inner);
    if (el.type === TYPE.select) return { kind: 'select', name: el.value, options };
    return { kind: 'plural', name: el.value, ordinal: el.pluralType === 'ordinal', offset: el.offset, options };
  }
  const parts: Part[] = [];
  const text = (t: string) => {
    const last = parts[parts.length - 1];
    if (last?.type === 'text') last.text += t;
    else if (t) parts.push({ type: 'text', text: t });
  };
  for (const el of ast) {
    switch (el.type) {
      case TYPE.literal:
        text(el.value);
        break;
      case TYPE.argument:
        parts.push({ type: 'arg', name: el.value });
        break;
      case TYPE.pound:
        parts.push({ type: 'count', name: plural ?? '' });
        break;
      case TYPE.number: {
        const style = el.style ?? null;
        // Hoisting writes an enclosing plural's `#` that moved into a nested option as `{count, number}`.
        if (style === null && el.value === plural) parts.push({ type: 'count', name: el.value });
        else if (isNumberSkeleton(style))
          parts.push({
            type: 'number',
            name: el.value,
            style: `::${style.tokens.map((t) => [t.stem, ...t.options].join('/')).join(' ')}`,
            // formatjs's options type is a superset of the lib's Intl typing (`useGrouping: 'auto'`).
            options: style.parsedOptions as Intl.NumberFormatOptions,
          });
        else
          parts.push({
            type: 'number',
            name: el.value,
            style,
            options: style && Object.hasOwn(NUMBER_STYLES, style) ? NUMBER_STYLES[style] : {},
          });
        break;
      }
      case TYPE.date:
      case TYPE.time: {
        const style = el.style ?? null;
        const type = el.type === TYPE.date ? 'date' : 'time';
        if (isDateTimeSkeleton(style))
          parts.push({ type, name: el.value, style: `::${style.pattern}`, options: style.parsedOptions });
        else {
          const named = style && Object.hasOwn(DATE_STYLES, style) ? DATE_STYLES[style] : undefined;
          const options: Intl.DateTimeFormatOptions = named
            ? type === 'date'
              ? { dateStyle: named }
              : { timeStyle: named }
            : {};
          parts.push({ type, name: el.value, style, options });
        }
        break;
      }
      default:
        // Tags are read as text (flatten); a selector here is one hoisting could not lift (see flatten).
        throw new Error(`ICU element ${el.type} beside text`);
    }
  }
  return { kind: 'leaf', parts };
}

/**
 * `flat` with every selector that `keep` refuses replaced by its `other` branch, reported with `warn`: the fallback
 * of a platform that cannot choose on that selector (a select on Android, a selectordinal in gettext, ...).
 */
export function collapse(flat: Flat, keep: (node: Exclude<Flat, { kind: 'leaf' }>) => string | null, warn: Warn): Flat {
  if (flat.kind === 'leaf') return flat;
  const refused = keep(flat);
  if (refused) {
    warn(`${refused}: written as its \`other\` branch`);
    return collapse(flat.options.other ?? plainText(''), keep, warn);
  }
  const options = dict<Flat>();
  for (const [k, v] of Object.entries(flat.options)) options[k] = collapse(v, keep, warn);
  return { ...flat, options };
}

/** How a selector names itself in a warning. */
export function describe(node: Exclude<Flat, { kind: 'leaf' }>): string {
  if (node.kind === 'select') return `select {${node.name}}`;
  return `${node.ordinal ? 'selectordinal' : 'plural'} {${node.name}}`;
}

/** The leaves of a tree, depth first (every sentence the message can be). */
export function leaves(flat: Flat): Part[][] {
  if (flat.kind === 'leaf') return [flat.parts];
  return Object.values(flat.options).flatMap(leaves);
}

/** A plural's option keys split into CLDR categories and exact matches (`=0`), in their written order. */
export function splitOptions(options: Record<string, Flat>): { categories: string[]; exact: string[] } {
  const keys = Object.keys(options);
  return { categories: keys.filter((k) => !isExactKey(k)), exact: keys.filter(isExactKey) };
}

/** The number an exact key matches (`=0` → 0, `= 2` → 2). */
export const exactValue = (key: string): number => Number(key.replace(/^=\s*/, ''));

/** Writes a leaf with one function per part type; text is handed over with its quoting already resolved. */
export function writeLeaf(
  parts: Part[],
  write: { [T in Part['type']]: (part: Extract<Part, { type: T }>) => string },
): string {
  let out = '';
  for (const p of parts) out += (write[p.type] as (part: Part) => string)(p);
  return out;
}
