// One cell's (or one key's source's) check results as they are stored and shown: the check engine
// (packages/core/src/checks/) run with the project's settings for the cell's language, its results in the API's
// shape (spec `CheckResult`), and the row that stores them (migration 028). Pure, so the background re-check runs
// it on worker threads (tasks.ts) exactly as the writers run it inline.
import type { FormatId } from '../../../packages/core/src/catalog.js';
import {
  CATALOGUE,
  checkSource,
  runChecks,
  type CheckResult as EngineResult,
  type CheckSettings,
  type CustomCheck,
  type Severity,
  type Term,
} from '../../../packages/core/src/checks/index.js';

/** A result as the API shows and the database stores it (spec `CheckResult`). */
export interface CheckResult {
  check: string;
  severity: Severity;
  message: string;
  field: 'target' | 'source' | 'key';
  spans?: Array<{ start: number; end: number }>;
}

/** What a language's settings may change (internal.yaml `CheckSettings.languages`). */
export interface LanguageSettings {
  severity?: Record<string, Severity>;
  disabled?: string[];
  expansionFactor?: number;
}

/** A project's check settings as stored (internal.yaml `CheckSettings`). */
export interface StoredSettings extends LanguageSettings {
  custom?: CustomCheck[];
  /** By language code, normalized. */
  languages?: Record<string, LanguageSettings>;
  blockPublishOnErrors?: boolean;
}

/** What every cell of a project is checked with: plain data, so it crosses to a worker thread. */
export interface CheckContext {
  baseLang: string;
  formats: FormatId[];
  /** The project's markup origins (server/domain/project/projects.ts `markupPolicy`). */
  origins: string[];
  settings: StoredSettings;
  /**
   * The termbase's entries by target language (server/domain/terms/glossary.ts checkTermsFor), for the glossary
   * check; absent or empty: the check passes.
   */
  terms?: Record<string, Term[]>;
  /**
   * What `terms` were read at (the termbase's stamp): a worker thread, which gets a copy of the context with every
   * slice, keeps the first copy for a stamp, so the matcher's indexes (built per list) are built once, not per slice.
   */
  termsStamp?: string;
}

/** A key as the checks read it. */
export interface KeyInput {
  id: number;
  name: string;
  source: string;
  ctx: string | null;
  comment: string | null;
}

/** A cell_checks row's content (migration 028); a cell that passes every check has no row. */
export interface CheckRow {
  key_id: number;
  lang: string;
  errors: number;
  warnings: number;
  infos: number;
  ids: string;
  results: string;
}

/** Results a cell keeps at most, and the length of a message kept: a hostile value cannot grow a row without end. */
const MAX_RESULTS = 20;
const MAX_MESSAGE = 500;
const MAX_SPANS = 20;

/** The engine's settings for one language: the language's severities and factor over the project's, disabled added. */
function settingsFor(s: StoredSettings, lang: string): CheckSettings {
  const l = s.languages?.[lang];
  return {
    severity: { ...s.severity, ...l?.severity },
    disabled: [...(s.disabled ?? []), ...(l?.disabled ?? [])],
    custom: s.custom ?? [],
    ...((l?.expansionFactor ?? s.expansionFactor) !== undefined
      ? { expansionFactor: l?.expansionFactor ?? s.expansionFactor }
      : {}),
  };
}

/** Per-language engine settings of a context, worked out once per language. */
const merged = new WeakMap<StoredSettings, Map<string, CheckSettings>>();
function engineSettings(ctx: CheckContext, lang: string): CheckSettings {
  let byLang = merged.get(ctx.settings);
  if (!byLang) merged.set(ctx.settings, (byLang = new Map<string, CheckSettings>()));
  let s = byLang.get(lang);
  if (!s) byLang.set(lang, (s = settingsFor(ctx.settings, lang)));
  return s;
}

const cut = (text: string) => (text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text);

function toApi(r: EngineResult): CheckResult {
  return {
    check: r.id,
    severity: r.severity,
    message: cut(r.message),
    field: r.field,
    ...(r.spans?.length ? { spans: r.spans.slice(0, MAX_SPANS) } : {}),
  };
}

/** The results of a translation of `key` into `lang`. */
export function checkTranslation(ctx: CheckContext, key: KeyInput, lang: string, value: string): CheckResult[] {
  return runChecks({
    source: key.source,
    target: value,
    sourceLang: ctx.baseLang,
    targetLang: lang,
    key: key.name,
    ctx: key.ctx,
    comment: key.comment,
    formats: ctx.formats,
    settings: engineSettings(ctx, lang),
    markup: { origins: ctx.origins },
    ...(ctx.terms?.[lang]?.length ? { terms: ctx.terms[lang] } : {}),
  }).map(toApi);
}

/** The results of a key's source and name (stored under the base language). */
export function checkKeySource(ctx: CheckContext, key: KeyInput): CheckResult[] {
  return checkSource({
    source: key.source,
    sourceLang: ctx.baseLang,
    key: key.name,
    ctx: key.ctx,
    comment: key.comment,
    formats: ctx.formats,
    settings: engineSettings(ctx, ctx.baseLang),
    markup: { origins: ctx.origins },
  }).map(toApi);
}

/** The row that stores `results`, or null when there are none (a passing cell has no row). */
export function rowOf(keyId: number, lang: string, results: CheckResult[]): CheckRow | null {
  if (!results.length) return null;
  // Errors first, so a row cut at MAX_RESULTS keeps what blocks an approval.
  const kept = [...results].sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity]).slice(0, MAX_RESULTS);
  const count = (s: Severity) => results.filter((r) => r.severity === s).length;
  const ids = [...new Set(results.map((r) => `${r.check}:${r.severity}`))];
  return {
    key_id: keyId,
    lang,
    errors: count('error'),
    warnings: count('warning'),
    infos: count('info'),
    ids: `|${ids.join('|')}|`,
    results: JSON.stringify(kept),
  };
}

const SEVERITY_RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

const DEFAULT_SEVERITY = new Map(CATALOGUE.map((d) => [d.id, d.severity]));

/**
 * A stored row's results under new settings that differ from those it was computed with only by severities and by
 * checks switched off (recheck.ts `onlySeverities`): no check runs, each result takes its check's severity now, and
 * the results of checks switched off go. A project's own checks keep theirs.
 */
export function remapRow(ctx: CheckContext, keyId: number, lang: string, results: CheckResult[]): CheckRow | null {
  const s = engineSettings(ctx, lang);
  const off = new Set(s.disabled);
  return rowOf(
    keyId,
    lang,
    results
      .filter((r) => r.check.startsWith('custom:') || !off.has(r.check))
      .map((r) =>
        r.check.startsWith('custom:')
          ? r
          : { ...r, severity: s.severity?.[r.check] ?? DEFAULT_SEVERITY.get(r.check) ?? r.severity },
      ),
  );
}

/**
 * Whether rows computed under `before` come to what `after` would compute by remapRow alone, in the languages
 * `langs`: the same formats, origins, custom checks and expansion factors, and no check that ran before switched on.
 */
export function onlySeverities(before: CheckContext, after: CheckContext, langs: string[]): boolean {
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  if (
    before.baseLang !== after.baseLang ||
    !same(before.formats, after.formats) ||
    !same(before.origins, after.origins)
  )
    return false;
  if (!same(before.settings.custom ?? [], after.settings.custom ?? [])) return false;
  return langs.every((lang) => {
    const b = settingsFor(before.settings, lang);
    const a = settingsFor(after.settings, lang);
    const off = new Set(a.disabled);
    return b.expansionFactor === a.expansionFactor && (b.disabled ?? []).every((id) => off.has(id));
  });
}

/** A stored row's check ids of one severity (the `ids` column). */
export function idsOf(ids: string, severity: Severity): string[] {
  return ids
    .split('|')
    .filter((t) => t.endsWith(`:${severity}`))
    .map((t) => t.slice(0, -severity.length - 1));
}

/** A translation's or a key's rows, computed: what the writers store and the re-check's threads return. */
export function rowsOfKey(
  ctx: CheckContext,
  key: KeyInput,
  cells: Array<{ lang: string; value: string }>,
  withSource: boolean,
): CheckRow[] {
  const rows: CheckRow[] = [];
  if (withSource) {
    const r = rowOf(key.id, ctx.baseLang, checkKeySource(ctx, key));
    if (r) rows.push(r);
  }
  for (const c of cells) {
    if (c.lang === ctx.baseLang) continue;
    const r = rowOf(key.id, c.lang, checkTranslation(ctx, key, c.lang, c.value));
    if (r) rows.push(r);
  }
  return rows;
}
