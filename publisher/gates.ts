// The publish gates (spec: `publishVersion`, `restoreVersion`): a cell whose value would break the app at runtime is refused by publish and
// reported as a warning by restore. Two independent verdicts, so a cell can fail either or both:
// - icu: the value must parse, name the same arguments as its source, and give every cardinal plural exactly the
//   target language's CLDR categories (`=N` may be added);
// - markup: the value must carry the same tags as its source, counted by name.
import {
  TYPE,
  type PluralElement,
  type PluralOrSelectOption,
  type SelectElement,
} from '@formatjs/icu-messageformat-parser';
import { icuGate, isExactKey, parseIcu, parseIcuRemembered, PUBLISH_GATE, walkIcu, type IcuAst } from './icu.js';

type Choice = PluralElement | SelectElement;

interface GateVerdict {
  /** Why the value is not acceptable ICU for `lang`; absent when it is. */
  icu?: string;
  /** Why the value's markup differs from the source's; absent when it does not. */
  markup?: string;
}

export const REJECTED_CAP = 50;

/** How a refused cell is listed in `icuRejected` / `markupRejected` and in 409 bodies. */
export const rejectionLabel = (key: string, lang: string): string => `${key} [${lang}]`;

/** The first `cap` items: the listed part of a rejection list, whose `*Total` companion is `list.length`. */
export function capList<T>(list: readonly T[], cap = REJECTED_CAP): T[] {
  return list.slice(0, Math.max(0, cap));
}

/** The AST in the first reading that parses it (rich text first), or null when neither does. Sources are remembered. */
function parseAny(msg: string, isSource: boolean): IcuAst | null {
  for (const tags of ['rich', 'text'] as const) {
    try {
      return isSource ? parseIcuRemembered(msg, tags) : parseIcu(msg, tags);
    } catch {
      // try the next reading
    }
  }
  return null;
}

// Opening, closing and self-closing tags, attributes and namespaces included (`<xliff:g id="x">`, `<a href='…'>`).
const TAG = /<(\/?)([A-Za-z][\w:.-]*)(?:\s[^<>]*)?\/?>/g;

/** Tags of a raw string as a sorted multiset: `b` for `<b>` and `<b/>`, `/b` for `</b>` (right after its `b`). */
function tagScan(text: string): string[] {
  const order = (t: string) => (t.startsWith('/') ? `${t.slice(1)}\u0001` : t);
  return [...text.matchAll(TAG)]
    .map((m) => `${m[1]}${m[2]}`)
    .sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

/** Plurals and selects of a node list, through tags but not through other choices (those are reached by projection). */
function choicesIn(nodes: IcuAst, out: Choice[] = []): Choice[] {
  for (const el of nodes) {
    if (el.type === TYPE.plural || el.type === TYPE.select) out.push(el);
    else if (el.type === TYPE.tag) choicesIn(el.children, out);
  }
  return out;
}

function optionKeys(ast: IcuAst): Set<string> {
  const keys = new Set<string>();
  walkIcu(ast, (el) => {
    if (el.type === TYPE.plural || el.type === TYPE.select) for (const k of Object.keys(el.options)) keys.add(k);
  });
  return keys;
}

/** The raw text of `msg[from, to)` with every plural/select replaced by its `key` branch (else `other`), recursively. */
function project(msg: string, nodes: IcuAst, from: number, to: number, key: string): string {
  let out = '';
  let at = from;
  for (const el of choicesIn(nodes)) {
    const options: Record<string, PluralOrSelectOption> = el.options;
    // Own options only: a key named `constructor` that this choice lacks must fall back on `other`, not find Object.
    const opt = Object.hasOwn(options, key) ? options[key] : options.other;
    if (!el.location || !opt?.location) continue;
    out += msg.slice(at, el.location.start.offset);
    // An option's location spans its braces.
    out += project(msg, opt.value, opt.location.start.offset + 1, opt.location.end.offset - 1, key);
    at = el.location.end.offset;
  }
  return out + msg.slice(at, to);
}

const showTags = (tags: string[]) => tags.map((t) => `<${t}>`).join(' ') || 'none';

function markupGate(source: string, value: string): string | undefined {
  // No tag on either side: nothing to compare (most cells).
  if (!source.includes('<') && !value.includes('<')) return undefined;
  const src = parseAny(source, true);
  const val = parseAny(value, false);
  // Tags are compared branch by branch: a Polish plural has four branches for the source's two, and each of them
  // carries the markup of the source branch it translates (its own category, else `other`).
  const views: Array<{ label: string; source: string; value: string }> = [];
  if (src && val) {
    const keys = new Set(['other', ...optionKeys(src)]);
    // A branch the value adds for an exact number has no source branch to match.
    for (const k of optionKeys(val)) if (!isExactKey(k)) keys.add(k);
    const single = keys.size === 1;
    for (const k of keys) {
      views.push({
        label: single ? '' : ` (${k})`,
        source: project(source, src, 0, source.length, k),
        value: project(value, val, 0, value.length, k),
      });
    }
  } else {
    views.push({ label: '', source, value });
  }
  for (const v of views) {
    const want = tagScan(v.source);
    const have = tagScan(v.value);
    if (want.join('\0') !== have.join('\0'))
      return `tags differ${v.label}: expected ${showTags(want)}, got ${showTags(have)}`;
  }
  return undefined;
}

/**
 * The gates' verdict on one cell: `value` in `lang`, translating `source` (for a base cell, the source against
 * itself). An empty object means the cell may be published.
 */
export function gateCell(source: string, value: string, lang: string): GateVerdict {
  const verdict: GateVerdict = {};
  const icu = icuGate(source, value, lang, PUBLISH_GATE);
  if (icu) verdict.icu = icu;
  const markup = markupGate(source, value);
  if (markup) verdict.markup = markup;
  return verdict;
}
