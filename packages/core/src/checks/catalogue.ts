// The catalogue: every check the engine runs, in the order results are listed. One definition per check; the
// gates (packages/core/src/gates.ts) name theirs from it, the guide's table (docs/guides/checks.md) is written
// from it, and test/unit/checks.test.ts runs every example in it.
import type { CheckDefinition } from './define.js';
import * as icu from './rules/icu.js';
import * as markup from './rules/markup.js';
import * as printf from './rules/printf.js';

export const CATALOGUE: readonly CheckDefinition[] = [
  icu.icuSyntax,
  icu.icuPlaceholders,
  icu.icuStructure,
  icu.languageTag,
  icu.pluralCategories,
  icu.pluralNumber,
  icu.pluralFewNumbers,
  icu.pluralSameForms,
  markup.markupSafety,
  markup.markupTags,
  printf.printfSpecifiersCheck,
  printf.printfOrder,
  printf.printfPositions,
];

export const CHECKS_BY_ID: ReadonlyMap<string, CheckDefinition> = new Map(CATALOGUE.map((d) => [d.id, d]));
