// A project's check settings (internal.yaml `CheckSettings`, migration 028 `project_checks`): validated whole before
// anything is written, stored as JSON, and the revision of everything the checks read besides the cells. A change of
// it (the settings, the output formats, the markup origins) moves the revision and queues the background re-check
// (recheck.ts), which brings every stored result to it.
import { CATALOGUE, validateCustomCheck } from '../../../packages/core/src/checks/index.js';
import type { Db } from '../../infra/db.js';
import { parseJson } from '../../infra/db.js';
import { invalidArgument } from '../../infra/errors.js';
import { enqueueJob } from '../../infra/jobs.js';
import { normalizeLanguage } from '../project/languages.js';
import type { CheckContext, LanguageSettings, StoredSettings } from './compute.js';

/** The job that re-checks a whole project (registered in server/app/jobs.ts). */
export const RECHECK_JOB = 'checks.recheck';

export interface RecheckPayload {
  projectId: string;
}

const CHECK_IDS = new Set(CATALOGUE.map((d) => d.id));

/** The project's settings and revisions; a project without a row has the defaults and nothing to re-check. */
export async function checkState(db: Db, projectId: string) {
  const row = await db('project_checks').where({ project_id: projectId }).first();
  return {
    ...settingsOf(row ?? {}),
    checkedRev: Number(row?.checked_rev ?? 0),
    cursorKey: Number(row?.cursor_key ?? 0),
    cursorRev: Number(row?.cursor_rev ?? 0),
    /** What the checks read at checkedRev, when known (recheck.ts compares it with what they read now). */
    checkedContext: parseJson<CheckContext | null>(row?.checked_context ?? null, null),
  };
}

/** The settings and revision of a `project_checks` row's columns (none: the defaults, revision 0). */
export function settingsOf(row: { settings?: string | null; rev?: number | string | null }) {
  return { settings: parseJson<StoredSettings>(row.settings ?? null, {}), rev: Number(row.rev ?? 0) };
}

/** A re-check is under way (or due): some stored results may still follow earlier settings. */
export const checking = (s: { rev: number; checkedRev: number }) => s.checkedRev < s.rev;

function knownIds(ids: Iterable<string>, where: string): void {
  for (const id of ids)
    if (!CHECK_IDS.has(id))
      throw invalidArgument(
        id.startsWith('custom:')
          ? `${where}: ${id} is a custom check; set its own severity in custom.`
          : `${where}: there is no check ${JSON.stringify(id)} (docs/guides/checks.md lists them).`,
      );
}

function languageSettings(l: LanguageSettings, where: string): LanguageSettings {
  knownIds(Object.keys(l.severity ?? {}), `${where}severity`);
  knownIds(l.disabled ?? [], `${where}disabled`);
  return {
    ...(l.severity && Object.keys(l.severity).length ? { severity: { ...l.severity } } : {}),
    ...(l.disabled?.length ? { disabled: [...new Set(l.disabled)] } : {}),
    ...(l.expansionFactor !== undefined ? { expansionFactor: l.expansionFactor } : {}),
  };
}

/**
 * The settings as they will be stored, or `400 invalid_argument` saying what is wrong: an id the catalogue does not
 * have, a language that is not the project's (`langs`, the base language included), a custom check that cannot run
 * (RE2's reason) or whose id is taken twice.
 */
export function validateSettings(body: StoredSettings, langs: readonly string[]): StoredSettings {
  const out: StoredSettings = languageSettings(body, '');
  const seen = new Set<string>();
  for (const c of body.custom ?? []) {
    const why = validateCustomCheck(c);
    if (why) throw invalidArgument(`${why}.`);
    if (seen.has(c.id)) throw invalidArgument(`custom check ${c.id}: the id is used twice.`);
    seen.add(c.id);
    for (const l of c.languages ?? []) normalizeLanguage(l);
  }
  if (body.custom?.length) out.custom = body.custom.map((c) => ({ ...c }));
  const languages: Record<string, LanguageSettings> = {};
  for (const [code, l] of Object.entries(body.languages ?? {})) {
    let lang: string;
    try {
      lang = normalizeLanguage(code);
    } catch {
      throw invalidArgument(`languages: ${JSON.stringify(code)} is not a language code.`);
    }
    if (!langs.includes(lang)) throw invalidArgument(`languages: ${lang} is not a language of this project.`);
    const s = languageSettings(l, `languages.${lang}.`);
    if (Object.keys(s).length) languages[lang] = s;
  }
  if (Object.keys(languages).length) out.languages = languages;
  if (body.blockPublishOnErrors) out.blockPublishOnErrors = true;
  return out;
}

/**
 * Moves the project's check revision and queues its re-check (one job per project at a time: a job running now
 * sees the new revision when it ends a slice, and starts over). Call in the transaction of the change.
 */
export async function requestRecheck(trx: Db, projectId: string, now: number): Promise<void> {
  const n = await trx('project_checks')
    .where({ project_id: projectId })
    .update({ rev: trx.raw('rev + 1'), updated_at: now });
  if (!n)
    await trx('project_checks').insert({
      project_id: projectId,
      settings: '{}',
      rev: 1,
      checked_rev: 0,
      cursor_key: 0,
      cursor_rev: 0,
      updated_at: now,
    });
  await enqueueJob(trx, RECHECK_JOB, { projectId } satisfies RecheckPayload, { uniqueKey: `checks:${projectId}`, now });
}

/**
 * Stores validated settings and queues the re-check they call for. `before`: what the checks read until now; a
 * project's first settings record it as what its stored results follow (every writer checked with the defaults and
 * these formats and origins: a change of those would have made the row), so a change of severities alone is a
 * remap of the stored results (recheck.ts).
 */
export async function saveSettings(
  trx: Db,
  projectId: string,
  settings: StoredSettings,
  now: number,
  before: CheckContext,
): Promise<void> {
  const text = JSON.stringify(settings);
  const n = await trx('project_checks').where({ project_id: projectId }).update({ settings: text, updated_at: now });
  if (!n)
    await trx('project_checks').insert({
      project_id: projectId,
      settings: text,
      rev: 0,
      checked_rev: 0,
      checked_context: contextText(before),
      cursor_key: 0,
      cursor_rev: 0,
      updated_at: now,
    });
  await requestRecheck(trx, projectId, now);
}

/** A check context as `checked_context` stores it. */
export const contextText = (c: CheckContext): string =>
  JSON.stringify({ baseLang: c.baseLang, formats: c.formats, origins: c.origins, settings: c.settings });
