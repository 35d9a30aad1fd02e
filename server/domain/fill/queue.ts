// Queueing AI fill work, shared by translate and sync: pending markers for pairs with no value, claimed by
// exactly one job, the estimate held, the job and its pairs written and enqueued, all in the caller's
// transaction. A marker another push claimed meanwhile is in flight on that push's job, not ours.
import { randomBytes } from 'node:crypto';
import type { Db } from '../../infra/db.js';
import { chunks, dialectOf, insertOrKeep } from '../../infra/db.js';
import type { OperationBudget } from '../../infra/approval.js';
import type { JobQueue } from '../../infra/jobs.js';
import { hold } from '../billing/credits.js';
import { FINAL, type FillPayload } from './fill.js';

interface FillPair {
  keyId: number;
  lang: string;
  cost: number;
}

/** The parts of a better-sqlite3 statement used here (the package ships no types). */
interface RawStatement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  all(...params: unknown[]): unknown[];
}
export type SqlitePrepare = (sql: string) => RawStatement;
interface RawConnection {
  prepare(sql: string): RawStatement;
}

/**
 * SQLite, inside a transaction: statements on the transaction's own connection (Knex hands a transaction's client
 * that one connection), run row by row; db.ts keeps each connection's statements prepared. A push writes
 * thousands of rows, and a Knex bulk insert of 400 rows is a statement of 3,200 parameters that SQLite compiles
 * for every chunk (bench/push.ts: 5,000 markers took 96 ms that way). Null elsewhere (MySQL, or outside a
 * transaction): the caller takes the Knex path.
 */
export async function sqliteStatements(trx: Db): Promise<SqlitePrepare | null> {
  if (dialectOf(trx) !== 'sqlite' || !trx.isTransaction) return null;
  const conn = await (trx.client as { acquireConnection(): Promise<RawConnection> }).acquireConnection();
  return (sql) => conn.prepare(sql);
}

const MARKER_SQL =
  "INSERT INTO translations (key_id, lang, project_id, value, status, origin, job_id, updated_at) VALUES (?, ?, ?, NULL, 'pending', NULL, NULL, ?) " +
  'ON CONFLICT (key_id, lang) DO NOTHING';

/** Pending markers for pairs that have no translation row yet (a row that exists is left alone). */
export async function insertMarkers(trx: Db, projectId: string, pairs: FillPair[], now: number): Promise<void> {
  const raw = pairs.length ? await sqliteStatements(trx) : null;
  if (raw) {
    const marker = raw(MARKER_SQL);
    for (const q of pairs) marker.run(q.keyId, q.lang, projectId, now);
    return;
  }
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
  operation?: { budget: OperationBudget; unreached: Array<{ keyId: number; lang: string }> },
): Promise<{ trackingToken: string; estimate: number; pairs: number } | null> {
  if (!pairs.length) return null;
  // Under an operation: locks it and refuses (409 budget_exhausted) when nothing is left, before anything is claimed.
  const budgetLeft = operation ? await operation.budget.remaining(trx) : Infinity;
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
  const raw = await sqliteStatements(trx);
  let mine = raw ? claimRaw(raw, id, pairs, now) : await claim(trx, project.id, id, pairs, now);
  if (operation) mine = await withinBudget(trx, id, mine, cost, budgetLeft, operation.unreached, now);
  if (!mine.length) {
    await trx('fill_jobs').where({ id }).delete();
    return null;
  }
  const rows = mine.map((m) => ({
    job_id: id,
    key_id: m.keyId,
    lang: m.lang,
    state: 'pending',
    cost_mc: cost.get(`${m.keyId}|${m.lang}`) ?? 0,
  }));
  const estimate = rows.reduce((a, x) => a + x.cost_mc, 0);
  await hold(trx, project.workspace_id, estimate, now);
  if (raw) {
    const pair = raw(PAIR_SQL);
    for (const r of rows) pair.run(r.job_id, r.key_id, r.lang, r.cost_mc);
  } else for (const part of chunks(rows)) await trx('fill_pairs').insert(part);
  await trx('fill_jobs')
    .where({ id })
    .update({
      estimated_mc: estimate,
      held_mc: estimate,
      total: rows.length,
      ...(operation ? { operation_id: operation.budget.operationId } : {}),
    });
  if (operation) await operation.budget.reserve(trx, estimate);
  await jobs.enqueue(trx, 'fill', { jobId: id } satisfies FillPayload);
  return { trackingToken, estimate, pairs: rows.length };
}

/** Why a pending marker was left unqueued: the operation's budget did not reach it (`budgetExhausted` on the next push). */
export const BUDGET_EXHAUSTED = 'the operation budget ran out before this pair';

/**
 * The claimed pairs, in order, that the operation's budget covers; the rest are let go (no job holds them, as
 * before the claim) and marked, so the next push reports their units `budgetExhausted`.
 */
async function withinBudget(
  trx: Db,
  jobId: number,
  mine: Array<{ keyId: number; lang: string }>,
  cost: Map<string, number>,
  left: number,
  unreached: Array<{ keyId: number; lang: string }>,
  now: number,
): Promise<Array<{ keyId: number; lang: string }>> {
  let sum = 0;
  let fit = 0;
  while (fit < mine.length) {
    const c = cost.get(`${mine[fit].keyId}|${mine[fit].lang}`) ?? 0;
    if (sum + c > left) break;
    sum += c;
    fit++;
  }
  const out = mine.slice(fit);
  for (const q of out)
    await trx('translations')
      .where({ key_id: q.keyId, lang: q.lang, job_id: jobId })
      .update({ job_id: null, fail_reason: BUDGET_EXHAUSTED, fail_token: null, updated_at: now });
  unreached.push(...out);
  return mine.slice(0, fit);
}

const PAIR_SQL = "INSERT INTO fill_pairs (job_id, key_id, lang, state, cost_mc) VALUES (?, ?, ?, 'pending', ?)";

// A pending marker no live job holds: unclaimed, or left by a job that has finished.
const CLAIM_SQL =
  'UPDATE translations SET job_id = ?, fail_reason = NULL, fail_token = NULL, updated_at = ? ' +
  "WHERE key_id = ? AND lang = ? AND status = 'pending' AND " +
  `(job_id IS NULL OR job_id IN (SELECT id FROM fill_jobs WHERE status IN (${FINAL.map(() => '?').join(', ')})))`;

/** The claim, pair by pair on SQLite: each update says whether it took the marker, so nothing is read back. */
function claimRaw(
  raw: SqlitePrepare,
  jobId: number,
  pairs: FillPair[],
  now: number,
): Array<{ keyId: number; lang: string }> {
  const update = raw(CLAIM_SQL);
  const mine: Array<{ keyId: number; lang: string }> = [];
  for (const q of pairs) if (update.run(jobId, now, q.keyId, q.lang, ...FINAL).changes === 1) mine.push(q);
  return mine;
}

/** The claim as bulk updates per language, then the pairs this job took, read back. */
async function claim(
  trx: Db,
  projectId: string,
  id: number,
  pairs: FillPair[],
  now: number,
): Promise<Array<{ keyId: number; lang: string }>> {
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
  const mine = await trx('translations').where({ project_id: projectId, job_id: id }).select('key_id', 'lang');
  return mine.map((m) => ({ keyId: Number(m.key_id), lang: m.lang }));
}
