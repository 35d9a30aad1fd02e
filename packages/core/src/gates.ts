// The publish gates (spec: `publishVersion`, `restoreVersion`): a cell whose value would break the app at runtime is refused by publish and
// reported as a warning by restore. Two independent verdicts, so a cell can fail either or both:
// - icu: the value must parse, name the same arguments as its source, and give every cardinal plural exactly the
//   target language's CLDR categories (`=N` may be added), and show in each branch that stands for many numbers
//   what the source's `other` shows (plural-coverage.ts);
// - markup: the value's markup must be safe (markup.ts: no script, event handler or foreign URL) and carry the same
//   tags as its source, counted by name, branch by branch.
// The icu verdict also holds the value to the source's printf specifiers (`%lld`, `%1$@`, `%.2f`), branch by branch:
// an Apple or Android runtime formats the string with printf, and a lost or changed specifier crashes it or shows
// the wrong argument.
import {
  TYPE,
  type PluralElement,
  type PluralOrSelectOption,
  type SelectElement,
} from '@formatjs/icu-messageformat-parser';
import { checkTranslation, icuGate, isExactKey, parseAny, PUBLISH_GATE, walkIcu, type IcuAst } from './icu.js';
import { scanMarkup, unsafeMarkup, type MarkupPolicy } from './markup.js';
import { pluralCoverageProblem } from './plural-coverage.js';
import { printfSpecifiers } from './printf.js';

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

/**
 * Tags of a raw string as a sorted multiset: `b` for `<b>` and `<b/>`, `/b` for `</b>` (right after its `b`). Read
 * by the HTML tokenizer (markup.ts), so `<img/src=x>` counts as the `<img>` it is.
 */
function tagScan(text: string): string[] {
  const order = (t: string) => (t.startsWith('/') ? `${t.slice(1)}\u0001` : t);
  if (!text.includes('<')) return [];
  return scanMarkup(text).names.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
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

interface BranchView {
  label: string;
  source: string;
  value: string;
}

/**
 * The two messages branch by branch: a Polish plural has four branches for the source's two, and each of them
 * carries what the source branch it translates carries (its own category, else `other`).
 */
function branchViews(source: string, value: string): BranchView[] {
  const src = parseAny(source, true);
  const val = parseAny(value, false);
  if (!src || !val) return [{ label: '', source, value }];
  const keys = new Set(['other', ...optionKeys(src)]);
  // A branch the value adds for an exact number has no source branch to match.
  for (const k of optionKeys(val)) if (!isExactKey(k)) keys.add(k);
  const single = keys.size === 1;
  return [...keys].map((k) => ({
    label: single ? '' : ` (${k})`,
    source: project(source, src, 0, source.length, k),
    value: project(value, val, 0, value.length, k),
  }));
}

function markupGate(views: BranchView[]): string | undefined {
  for (const v of views) {
    const want = tagScan(v.source);
    const have = tagScan(v.value);
    if (want.join('\0') !== have.join('\0'))
      return `tags differ${v.label}: expected ${showTags(want)}, got ${showTags(have)}`;
  }
  return undefined;
}

/** The printf specifiers of a text as a sorted multiset, `%%` left out (an escape, not an argument). */
function printfScan(text: string): string[] {
  return printfSpecifiers(text)
    .map((s) => s.spec)
    .filter((s) => s !== '%%')
    .sort();
}

/** What `a` has beyond `b`, both sorted multisets. */
function beyond(a: string[], b: string[]): string[] {
  const rest = [...b];
  return a.filter((x) => {
    const i = rest.indexOf(x);
    if (i === -1) return true;
    rest.splice(i, 1);
    return false;
  });
}

function printfGate(views: BranchView[]): string | undefined {
  for (const v of views) {
    const want = printfScan(v.source);
    const have = printfScan(v.value);
    if (want.join('\0') === have.join('\0')) continue;
    const missing = beyond(want, have);
    const extra = beyond(have, want);
    return `printf specifiers differ${v.label}: ${[
      missing.length ? `missing ${missing.join(' ')}` : '',
      extra.length ? `unexpected ${extra.join(' ')}` : '',
    ]
      .filter(Boolean)
      .join('; ')}`;
  }
  return undefined;
}

/**
 * Markup and printf verdicts (when either side has a tag, or a `%`). Safety is judged on the whole messages (a
 * branch the value adds for an exact number is in no projection); tag counts and printf, branch by branch.
 */
function textGates(source: string, value: string, policy: MarkupPolicy): { markup?: string; printf?: string } {
  const tagged = source.includes('<') || value.includes('<');
  const formatted = source.includes('%') || value.includes('%');
  if (!tagged && !formatted) return {};
  const unsafe = tagged ? unsafeMarkup(source, value, policy) : null;
  const views = branchViews(source, value);
  return {
    markup: unsafe ?? (tagged ? markupGate(views) : undefined),
    printf: formatted ? printfGate(views) : undefined,
  };
}

/**
 * The fill's gate (what every engine holds its answers to before one is stored): ICU under the fill policy (tags
 * read as the source reads them, structure kept), the same markup as the source, and the same printf specifiers.
 * null when `value` may be stored, else a short reason an engine can hand back to a model.
 */
export function checkFill(source: string, value: string, targetLang: string, policy: MarkupPolicy = {}): string | null {
  const icu = checkTranslation(source, value, targetLang) ?? pluralCoverageProblem(source, value, targetLang);
  if (icu) return icu;
  const { markup, printf } = textGates(source, value, policy);
  return markup ?? printf ?? null;
}

/**
 * The gates' verdict on one cell: `value` in `lang`, translating `source` (for a base cell, the source against
 * itself). An empty object means the cell may be published.
 */
export function gateCell(source: string, value: string, lang: string, policy: MarkupPolicy = {}): GateVerdict {
  const verdict: GateVerdict = {};
  const icu = icuGate(source, value, lang, PUBLISH_GATE) ?? pluralCoverageProblem(source, value, lang);
  const { markup, printf } = textGates(source, value, policy);
  if (icu || printf) verdict.icu = icu ?? printf;
  if (markup) verdict.markup = markup;
  return verdict;
}

/**
 * The gates' verdict on a value imported from the team's own file (the sync contract stores it verbatim): its ICU
 * syntax, and markup that is safe to ship; its tags need not match the source's. `icuOk` is the caller's syntax check.
 */
export function gateImported(source: string, value: string, icuOk: boolean, policy: MarkupPolicy = {}): GateVerdict {
  const verdict: GateVerdict = {};
  if (!icuOk) verdict.icu = 'invalid ICU syntax';
  const unsafe = unsafeMarkup(source, value, policy);
  if (unsafe) verdict.markup = unsafe;
  return verdict;
}
