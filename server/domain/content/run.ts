// Starting translation runs of a document (`runContentDocument`). One job per language: each language is
// claimed (content_langs.run_id), its credits held (twice its estimate) and its job enqueued
// in one transaction, so a language is running exactly when its hold and its job exist, and two requests racing
// for one language start it once. What cannot start is reported under `skipped` with its reason.
import type { App } from '../../infra/app.js';
import type { Db } from '../../infra/db.js';
import { newId } from '../../infra/db.js';
import { Refusal, conflict, invalidArgument } from '../../infra/errors.js';
import { enqueueJob } from '../../infra/jobs.js';
import { countDaily } from '../billing/quotas.js';
import type { ContentDocRow, ContentUnitRow, ProjectRow } from '../../infra/tables.js';
import { hold } from '../billing/credits.js';
import { targetsOf } from './publish.js';
import { DAILY_RUNS, charCount, expectedChars, fieldMaxChars } from './rules.js';
import { ensureLangRow, readUnits, unitState, unitsOf, type Unit } from './store.js';

export const CONTENT_RUN_JOB = 'content.run';

export interface RunOptions {
  mode: 'fill' | 'overwrite';
  force: boolean;
}

export interface RunPayload extends RunOptions {
  projectId: string;
  workspaceId: string;
  docId: string;
  lang: string;
  runId: string;
  holdMc: number;
}

type SkipReason =
  | 'up_to_date'
  | 'freeform'
  | 'run_in_progress'
  | 'field_unfittable'
  | 'insufficient_credits'
  | 'spend_cap_exceeded'
  | 'billing_contended';

interface Skip {
  lang: string;
  reason: SkipReason;
  fields?: Array<{ name: string; chars: number; maxChars: number }>;
}

/** The units a run translates: missing and stale ones (and those given up on, with `force`); every unit with `overwrite`. */
export function unitsToTranslate(units: Unit[], rows: Map<string, ContentUnitRow>, opts: RunOptions): Unit[] {
  if (opts.mode === 'overwrite') return units;
  return units.filter((u) => {
    const state = unitState(u, rows.get(u.id));
    return state === 'missing' || state === 'stale' || (opts.force && state === 'gave_up');
  });
}

/** 1 mc per source character, at least 1 per unit (README "How translation works"). */
export const unitsCost = (units: Unit[]) => units.reduce((mc, u) => mc + Math.max(1, charCount(u.text)), 0);

/** Limited fields whose translation into `lang` is not expected to fit (rules.ts). */
function unfittable(units: Unit[], lang: string) {
  const out: Array<{ name: string; chars: number; maxChars: number }> = [];
  for (const u of units) {
    if (u.kind !== 'field') continue;
    const name = u.id.slice('@field:'.length);
    const max = fieldMaxChars(name);
    const chars = expectedChars(charCount(u.text), lang);
    if (max != null && chars > max) out.push({ name, chars, maxChars: max });
  }
  return out;
}

/** The models a run may name: the configured engine, by its name or its model's. */
export function checkModel(app: App, model: string | undefined): void {
  if (model === undefined) return;
  const offered = [app.engine?.name, app.config.openai.model].filter((m): m is string => !!m);
  if (!offered.includes(model)) throw invalidArgument(`model: this project offers ${offered.join(', ') || 'none'}.`);
}

interface Planned {
  lang: string;
  mc: number;
}

/** Which languages would run and at what cost, and why the others would not. Writes nothing. */
export async function planRun(
  db: Db,
  project: ProjectRow,
  doc: ContentDocRow,
  requested: string[] | undefined,
  opts: RunOptions,
): Promise<{ run: Planned[]; skipped: Skip[] }> {
  const targets = await targetsOf(db, project, doc);
  const langs = requested ? [...new Set(requested)] : targets;
  const unknown = langs.filter((l) => !targets.includes(l));
  if (unknown.length)
    throw new Refusal('unknown_language', `Not a target language of this document: ${unknown.join(', ')}.`, {
      details: unknown.map((code) => ({ code })),
    });
  if (doc.text == null) throw conflict('revision_missing', 'The document has no text yet: push its source again.');
  if (doc.health) throw conflict('health_blocked', `The document failed its checks: ${doc.health}.`);
  const manual = new Set(
    await db('project_languages')
      .where({ project_id: project.id, fill_mode: 'manual' })
      .whereNull('removed_at')
      .pluck('code'),
  );
  const running = new Set(
    await db('content_langs')
      .where({ project_id: project.id, doc_id: doc.doc_id })
      .whereNotNull('run_id')
      .pluck('lang'),
  );
  const units = unitsOf(doc);
  const rows = await readUnits(db, project.id, doc.doc_id);
  const run: Planned[] = [];
  const skipped: Skip[] = [];
  for (const lang of langs) {
    if (manual.has(lang)) skipped.push({ lang, reason: 'freeform' });
    else if (running.has(lang)) skipped.push({ lang, reason: 'run_in_progress' });
    else {
      const todo = unitsToTranslate(units, rows.get(lang) ?? new Map<string, ContentUnitRow>(), opts);
      const fields = unfittable(todo, lang);
      if (fields.length) skipped.push({ lang, reason: 'field_unfittable', fields });
      else if (!todo.length) skipped.push({ lang, reason: 'up_to_date' });
      else run.push({ lang, mc: unitsCost(todo) });
    }
  }
  return { run, skipped };
}

const quotaExceeded = () =>
  new Refusal(
    'run_quota_exceeded',
    `A project takes at most ${DAILY_RUNS} content runs a day (UTC).`,
    {},
    Math.ceil((86_400_000 - (Date.now() % 86_400_000)) / 1000),
  );

const BILLING_REASONS: readonly string[] = ['insufficient_credits', 'spend_cap_exceeded', 'billing_contended'];

/**
 * Starts the planned languages. `commit(trx)` runs in the first transaction (the run's quota count and its
 * Idempotency-Key answer are written with whatever it started).
 */
export async function startRun(
  db: Db,
  project: ProjectRow,
  doc: ContentDocRow,
  plan: { run: Planned[]; skipped: Skip[] },
  opts: RunOptions,
): Promise<{ jobs: Array<{ lang: string; jobId: string }>; skipped: Skip[] }> {
  const now = Date.now();
  // A request that would start nothing (every language skipped) is not a run.
  if (plan.run.length)
    await db.transaction(async (trx) => {
      if (!(await countDaily(trx, project.id, 'content_run', DAILY_RUNS, now))) throw quotaExceeded();
    });
  const jobs: Array<{ lang: string; jobId: string }> = [];
  const skipped = [...plan.skipped];
  for (const { lang, mc } of plan.run) {
    const runId = newId('cj', 9);
    const holdMc = 2 * mc;
    try {
      const started = await db.transaction(async (trx) => {
        const key = { project_id: project.id, doc_id: doc.doc_id, lang };
        await ensureLangRow(trx, key, now);
        const claimed = await trx('content_langs')
          .where(key)
          .whereNull('run_id')
          .update({ run_id: runId, run_hold_mc: holdMc, run_started_at: now, updated_at: now });
        if (claimed !== 1) return false;
        await hold(trx, project.workspace_id, holdMc, now);
        const payload: RunPayload = {
          projectId: project.id,
          workspaceId: project.workspace_id,
          docId: doc.doc_id,
          lang,
          runId,
          holdMc,
          ...opts,
        };
        await enqueueJob(trx, CONTENT_RUN_JOB, payload, { uniqueKey: `content-run:${runId}`, now });
        return true;
      });
      if (started) jobs.push({ lang, jobId: runId });
      else skipped.push({ lang, reason: 'run_in_progress' });
    } catch (err) {
      if (!(err instanceof Refusal) || !BILLING_REASONS.includes(err.code)) throw err;
      skipped.push({ lang, reason: err.code as SkipReason });
    }
  }
  return { jobs, skipped };
}
