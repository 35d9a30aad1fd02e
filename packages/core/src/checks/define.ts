// What a check is: its id, what it says, how bad it is by default, where it applies, and examples that trip it and
// pass it. The examples are part of the definition: test/unit/checks.test.ts runs every one, and the guide's
// table (docs/guides/checks.md) shows them.
import type { FormatId } from '../catalog.js';
import type { Cell } from './cell.js';
import type { Category, CheckExample, Field, Finding, Severity } from './types.js';

export interface CheckDefinition {
  /** Kebab-case, stable: settings and results name checks by it. */
  id: string;
  /** One line: what the check holds a text to. */
  description: string;
  severity: Severity;
  category: Category;
  /** What it reads: a translation (runChecks), a source or a key name (checkSource). */
  field: Field;
  /** How it differs by language (documented in the guide); `All languages.` when it does not. */
  languages: string;
  /** It runs only when one of these output formats is configured. */
  formats?: readonly FormatId[];
  /** Cells it reports. */
  trips: CheckExample[];
  /** Cells it lets through. */
  passes: CheckExample[];
  run(cell: Cell): Finding | Finding[] | null;
}

export const define = (d: CheckDefinition): CheckDefinition => d;

/** A finding, or null for an empty message (the usual `problem ? {message} : null`). */
export const found = (message: string | null | undefined, spans?: Finding['spans']): Finding | null =>
  message ? (spans?.length ? { message, spans } : { message }) : null;
