// A project's own checks: a regular expression the translation (or source) must or must not match. Patterns come
// from project members and run on every cell, so they run on re2js, whose automaton takes time linear in the text
// whatever the pattern: `(a+)+$` cannot hang a review. RE2 syntax has no lookaround or backreferences; a pattern
// that uses them, or is not valid, is reported with RE2's own reason (validateCustomCheck), never run.
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { languageKey } from '../languages.js';
import type { Cell } from './cell.js';
import type { CheckResult, CustomCheck, Span } from './types.js';

// Loaded on first use, not by every process that imports this module (docs/decisions/0035-modules-loaded-on-first-use.md).
const require = createRequire(import.meta.url);
let re2js: typeof import('re2js') | undefined;

const ID = /^[a-z0-9][a-z0-9-]{0,39}$/;
const MAX_PATTERN = 1000;
const MAX_SPANS = 20;

const compiled = new Map<string, RE2JS | Error>();

function compile(check: CustomCheck): RE2JS | Error {
  const key = `${check.caseInsensitive ? 'i' : '-'}${check.pattern}`;
  let re = compiled.get(key);
  if (!re) {
    try {
      const { RE2JS: Re } = (re2js ??= require('re2js') as typeof import('re2js'));
      re = Re.compile(check.pattern, check.caseInsensitive ? Re.CASE_INSENSITIVE : 0);
    } catch (e) {
      re = new Error((e as Error).message);
    }
    if (compiled.size > 500) compiled.clear();
    compiled.set(key, re);
  }
  return re;
}

/** Why a project's check cannot run (its id, name, mode, severity or pattern), or null. */
export function validateCustomCheck(check: CustomCheck): string | null {
  if (!ID.test(check.id)) return `custom check id ${JSON.stringify(check.id)}: 1 to 40 of a-z, 0-9 and -`;
  if (!check.name?.trim()) return `custom check ${check.id}: a name is required`;
  if (check.mode !== 'must-match' && check.mode !== 'must-not-match')
    return `custom check ${check.id}: mode is must-match or must-not-match`;
  if (!['error', 'warning', 'info'].includes(check.severity))
    return `custom check ${check.id}: severity is error, warning or info`;
  if (!check.pattern) return `custom check ${check.id}: the pattern is empty`;
  if (check.pattern.length > MAX_PATTERN)
    return `custom check ${check.id}: the pattern is longer than ${MAX_PATTERN} characters`;
  const re = compile(check);
  return re instanceof Error ? `custom check ${check.id}: invalid pattern: ${re.message}` : null;
}

const forLanguage = (check: CustomCheck, lang: string) => {
  if (!check.languages?.length) return true;
  const tag = languageKey(lang);
  return check.languages.some((l) => {
    const want = languageKey(l);
    return tag === want || tag.startsWith(`${want}-`);
  });
};

/** Where `re` matches `text`, in UTF-16 offsets (re2js reports them so for string input). */
function matches(re: RE2JS, text: string): Span[] {
  const spans: Span[] = [];
  const m = re.matcher(text);
  while (spans.length < MAX_SPANS && m.find()) {
    spans.push({ start: m.start(), end: m.end() });
    // An empty match would find itself again.
    if (m.end() === m.start() && m.end() >= text.length) break;
  }
  return spans;
}

/** The project's checks on one side of a cell; an invalid one is reported as an error result of its own id. */
export function customResults(cell: Cell, on: 'target' | 'source'): CheckResult[] {
  const out: CheckResult[] = [];
  for (const check of cell.settings.custom ?? []) {
    if ((check.on ?? 'target') !== on) continue;
    if (on === 'target' && !forLanguage(check, cell.targetLang)) continue;
    const id = `custom:${check.id}`;
    const invalid = validateCustomCheck(check);
    if (invalid) {
      out.push({ id, severity: 'error', field: on, message: invalid });
      continue;
    }
    const text = on === 'target' ? cell.target : cell.source;
    const spans = matches(compile(check) as RE2JS, text);
    if (check.mode === 'must-not-match' && spans.length)
      out.push({
        id,
        severity: check.severity,
        field: on,
        message: `${check.name}: matches ${JSON.stringify(text.slice(spans[0].start, spans[0].end))}`,
        spans,
      });
    else if (check.mode === 'must-match' && !spans.length)
      out.push({ id, severity: check.severity, field: on, message: `${check.name}: does not match` });
  }
  return out;
}
