// ICU arguments as the platform's printf specifiers, for formats whose runtime formats with printf (Android
// `getString(id, a, b)`, Apple `String(format:)`): `{name}` becomes `%1$s` / `%1$@` and a plural's `#`
// becomes the count's specifier, numbered by the order the arguments first appear in the source, so every
// language of a key takes its arguments in the same order. A value with no ICU argument (a file's own
// `%1$s`, plain text) is written unchanged; one that printf cannot express (a select, a nested plural) too.
import { TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { parseIcu, SIMPLE_ARGUMENT, simpleArguments } from './icu.js';
import type { CatalogValue } from './catalog.js';
import type { Part, Warn } from './convert.js';

interface PrintfStyle {
  string: string;
  number: string;
}
export const ANDROID: PrintfStyle = { string: 's', number: 'd' };
export const APPLE: PrintfStyle = { string: '@', number: 'lld' };

const POUND = '__pound__';

// Tags read as text: Android and Apple strings carry HTML and xliff markup that is not ICU rich text, written as it is.
function elements(text: string): MessageFormatElement[] | null {
  try {
    return parseIcu(text, 'text');
  } catch {
    return null;
  }
}

/** Argument names of a source message in order of first appearance, plural and select arguments included. */
export function argOrder(source: string): string[] {
  const simple = simpleArguments(source);
  if (simple) return simple;
  const order: string[] = [];
  const walk = (els: MessageFormatElement[]) => {
    for (const el of els) {
      if ('value' in el && el.type !== TYPE.literal && typeof el.value === 'string' && !order.includes(el.value))
        order.push(el.value);
      if (el.type === TYPE.plural || el.type === TYPE.select) for (const o of Object.values(el.options)) walk(o.value);
    }
  };
  walk(elements(source) ?? []);
  return order;
}

/**
 * `text` with its ICU arguments as positional printf specifiers. `poundArg`: for the branch text of a plural,
 * the plural's argument, whose count an unquoted `#` stands for.
 */
export function icuToPrintf(text: string, order: string[], style: PrintfStyle, poundArg?: string): string {
  const position = (name: string) => {
    let i = order.indexOf(name);
    if (i === -1) {
      order.push(name);
      i = order.length - 1;
    }
    return i + 1;
  };
  const simple = poundArg ? null : simpleArguments(text);
  if (simple) {
    if (!simple.length) return text;
    let out = '';
    let from = 0;
    for (const m of text.matchAll(SIMPLE_ARGUMENT)) {
      out += text.slice(from, m.index).replace(/%/g, '%%') + `%${position(m[1])}$${style.string}`;
      from = m.index + m[0].length;
    }
    return out + text.slice(from).replace(/%/g, '%%');
  }
  const marked = poundArg ? text.replace(/(^|[^'])#/g, `$1{${POUND}}`) : text;
  const els = elements(marked);
  if (!els || !els.some((el) => el.type === TYPE.argument || el.type === TYPE.number)) return text;
  if (els.some((el) => el.type !== TYPE.literal && el.type !== TYPE.argument && el.type !== TYPE.number)) return text;
  return els
    .map((el) => {
      if (el.type === TYPE.literal) return el.value.replace(/%/g, '%%');
      const name = el.type === TYPE.argument && el.value === POUND ? poundArg! : (el as { value: string }).value;
      const numeric = el.type === TYPE.number || (el.type === TYPE.argument && el.value === POUND);
      return `%${position(name)}$${numeric ? style.number : style.string}`;
    })
    .join('');
}

/** The argument order of an entry's source value (a plural's own argument first). */
export function orderOf(v: CatalogValue | undefined): string[] {
  if (!v) return [];
  if (v.kind === 'text') return argOrder(v.text);
  const order = [v.arg ?? 'count'];
  for (const f of Object.values(v.forms)) for (const a of argOrder(f)) if (!order.includes(a)) order.push(a);
  return order;
}

// One printf conversion: `%%`, or `%`, an optional position (`1$`), flags, width, precision, a length modifier
// (`hh` `h` `ll` `l` `L` `q` `j` `z` `t`) and a conversion, Apple's `@` included. The space flag is left out on
// purpose: `50% off` is prose, not `% o`.
const PRINTF_SPEC =
  /%(?:%|(?:\d+\$)?[-+#0']*(?:\d+|\*(?:\d+\$)?)?(?:\.(?:\d+|\*(?:\d+\$)?))?(?:hh|h|ll|l|L|q|j|z|t)?[diouxXDOUeEfFgGaAcCsSp@])/g;

/**
 * The printf conversion specifications of `text`, in order, each with its offset (`%%` included, so a caller
 * protecting them keeps the escape whole; a caller comparing arguments skips it).
 */
export function printfSpecifiers(text: string): Array<{ index: number; spec: string }> {
  if (!text.includes('%')) return [];
  return [...text.matchAll(PRINTF_SPEC)].map((m) => ({ index: m.index, spec: m[0] }));
}

/**
 * A leaf of packages/core/src/convert.ts's tree as printf text: literal `%` doubled, each argument a positional specifier
 * numbered by `order` (extended with names it lacks). `#` and `integer` numbers take the style's number specifier;
 * any other number, date or time is formatted by the app and passed as a string (`%1$s` / `%1$@`), never forced to
 * an integer, and reported, since the message no longer formats it.
 */
export function leafToPrintf(parts: Part[], order: string[], style: PrintfStyle, warn: Warn): string {
  // A loop, not writeLeaf's table of closures: this runs for every cell of a publish (bench/publish.ts).
  let out = '';
  for (const p of parts) {
    if (p.type === 'text') {
      out += p.text.replace(/%/g, '%%');
      continue;
    }
    const at = `%${printfPosition(order, p.name)}$`;
    if (p.type === 'arg') out += at + style.string;
    else if (p.type === 'count' || (p.type === 'number' && p.style === 'integer')) out += at + style.number;
    else {
      if (p.type !== 'number' || p.style !== null)
        warn(`{${p.name}, ${p.type}${p.style ? `, ${p.style}` : ''}} is formatted by the app and passed as a string`);
      out += at + style.string;
    }
  }
  return out;
}

/** An argument's printf position (1-based) in `order`, which takes the name at its end when it lacks it. */
function printfPosition(order: string[], name: string): number {
  const i = order.indexOf(name);
  return (i === -1 ? order.push(name) - 1 : i) + 1;
}

/**
 * The inverse of icuToPrintf for a file a platform's translators wrote or the service rendered (Android
 * `values-xx/strings.xml`, Apple `.strings`): positional or sequential specifiers back to the ICU arguments of
 * `order` (the source's), the count's specifier in a plural form back to `#` (`poundArg`), `%%` back to `%`. A
 * specifier past the source's arguments stays as it is, for the publish gate to judge.
 */
export function printfToIcu(text: string, order: string[], poundArg?: string): string {
  let next = 0;
  return text.replace(PRINTF_SPEC, (spec) => {
    if (spec === '%%') return '%';
    const pos = /^%(\d+)\$/.exec(spec);
    const i = pos ? Number(pos[1]) - 1 : next++;
    const name = order[i];
    if (name === undefined) return spec;
    const numeric = /[diouxXDOU]$/.test(spec);
    return numeric && name === poundArg ? '#' : `{${name}}`;
  });
}
