// Queueing AI fill work, shared by translate and sync: pending markers for pairs with no value, claimed by
// exactly one job, the estimate held, the job and its pairs written and enqueued, all in the caller's
// transaction. A marker another push claimed meanwhile is in flight on that push's job, not ours.
import { randomBytes } from 'node:crypto';
import type { Db } from '../platform/db.js';
import { chunks, insertOrKeep } from '../platform/db.js';
import type { JobQueue } from '../platform/jobs.js';
import { hold } from './credits.js';
import { FINAL, type FillPayload } from './fill.js';

interface FillPair {
  keyId: number;
  lang: string;
  cost: number;
}

/** Pending markers for pairs that have no translation row yet (a row that exists is left alone). */
export async function insertMarkers(trx: Db, projectId: string, pairs: FillPair[], now: number): Promise<void> {
  const rows = pairs.map((q) => ({
    key_id: q.keyId,
    lang: q.lang,
    project_id: projectId,
    value: null,
    status: 'pending',
    origin: null,
    job_id: null,
    updated_at: now,
  }));
  for (const part of chunks(rows)) await insertOrKeep(trx, 'translations', part, ['key_id', 'lang'], 'key_id');
}

/**
 * Claims the pending markers of `pairs` that no live job holds, holds their cost and queues one fill job.
 * Returns null when every pair was already in flight. Throws the 402 of `hold` (the caller's transaction
 * then rolls the claims back).
 */
export async function enqueueFill(
  trx: Db,
  jobs: JobQueue,
  project: { id: string; workspace_id: string },
  pairs: FillPair[],
  now: number,
): Promise<{ trackingToken: string; estimate: number; pairs: number } | null> {
  if (!pairs.length) return null;
  const trackingToken = `trk_${randomBytes(15).toString('base64url')}`;
  const cost = new Map(pairs.map((q) => [`${q.keyId}|${q.lang}`, q.cost]));
  const [jobId] = await trx('fill_jobs').insert({
    tracking_token: trackingToken,
    project_id: project.id,
    workspace_id: project.workspace_id,
    status: 'queued',
    estimated_mc: 0,
    held_mc: 0,
    charged_mc: 0,
    total: 0,
    translated: 0,
    failed: 0,
    created_at: now,
    updated_at: now,
  });
  const id = Number(jobId);
  const byLang = new Map<string, number[]>();
  for (const q of pairs) byLang.set(q.lang, [...(byLang.get(q.lang) ?? []), q.keyId]);
  for (const [lang, ids] of byLang) {
    for (const part of chunks(ids)) {
      await trx('translations')
        .where('lang', lang)
        .whereIn('key_id', part)
        .andWhere('status', 'pending')
        .andWhere((w) => {
          w.whereNull('job_id').orWhereIn('job_id', trx('fill_jobs').select('id').whereIn('status', FINAL));
        })
        // A claim is a new attempt: an earlier failure no longer describes the pair.
        .update({ job_id: id, fail_reason: null, fail_token: null, updated_at: now });
    }
  }
  const mine = await trx('translations').where({ project_id: project.id, job_id: id }).select('key_id', 'lang');
  if (!mine.length) {
    await trx('fill_jobs').where({ id }).delete();
    return null;
  }
  const rows = mine.map((m) => ({
    job_id: id,
    key_id: Number(m.key_id),
    lang: m.lang,
    state: 'pending',
    cost_mc: cost.get(`${m.key_id}|${m.lang}`) ?? 0,
  }));
  const estimate = rows.reduce((a, x) => a + x.cost_mc, 0);
  await hold(trx, project.workspace_id, estimate, now);
  for (const part of chunks(rows)) await trx('fill_pairs').insert(part);
  await trx('fill_jobs').where({ id }).update({ estimated_mc: estimate, held_mc: estimate, total: rows.length });
  await jobs.enqueue(trx, 'fill', { jobId: id } satisfies FillPayload);
  return { trackingToken, estimate, pairs: rows.length };
}
