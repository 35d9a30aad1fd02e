// The catalogue: every check the engine runs, in the order results are listed. One definition per check; the
// gates (packages/core/src/gates.ts) name theirs from it, the guide's table (docs/guides/checks.md) is written
// from it, and test/unit/checks.test.ts runs every example in it.
import type { CheckDefinition } from './define.js';
import * as characters from './rules/characters.js';
import * as content from './rules/content.js';
import * as formats from './rules/formats.js';
import * as icu from './rules/icu.js';
import * as length from './rules/length.js';
import * as markup from './rules/markup.js';
import * as placeholders from './rules/placeholders.js';
import * as printf from './rules/printf.js';
import * as punctuation from './rules/punctuation.js';
import * as source from './rules/source.js';
import * as translation from './rules/translation.js';
import * as whitespace from './rules/whitespace.js';

export const CATALOGUE: readonly CheckDefinition[] = [
  // The translation.
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
  placeholders.i18nextPlaceholders,
  placeholders.pythonBrace,
  placeholders.pythonFormat,
  placeholders.androidFormat,
  placeholders.appleFormat,
  translation.empty,
  translation.unchanged,
  translation.repeatedWords,
  translation.glossary,
  whitespace.leadingWhitespace,
  whitespace.trailingWhitespace,
  whitespace.doubleSpace,
  whitespace.newlineCount,
  punctuation.endStop,
  punctuation.endQuestion,
  punctuation.endExclamation,
  punctuation.endColon,
  punctuation.endEllipsis,
  punctuation.ellipsisCharacter,
  punctuation.frenchSpacing,
  punctuation.cjkPunctuation,
  punctuation.spaceBeforePunctuation,
  punctuation.invertedMarks,
  punctuation.brackets,
  punctuation.quotes,
  content.numbers,
  content.urls,
  content.emails,
  content.markdownLinks,
  content.markdownSyntax,
  length.maxLength,
  length.expansion,
  characters.zeroWidth,
  characters.bidiOverride,
  characters.bidiMarks,
  characters.invisibleCharacters,
  characters.replacementCharacter,
  characters.mojibake,
  characters.mixedScripts,
  characters.targetScript,
  formats.androidEscapes,
  formats.literalEscapes,
  formats.entities,
  // The source.
  source.sourceIcu,
  source.sourceTags,
  source.sourceMarkupSafety,
  source.sourcePrintf,
  source.sourcePlaceholderSyntax,
  source.sourceBranchArguments,
  source.sourceWhitespace,
  source.sourceInvisible,
  source.sourceMaxLength,
  source.sourceBrackets,
  // The key's name.
  formats.keyCharacters,
  formats.keyAndroid,
  formats.keyArb,
  formats.keyNestedJson,
];

export const CHECKS_BY_ID: ReadonlyMap<string, CheckDefinition> = new Map(CATALOGUE.map((d) => [d.id, d]));
