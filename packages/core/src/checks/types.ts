// The check engine's data: what a cell is checked with, what a check is, what it finds. Plain data, so the server,
// the dashboard and the CLI can hand it around as JSON (docs/guides/checks.md).
import type { FormatId } from '../catalog.js';
import type { MarkupPolicy } from '../markup.js';

export type Severity = 'error' | 'warning' | 'info';

/** A range of UTF-16 offsets, `end` excluded, in the text the result is about (`field`). */
export interface Span {
  start: number;
  end: number;
}

/** What a result is about: the translation (most checks), the source, or the key's name. */
export type Field = 'target' | 'source' | 'key';

export interface CheckResult {
  /** The check's id (`end-stop`), or `custom:<id>` for a project's own check. */
  id: string;
  severity: Severity;
  message: string;
  field: Field;
  /** Where in `field` the problem is, for highlighting; absent when it is the text as a whole. */
  spans?: Span[];
}

/**
 * A termbase entry (the glossary check, packages/core/src/terms/check.ts): where `source` occurs in a source, in any
 * inflected form, one of `targets` is expected in the translation; a `forbidden` entry's targets must not occur in
 * it; a `nonTranslatable` entry's source is kept in it as written. An `abbreviation` matches its exact words only.
 */
export interface Term {
  source: string;
  targets: string[];
  caseSensitive?: boolean;
  forbidden?: boolean;
  nonTranslatable?: boolean;
  abbreviation?: boolean;
}

/**
 * A project's own check: a regular expression (RE2 syntax, run by re2js in linear time) that the text must match
 * (`must-match`) or must not match (`must-not-match`).
 */
export interface CustomCheck {
  /** Unique in the project: `[a-z0-9-]{1,40}`; results carry `custom:<id>`. */
  id: string;
  /** What a reviewer reads. */
  name: string;
  pattern: string;
  mode: 'must-match' | 'must-not-match';
  severity: Severity;
  caseInsensitive?: boolean;
  /** The translation (default) or the source. */
  on?: 'target' | 'source';
  /** Only for these target languages (the language itself or a subtag of it: `pt` covers `pt-BR`); all when absent. */
  languages?: string[];
}

export interface CheckSettings {
  /** Severity per check id, replacing its default. */
  severity?: Record<string, Severity>;
  /** Check ids that do not run. */
  disabled?: string[];
  custom?: CustomCheck[];
  /**
   * How much longer than its source a translation may be before `expansion` reports it: the factor on the source's
   * length (default 2.5; 10 characters are always allowed on top, for short strings).
   */
  expansionFactor?: number;
}

/** One cell to check: a translation of a key's source. */
export interface CheckInput {
  source: string;
  target: string;
  sourceLang: string;
  targetLang: string;
  key: string;
  ctx?: string | null;
  comment?: string | null;
  /** The key's length limit; else a `[CHAR LIMIT=n]` in the comment or ctx (Android's convention) is read. */
  maxLength?: number | null;
  /** The project's configured output formats: format-specific checks run for these only. */
  formats?: readonly FormatId[];
  settings?: CheckSettings;
  /** Termbase entries for this cell (the glossary check); the check passes when none are given. */
  terms?: readonly Term[];
  /** Origins a translated URL may point to (markup-safety), as the publish gate takes them. */
  markup?: MarkupPolicy;
}

/** A key's source alone (checkSource). */
export type SourceInput = Omit<CheckInput, 'target' | 'targetLang' | 'terms'> & { targetLang?: string };

/** An example in a check's definition: the cell, with defaults for what it leaves out (en → de, key `k`). */
export interface CheckExample {
  source: string;
  target?: string;
  sourceLang?: string;
  targetLang?: string;
  key?: string;
  comment?: string;
  maxLength?: number;
  formats?: FormatId[];
  terms?: Term[];
}

export type Category =
  | 'syntax'
  | 'placeholders'
  | 'plurals'
  | 'markup'
  | 'whitespace'
  | 'punctuation'
  | 'content'
  | 'length'
  | 'characters'
  | 'translation'
  | 'formats'
  | 'keys';

/** What a check found: a message, and where. */
export interface Finding {
  message: string;
  spans?: Span[];
  /** When it is not the check's own field (the ICU syntax check finds a source that does not parse). */
  field?: Field;
}
