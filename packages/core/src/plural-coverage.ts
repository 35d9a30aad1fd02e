// A plural branch that stands for many numbers must show them. English `one` is the number 1 alone, so
// `one {{name} added a photo}` is a full translation; Russian `one` is 1, 21, 31, 101, …, so the same branch in
// Russian says "added a photo" of 21 photos. GNU gettext holds PO files to this (`msgfmt --check`: a msgstr[n]
// whose form is chosen for five or more of the numbers 0 to 1000 must carry every argument of msgid_plural),
// and the publish gates hold every translation to the same rule, whatever file it ships in (the `plural-number`
// check of packages/core/src/checks, in gates.ts `gateCell` and `checkFill`). The line is gettext's, so a category
// of a few fixed numbers (French `one` = 0 and 1, Irish `few` = 3 to 6) may still name them in words: the review's
// `plural-few-numbers` check warns of those, since French `une photo` is also said of 0 photos.
import { TYPE, type PluralElement, type PluralOrSelectOption } from '@formatjs/icu-messageformat-parser';
import { isExactKey, parseAny, type IcuAst } from './icu.js';
import { languageKey } from './languages.js';

/** gettext's line (msgl-check.c): a form chosen for at least this many of the integers 0..1000 is used "often". */
const OFTEN = 5;
const LAST = 1000;

const coverage = new Map<string, Map<string, number[]>>();

/** The integers 0..1000 that each CLDR cardinal category of `lang` stands for; null for a tag Intl refuses. */
function integersByCategory(lang: string): Map<string, number[]> | null {
  let byCategory = coverage.get(lang);
  if (!byCategory) {
    let rules: Intl.PluralRules;
    try {
      rules = new Intl.PluralRules(languageKey(lang));
    } catch {
      return null;
    }
    byCategory = new Map();
    for (let n = 0; n <= LAST; n++) {
      const c = rules.select(n);
      const list = byCategory.get(c) ?? [];
      list.push(n);
      byCategory.set(c, list);
    }
    coverage.set(lang, byCategory);
  }
  return byCategory;
}

/** The numbers `category` stands for in `lang` when they are many (gettext's "often"), else null. */
export function manyNumbers(lang: string, category: string): number[] | null {
  const numbers = integersByCategory(lang)?.get(category);
  return numbers && numbers.length >= OFTEN ? numbers : null;
}

/** The integers 0..1000 `category` stands for in `lang` (none for a category of fractions, like Czech `many`). */
export const numbersOf = (lang: string, category: string): number[] => integersByCategory(lang)?.get(category) ?? [];

/** Argument names a branch shows; `#` is the enclosing plural's `count`. Nested plurals name their own `#`. */
function argumentsOf(nodes: IcuAst, count: string, out = new Set<string>()): Set<string> {
  for (const el of nodes) {
    if (el.type === TYPE.pound) out.add(count);
    else if (el.type === TYPE.tag) argumentsOf(el.children, count, out);
    else if (el.type !== TYPE.literal) {
      out.add(el.value);
      if (el.type === TYPE.plural || el.type === TYPE.select) {
        const inner = el.type === TYPE.plural ? el.value : count;
        for (const opt of Object.values<PluralOrSelectOption>(el.options)) argumentsOf(opt.value, inner, out);
      }
    }
  }
  return out;
}

/** Every cardinal plural of an AST, through branches and tags. */
function cardinalPlurals(nodes: IcuAst, out: PluralElement[] = []): PluralElement[] {
  for (const el of nodes) {
    if (el.type === TYPE.tag) cardinalPlurals(el.children, out);
    else if (el.type === TYPE.plural || el.type === TYPE.select) {
      if (el.type === TYPE.plural && el.pluralType !== 'ordinal') out.push(el);
      for (const opt of Object.values<PluralOrSelectOption>(el.options)) cardinalPlurals(opt.value, out);
    }
  }
  return out;
}

const braces = (names: Iterable<string>) => [...names].map((n) => `{${n}}`).join(', ');

/** A branch that stands for several numbers and does not show what its source's `other` shows. */
interface CoverageGap {
  plural: string;
  category: string;
  /** The integers 0..1000 the category stands for in the language. */
  numbers: number[];
  missing: string[];
}

/**
 * The plural branches of `value` (in `lang`, translating `source`) that stand for more than one number but leave
 * out an argument the source's `other` branch shows: what every such branch owes (gettext's msgid_plural). `src`
 * and `val` are the two parses when the caller has them (icu.ts parseAny). A message that does not parse is the
 * ICU rule's to report.
 */
export function coverageGaps(
  source: string,
  value: string,
  lang: string,
  src: IcuAst | null = parseAny(source, true),
  val: IcuAst | null = value.includes('plural') ? parseAny(value, false) : null,
): CoverageGap[] {
  if (!value.includes('plural') || !src || !val) return [];
  // What the source's `other` shows, per plural argument (a plural named twice owes what both show).
  const owed = new Map<string, Set<string>>();
  for (const el of cardinalPlurals(src)) {
    const other = el.options.other;
    if (!other) continue;
    const shown = argumentsOf(other.value, el.value);
    const before = owed.get(el.value);
    owed.set(el.value, before ? new Set([...before].filter((n) => shown.has(n))) : shown);
  }
  const gaps: CoverageGap[] = [];
  if (!owed.size) return gaps;
  for (const el of cardinalPlurals(val)) {
    const want = owed.get(el.value);
    if (!want?.size) continue;
    for (const [category, opt] of Object.entries<PluralOrSelectOption>(el.options)) {
      if (isExactKey(category)) continue;
      const numbers = numbersOf(lang, category);
      if (numbers.length < 2) continue;
      const shown = argumentsOf(opt.value, el.value);
      const missing = [...want].filter((n) => !shown.has(n));
      if (missing.length) gaps.push({ plural: el.value, category, numbers, missing });
    }
  }
  return gaps;
}

/** A gap as a reviewer reads it. */
export const describeGap = (g: CoverageGap, lang: string): string =>
  `plural {${g.plural}} (${g.category}) stands for ${
    g.numbers.length >= OFTEN ? `${g.numbers.slice(0, 3).join(', ')}, …` : g.numbers.join(' and ')
  } in ${lang}: it must show ${braces(g.missing)} as the source's other form does`;

/** Whether gettext holds a gap's branch to its msgid_plural (a category that stands for many numbers). */
export const isManyGap = (g: CoverageGap): boolean => g.numbers.length >= OFTEN;

/**
 * A message made from its own source (pseudo-localization, conformAst's copies): each branch of a category that
 * stands for many numbers in `lang` and leaves out what its plural's `other` shows becomes a copy of `other`
 * (mutates in place), so the result passes the `plural-number` check against the source it was made from.
 */
export function coverManyNumbers(ast: IcuAst, lang: string): void {
  for (const el of cardinalPlurals(ast)) {
    const other = el.options.other;
    if (!other) continue;
    const want = argumentsOf(other.value, el.value);
    for (const [category, opt] of Object.entries<PluralOrSelectOption>(el.options)) {
      if (category === 'other' || isExactKey(category) || !manyNumbers(lang, category)) continue;
      const shown = argumentsOf(opt.value, el.value);
      if ([...want].some((n) => !shown.has(n))) opt.value = structuredClone(other.value);
    }
  }
}
