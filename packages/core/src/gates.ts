// The publish gates (spec: `publishVersion`, `restoreVersion`) and the fill's: a cell whose value would break the app
// at runtime is refused by publish and reported as a warning by restore, and an engine's answer that would be is
// never stored. Each gate is a composition of the check engine's error rules (packages/core/src/checks), so a
// review, the fill and the publish read a value by the same rule:
// - icu: the value parses (icu-syntax), names the source's arguments (icu-placeholders), gives every cardinal
//   plural exactly the target language's CLDR categories (plural-categories), shows in each branch that stands for
//   many numbers what the source's `other` shows (plural-number), and keeps the source's printf specifiers branch by
//   branch (printf-specifiers: an Apple or Android runtime formats the string with printf);
// - markup: safe to render (markup-safety: no script, event handler or foreign URL) and the source's tags, counted
//   by name, branch by branch (markup-tags).
// The fill also holds an engine to the source's plural and select structure (icu-structure) and to a target
// language Intl knows (language-tag).
import { Cell } from './checks/cell.js';
import { firstProblem } from './checks/engine.js';
import { unsafeMarkup, type MarkupPolicy } from './markup.js';

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

const FILL_ICU = [
  'icu-syntax',
  'icu-placeholders',
  'icu-structure',
  'language-tag',
  'plural-categories',
  'plural-number',
];
const PUBLISH_ICU = ['icu-syntax', 'icu-placeholders', 'plural-categories', 'plural-number'];
const MARKUP = ['markup-safety', 'markup-tags'];
const PRINTF = ['printf-specifiers'];

/** The gates read a cell without its key, languages of the source or settings: only what their rules need. */
const cellOf = (source: string, value: string, lang: string, policy: MarkupPolicy) =>
  new Cell({ source, target: value, sourceLang: '', targetLang: lang, key: '', markup: policy });

/** The fill's ICU verdict alone (checkFill without markup and printf): null when `value` is acceptable ICU. */
export function checkTranslation(source: string, value: string, targetLang: string): string | null {
  return firstProblem(cellOf(source, value, targetLang, {}), FILL_ICU);
}

/**
 * The fill's gate (what every engine holds its answers to before one is stored): ICU under the fill's rules (tags
 * read as the source reads them, structure kept), the same markup as the source, and the same printf specifiers.
 * null when `value` may be stored, else a short reason an engine can hand back to a model.
 */
export function checkFill(source: string, value: string, targetLang: string, policy: MarkupPolicy = {}): string | null {
  const cell = cellOf(source, value, targetLang, policy);
  return firstProblem(cell, FILL_ICU) ?? firstProblem(cell, MARKUP) ?? firstProblem(cell, PRINTF);
}

/**
 * The gates' verdict on one cell: `value` in `lang`, translating `source` (for a base cell, the source against
 * itself). An empty object means the cell may be published.
 */
export function gateCell(source: string, value: string, lang: string, policy: MarkupPolicy = {}): GateVerdict {
  const cell = cellOf(source, value, lang, policy);
  const verdict: GateVerdict = {};
  const icu = firstProblem(cell, PUBLISH_ICU) ?? firstProblem(cell, PRINTF);
  const markup = firstProblem(cell, MARKUP);
  if (icu) verdict.icu = icu;
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
