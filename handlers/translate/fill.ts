// The AI fill: a job per push works through its (key, language) pairs in engine-sized batches. Each batch
// is one transaction: charge what was translated (never more than the batch's hold), store the values,
// move the pairs and the job's counters. A charge the balance no longer covers ends the job
// aborted_no_credits; its markers stay pending and the next push queues them again.
// Every transaction here begins with ctx.fence: a worker whose lease another claim took over (it stalled
// past the lease, e.g. in an engine call) rolls back and stops instead of charging and counting again.
import { contentChanged } from '../platform/content.js';
import type { Db } from '../platform/db.js';
import { bool, chunks, dialectOf } from '../platform/db.js';
import { EngineUnavailableError } from '../platform/engines/types.js';
import { checkFill } from '../../publisher/gates.js';
import { LeaseLost, type JobContext } from '../platform/jobs.js';
import type { App } from '../platform/app.js';
import { charge, release } from './credits.js';

export const FINAL = ['done', 'failed', 'aborted_no_credits', 'cancelled'];

interface Pair {
  key_id: number;
  lang: string;
  cost_mc: number;
}

/** Why a pair failed; `token`: the key's token when the engine refused the pair itself (a push leaves it alone). */
interface Failure {
  reason: string;
  token: string | null;
}

const REASON_MAX = 500;
const shortReason = (reason: string) => (reason.length > REASON_MAX ? `${reason.slice(0, REASON_MAX - 1)}…` : reason);

/** Writes why each failed pair failed on its marker, while the marker is still this job's and pending. */
async function recordFailures(trx: Db, jobId: number, failures: Array<{ pair: Pair; failure: Failure }>, now: number) {
  for (const { pair, failure } of failures)
    await trx('translations')
      .where({ key_id: pair.key_id, lang: pair.lang, job_id: jobId, status: 'pending' })
      .update({ fail_reason: shortReason(failure.reason), fail_token: failure.token, updated_at: now });
}

/** Stores AI values over pending markers only: a value a person set meanwhile is never overwritten. */
async function storeValues(
  trx: Db,
  projectId: string,
  rows: Array<{ keyId: number; lang: string; value: string }>,
  now: number,
) {
  if (!rows.length) return;
  const values = rows.map((r) => ({
    key_id: r.keyId,
    lang: r.lang,
    project_id: projectId,
    value: r.value,
    status: 'translated',
    origin: 'ai',
    job_id: null,
    updated_at: now,
  }));
  for (const part of chunks(values, 300)) {
    const q = trx('translations').insert(part).toSQL().toNative();
    const sql =
      dialectOf(trx) === 'mysql'
        ? // MySQL applies assignments left to right, so status (tested by the others) is assigned last.
          `${q.sql} ON DUPLICATE KEY UPDATE value = IF(status = 'pending', VALUES(value), value), origin = IF(status = 'pending', VALUES(origin), origin), job_id = IF(status = 'pending', NULL, job_id), updated_at = IF(status = 'pending', VALUES(updated_at), updated_at), status = IF(status = 'pending', VALUES(status), status)`
        : `${q.sql} ON CONFLICT (key_id, lang) DO UPDATE SET value = excluded.value, status = excluded.status, origin = excluded.origin, job_id = NULL, updated_at = excluded.updated_at WHERE translations.status = 'pending'`;
    await trx.raw(sql, q.bindings);
  }
}

/**
 * Which of one language's pairs are still pending, read under a row lock on MySQL (SQLite's transaction is
 * already exclusive): two writers of a pair are ordered, and the later one sees it moved.
 */
async function stillPending(trx: Db, jobId: number, lang: string, keyIds: number[]): Promise<Set<number>> {
  const out = new Set<number>();
  for (const part of chunks(keyIds)) {
    const q = trx('fill_pairs').where({ job_id: jobId, lang }).whereIn('key_id', part).select('key_id', 'state');
    if (dialectOf(trx) === 'mysql') q.forUpdate();
    for (const r of await q) if (r.state === 'pending') out.add(Number(r.key_id));
  }
  return out;
}

/** Moves pending pairs only; returns how many moved, which is what the job's counters move by. */
async function setPairs(trx: Db, jobId: number, pairs: Pair[], state: string): Promise<number> {
  const byLang = new Map<string, number[]>();
  for (const p of pairs) byLang.set(p.lang, [...(byLang.get(p.lang) ?? []), p.key_id]);
  let moved = 0;
  for (const [lang, ids] of byLang) {
    for (const part of chunks(ids))
      moved += await trx('fill_pairs')
        .where({ job_id: jobId, lang, state: 'pending' })
        .whereIn('key_id', part)
        .update({ state });
  }
  return moved;
}

/**
 * Ends the job. `reason`: why the pairs still pending failed (the job failed as a whole: no engine, the engine
 * unavailable after every attempt, or refusing every request); the next push queues them again.
 */
async function finish(db: Db, ctx: JobContext, jobId: number, status: string, now: number, reason?: string) {
  await db.transaction(async (trx) => {
    await ctx.fence(trx);
    const job = await trx('fill_jobs').where({ id: jobId }).first();
    if (!job || FINAL.includes(job.status)) return;
    await release(trx, job.workspace_id, Number(job.held_mc));
    if (status === 'failed') {
      const left = await trx('fill_pairs').where({ job_id: jobId, state: 'pending' }).count({ n: '*' });
      if (reason)
        await trx('translations')
          // project_id first: translations_project_job_index (migration 008) finds the job's cells.
          .where({ project_id: job.project_id, job_id: jobId, status: 'pending' })
          .whereIn(
            ['key_id', 'lang'],
            trx('fill_pairs').where({ job_id: jobId, state: 'pending' }).select('key_id', 'lang'),
          )
          .update({ fail_reason: shortReason(reason), fail_token: null, updated_at: now });
      await trx('fill_pairs').where({ job_id: jobId, state: 'pending' }).update({ state: 'failed' });
      await trx('fill_jobs')
        .where({ id: jobId })
        .update({ failed: trx.raw('failed + ?', [Number(left[0].n)]) });
    }
    await trx('fill_jobs').where({ id: jobId }).update({ status, held_mc: 0, updated_at: now, finished_at: now });
  });
}

/** The payload a fill job is enqueued with (queue.ts). */
export interface FillPayload {
  jobId: number;
}

export async function runFill(app: App, ctx: JobContext<FillPayload>): Promise<void> {
  const { db } = app;
  const jobId = ctx.payload.jobId;
  const job = await db('fill_jobs').where({ id: jobId }).first();
  if (!job || FINAL.includes(job.status)) return;
  const engine = app.engine;
  if (!engine)
    return finish(
      db,
      ctx,
      jobId,
      'failed',
      Date.now(),
      'no translation engine is configured (TRANSLATION_ENGINE=none)',
    );
  await db.transaction(async (trx) => {
    await ctx.fence(trx);
    await trx('fill_jobs').where({ id: jobId, status: 'queued' }).update({ status: 'running', updated_at: Date.now() });
  });
  const project = await db('projects').where({ id: job.project_id }).first('base_lang');
  try {
    for (;;) {
      // One target language per engine call: an engine request covers one language pair.
      const next = await db('fill_pairs').where({ job_id: jobId, state: 'pending' }).first('lang');
      if (!next) break;
      const pairs: Pair[] = await db('fill_pairs')
        .where({ job_id: jobId, state: 'pending', lang: next.lang })
        .orderBy('key_id')
        .limit(engine.maxBatch)
        .select('key_id', 'lang', 'cost_mc');
      const keys = new Map(
        (
          await db('keys')
            .whereIn('id', [...new Set(pairs.map((p) => p.key_id))])
            .select('id', 'name', 'token', 'source', 'ctx', 'enabled')
        ).map((k) => [Number(k.id), k]),
      );
      const items = pairs.map((p, n) => {
        const k = keys.get(Number(p.key_id));
        return {
          id: String(n),
          key: k?.name ?? '',
          ctx: k?.ctx ?? null,
          source: k?.source ?? '',
          sourceLang: project!.base_lang,
          targetLang: p.lang,
        };
      });
      const outcomes = new Map((await engine.translate(items)).map((o) => [o.id, o]));
      const done: Array<{ keyId: number; lang: string; value: string }> = [];
      const translatedPairs: Pair[] = [];
      const failedPairs: Pair[] = [];
      const failures = new Map<Pair, Failure>();
      const fail = (p: Pair, reason: string, token: string | null) => {
        failedPairs.push(p);
        failures.set(p, { reason, token });
      };
      pairs.forEach((p, n) => {
        const o = outcomes.get(String(n));
        const k = keys.get(Number(p.key_id));
        if (!k || !bool(k.enabled)) return fail(p, k ? 'the key is disabled' : 'the key no longer exists', null);
        if (o?.value === undefined) return fail(p, o?.error ?? 'the engine returned no translation', k.token);
        // The fill gate before storing, whatever the engine checked: a value that would be refused is never written.
        const problem = checkFill(k.source, o.value, p.lang);
        if (problem) return fail(p, problem, k.token);
        done.push({ keyId: Number(p.key_id), lang: p.lang, value: o.value });
        translatedPairs.push(p);
      });
      const now = Date.now();
      const ok = await db.transaction(async (trx) => {
        await ctx.fence(trx);
        // Charge, store and count only the pairs no one moved meanwhile: a pair is paid and counted once.
        const mine = await stillPending(
          trx,
          jobId,
          next.lang,
          pairs.map((p) => Number(p.key_id)),
        );
        const isMine = (p: Pair) => mine.has(Number(p.key_id));
        const translated = translatedPairs.filter(isMine);
        const failed = failedPairs.filter(isMine);
        const chargeMc = translated.reduce((a, p) => a + Number(p.cost_mc), 0);
        const releaseMc = chargeMc + failed.reduce((a, p) => a + Number(p.cost_mc), 0);
        if (!(await charge(trx, job.workspace_id, chargeMc, releaseMc, now))) return false;
        const values = done.filter((d) => mine.has(d.keyId));
        await storeValues(trx, job.project_id, values, now);
        const nTranslated = await setPairs(trx, jobId, translated, 'translated');
        const nFailed = await setPairs(trx, jobId, failed, 'failed');
        await recordFailures(
          trx,
          jobId,
          failed.map((pair) => ({ pair, failure: failures.get(pair)! })),
          now,
        );
        await trx('fill_jobs')
          .where({ id: jobId })
          .update({
            translated: trx.raw('translated + ?', [nTranslated]),
            failed: trx.raw('failed + ?', [nFailed]),
            charged_mc: trx.raw('charged_mc + ?', [chargeMc]),
            held_mc: trx.raw('held_mc - ?', [releaseMc]),
            updated_at: now,
          });
        if (values.length) await contentChanged(trx, job.project_id, now);
        return true;
      });
      if (!ok) return finish(db, ctx, jobId, 'aborted_no_credits', now);
    }
    await finish(db, ctx, jobId, 'done', Date.now());
  } catch (err) {
    // Another claim owns the job now: write nothing more, not even a final status.
    if (err instanceof LeaseLost) throw err;
    // The engine failed a whole batch: the queue retries the job (it resumes at its pending pairs);
    // on the last attempt the job ends failed and its hold is released.
    // A failure of the engine as a whole (down, or refusing every request: a key or model to fix) is the endpoint's,
    // not the pairs': the next push after the fix queues them again.
    const permanent = err instanceof EngineUnavailableError && !err.retryable;
    if (ctx.lastAttempt || permanent)
      await finish(db, ctx, jobId, 'failed', Date.now(), `the engine failed: ${(err as Error).message}`);
    if (!permanent) throw err;
  }
}
