// The editor's ICU preview: a message formatted with sample values, once for each plural category of the language
// (and each option of a select), so a reviewer sees every form a user will read. It parses with the publisher's one
// ICU configuration (packages/core/src/icu.ts) and formats with Intl, on the server: the page shows it without script, and
// dashboard.js refreshes it from the same code (GET …/preview) as the person types. The output is plain text lines;
// tags are shown as written, and every line is escaped where it is rendered.
import { TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { parseIcu, pluralCategories, walkIcu, type IcuAst } from '../../packages/core/src/icu.js';

interface PreviewLine {
  /** What varies on this line, e.g. `count = 1 (one)`; empty for a message without plural or select. */
  label: string;
  text: string;
}

type Preview = { lines: PreviewLine[] } | { error: string };

const SAMPLE_DATE = new Date(Date.UTC(2024, 2, 14, 15, 9));

/** A sample number that `lang`'s rules put in `category` (cardinal or ordinal), or undefined when none is found. */
function sampleFor(lang: string, category: string, ordinal: boolean): number | undefined {
  const rules = new Intl.PluralRules(lang, { type: ordinal ? 'ordinal' : 'cardinal' });
  for (const n of [1, 2, 0, 3, 5, 11, 21, 22, 25, 100, 101, 1000000, 1.5, 0.5])
    if (rules.select(n) === category) return n;
  for (let n = 4; n < 1000; n++) if (rules.select(n) === category) return n;
  return undefined;
}

function categories(lang: string, ordinal: boolean): string[] {
  if (!ordinal) return pluralCategories(lang);
  return [...new Intl.PluralRules(lang, { type: 'ordinal' }).resolvedOptions().pluralCategories];
}

type Values = Record<string, string | number>;

/** A value by its argument name, own properties only (`constructor` is an argument name like any other). */
const valueOf = (values: Values, name: string) => (Object.hasOwn(values, name) ? values[name] : undefined);

function format(ast: IcuAst, values: Values, lang: string, hash?: number): string {
  let out = '';
  for (const el of ast) out += formatOne(el, values, lang, hash);
  return out;
}

function formatOne(el: MessageFormatElement, values: Values, lang: string, hash?: number): string {
  switch (el.type) {
    case TYPE.literal:
      return el.value;
    case TYPE.argument:
      return String(valueOf(values, el.value) ?? `{${el.value}}`);
    case TYPE.number: {
      const v = Number(valueOf(values, el.value) ?? 1234.5);
      const style = typeof el.style === 'string' ? el.style : null;
      const opts: Intl.NumberFormatOptions =
        style === 'percent' ? { style: 'percent' } : style === 'integer' ? { maximumFractionDigits: 0 } : {};
      return new Intl.NumberFormat(lang, opts).format(style === 'percent' ? v / 100 : v);
    }
    case TYPE.date:
      return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeZone: 'UTC' }).format(SAMPLE_DATE);
    case TYPE.time:
      return new Intl.DateTimeFormat(lang, { timeStyle: 'short', timeZone: 'UTC' }).format(SAMPLE_DATE);
    case TYPE.pound:
      return hash === undefined ? '#' : new Intl.NumberFormat(lang).format(hash);
    case TYPE.tag:
      return `<${el.value}>${format(el.children, values, lang, hash)}</${el.value}>`;
    case TYPE.select: {
      const key = String(valueOf(values, el.value) ?? 'other');
      const opt = Object.hasOwn(el.options, key) ? el.options[key] : el.options.other;
      return opt ? format(opt.value, values, lang, hash) : '';
    }
    case TYPE.plural: {
      const n = Number(valueOf(values, el.value) ?? 1);
      const exact = `=${n}`;
      const shifted = n - el.offset;
      const category = new Intl.PluralRules(lang, { type: el.pluralType }).select(shifted);
      const opt = Object.hasOwn(el.options, exact)
        ? el.options[exact]
        : Object.hasOwn(el.options, category)
          ? el.options[category]
          : el.options.other;
      return opt ? format(opt.value, values, lang, shifted) : '';
    }
    default:
      return '';
  }
}

/** The message's lines: every category of its first plural (or option of its first select), others at a sample. */
export function previewMessage(message: string, lang: string): Preview {
  let ast: IcuAst;
  try {
    ast = parseIcu(message, 'rich');
  } catch {
    try {
      ast = parseIcu(message, 'text');
    } catch (e) {
      return { error: `Not valid ICU: ${(e as Error).message}` };
    }
  }
  try {
    new Intl.PluralRules(lang);
  } catch {
    return { error: `No plural rules for ${lang}.` };
  }
  const values = Object.create(null) as Values;
  let vary: MessageFormatElement | undefined;
  walkIcu(ast, (el) => {
    if (el.type === TYPE.argument && !Object.hasOwn(values, el.value)) values[el.value] = `‹${el.value}›`;
    if ((el.type === TYPE.number || el.type === TYPE.plural) && !Object.hasOwn(values, el.value)) values[el.value] = 1;
    if (el.type === TYPE.select && !Object.hasOwn(values, el.value)) values[el.value] = 'other';
    if (!vary && (el.type === TYPE.plural || el.type === TYPE.select)) vary = el;
  });
  if (!vary) return { lines: [{ label: '', text: format(ast, values, lang) }] };
  const lines: PreviewLine[] = [];
  if (vary.type === TYPE.plural) {
    const ordinal = vary.pluralType === 'ordinal';
    for (const category of categories(lang, ordinal)) {
      const n = sampleFor(lang, category, ordinal);
      if (n === undefined) continue;
      const v = { ...values, [vary.value]: n + vary.offset };
      lines.push({ label: `${vary.value} = ${n + vary.offset} (${category})`, text: format(ast, v, lang) });
    }
  } else if (vary.type === TYPE.select) {
    for (const key of Object.keys(vary.options)) {
      const v = { ...values, [vary.value]: key };
      lines.push({ label: `${vary.value} = ${key}`, text: format(ast, v, lang) });
    }
  }
  return { lines };
}
