// The check engine: every check of the catalogue over one cell (runChecks) or one key's source (checkSource), with a
// project's settings (severities, disabled checks, its own regular-expression checks), and the gates' composition of
// the error rules (packages/core/src/gates.ts). Pure: plain data in, results out.
import { Cell } from './cell.js';
import { CATALOGUE, CHECKS_BY_ID } from './catalogue.js';
import { customResults } from './custom.js';
import type { CheckDefinition } from './define.js';
import type { CheckInput, CheckResult, CheckSettings, Field, Finding, SourceInput } from './types.js';

const asList = (f: Finding | Finding[] | null): Finding[] => (f === null ? [] : Array.isArray(f) ? f : [f]);

function applies(def: CheckDefinition, cell: Cell, disabled: ReadonlySet<string>): boolean {
  if (disabled.has(def.id)) return false;
  return !def.formats || def.formats.some((f) => cell.formats.has(f));
}

/** A check's findings as results; a check that throws is reported, never lets the others go unrun. */
function resultsOf(def: CheckDefinition, cell: Cell, settings: CheckSettings): CheckResult[] {
  let findings: Finding[];
  try {
    findings = asList(def.run(cell));
  } catch (e) {
    return [
      { id: def.id, severity: 'info', field: def.field, message: `the check could not run: ${(e as Error).message}` },
    ];
  }
  const severity = settings.severity?.[def.id] ?? def.severity;
  return findings.map((f) => ({
    id: def.id,
    severity,
    message: f.message,
    field: f.field ?? def.field,
    ...(f.spans?.length ? { spans: f.spans } : {}),
  }));
}

function run(cell: Cell, fields: readonly Field[]): CheckResult[] {
  const settings = cell.settings;
  const disabled = new Set(settings.disabled ?? []);
  const out: CheckResult[] = [];
  for (const def of CATALOGUE) {
    if (!fields.includes(def.field) || !applies(def, cell, disabled)) continue;
    out.push(...resultsOf(def, cell, settings));
  }
  return out;
}

/** Every translation check over one cell, then the project's own checks on the translation. */
export function runChecks(input: CheckInput): CheckResult[] {
  const cell = new Cell(input);
  return [...run(cell, ['target']), ...customResults(cell, 'target')];
}

/** Every check of a key's source and of its name (for the configured formats), then the project's own on the source. */
export function checkSource(input: SourceInput): CheckResult[] {
  const cell = new Cell(input);
  return [...run(cell, ['source', 'key']), ...customResults(cell, 'source')];
}

/**
 * The first finding among the checks `ids`, in that order, or null: how a gate composes the error rules into one
 * verdict (packages/core/src/gates.ts). Settings do not apply: a gate is the service's, not the project's.
 */
export function firstProblem(cell: Cell, ids: readonly string[]): string | null {
  for (const id of ids) {
    const def = CHECKS_BY_ID.get(id);
    if (!def) throw new Error(`no check ${id}`);
    const f = asList(def.run(cell))[0];
    if (f) return f.message;
  }
  return null;
}
