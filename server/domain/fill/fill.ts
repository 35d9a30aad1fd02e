// The AI fill: a job per push works through its (key, language) pairs in the primary key's order (key-major),
// asking the engine in batches of one language each. The results are written in transactions of whole keys:
// charge what was translated (never more than those pairs' hold), store the values, move the pairs and the job's
// counters. A charge the balance no longer covers ends the job
// aborted_no_credits; its markers stay pending and the next push queues them again.
// Every transaction here begins with ctx.fence: a worker whose lease another claim took over (it stalled
// past the lease, e.g. in an engine call) rolls back and stops instead of charging and counting again.
import { contentChanged } from '../project/revision.js';
import type { Db } from '../../infra/db.js';
import { bool, cellGroups, chunks, dialectOf, retryContended } from '../../infra/db.js';
import { EngineUnavailableError, type TranslationEngine, type TranslationOutcome } from '../../infra/engines/types.js';
import { checkFill } from '../../../packages/core/src/gates.js';
import { scoreValue } from '../../../packages/core/src/guard.js';
import { LeaseLost, type JobContext } from '../../infra/jobs.js';
import type { App } from '../../infra/app.js';
import { charge, release } from '../billing/credits.js';
import { recordCellsAsStored } from '../catalog/history.js';
import { checkCells, type AheadChecks } from '../checks/store.js';
import type { KeyInput } from '../checks/compute.js';
import { AHEAD_MIN_PAIRS, checkAhead, type AheadValue } from './checks-ahead.js';
import { chargeOperation, releaseOperation } from '../operations/budget.js';
import { rememberAfter, type MemoryProject } from '../memory/entries.js';
import { referencesFor, type Reference } from '../memory/lookup.js';
import type { ProjectRow } from '../../infra/tables.js';
import { instructionsFor, itemTerms, keyContexts, type KeyContext } from './context.js';
import { firstScreenshots } from '../catalog/screenshots.js';

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

const STORE_COLUMNS = '(key_id, lang, project_id, value, status, origin, job_id, updated_at, ai_score, ai_reason)';
// Rows per statement. SQLite runs a statement synchronously on the event loop, so its slices stay a millisecond
// or two (the same text for every full slice: db.ts reuses the prepared statement); MySQL's run on the server
// while the loop is free, and fewer round trips matter more there.
const STORE_SLICE = { sqlite: 100, mysql: 500 };

/** Stores AI values over pending markers only: a value a person set meanwhile is never overwritten. */
async function storeValues(trx: Db, projectId: string, rows: StoredValue[], now: number, ahead?: AheadChecks) {
  const mysql = dialectOf(trx) === 'mysql';
  for (const part of chunks(rows, STORE_SLICE[dialectOf(trx)])) {
    // A multi-row VALUES list written here: Knex writes SQLite's multi-row insert as a SELECT ... UNION ALL chain,
    // several times slower to compile and run.
    // Every value bound, none written into the text: one text per slice length, prepared once per connection.
    const bindings: Array<string | number> = [];
    for (const r of part) bindings.push(r.keyId, r.lang, projectId, r.value, now, r.score, r.reason);
    const values = `(?, ?, ?, ?, 'translated', 'ai', NULL, ?, ?, ?)`;
    const head = `INSERT INTO translations ${STORE_COLUMNS} VALUES ${Array(part.length).fill(values).join(', ')}`;
    const sql = mysql
      ? // MySQL applies assignments left to right, so status (tested by the others) is assigned last.
        `${head} ON DUPLICATE KEY UPDATE value = IF(status = 'pending', VALUES(value), value), origin = IF(status = 'pending', VALUES(origin), origin), ai_score = IF(status = 'pending', VALUES(ai_score), ai_score), ai_reason = IF(status = 'pending', VALUES(ai_reason), ai_reason), job_id = IF(status = 'pending', NULL, job_id), updated_at = IF(status = 'pending', VALUES(updated_at), updated_at), status = IF(status = 'pending', VALUES(status), status)`
      : `${head} ON CONFLICT (key_id, lang) DO UPDATE SET value = excluded.value, status = excluded.status, origin = excluded.origin, job_id = NULL, updated_at = excluded.updated_at, ai_score = excluded.ai_score, ai_reason = excluded.ai_reason WHERE translations.status = 'pending'`;
    await trx.raw(sql, bindings);
    // SQLite runs each statement synchronously: a turn between them lets other requests in.
    await yieldTurn();
  }
  // The history of the values stored now (a marker a person filled meanwhile kept its value and is not `ai` now).
  await recordCellsAsStored(
    trx,
    projectId,
    [...new Set(rows.map((r) => r.keyId))],
    [...new Set(rows.map((r) => r.lang))],
    { origin: 'ai', updatedAt: now },
    'ai',
  );
  // The check results of what the cells hold now (a value a person set meanwhile is checked as it is).
  await checkCells(
    trx,
    projectId,
    rows.map((r) => ({ keyId: r.keyId, lang: r.lang })),
    undefined,
    now,
    ahead,
  );
}

// Up to an engine batch per statement: key lookups by the primary key (job_id, key_id, lang).
const PAIR_SLICE = 500;
/** Keys per move of pairs: keys times languages, lookups by the primary key, some 10,000 at most. */
const PAIR_GROUP_KEYS = 100;

/**
 * The pairs of the job's keys `fromKey`..`toKey` still pending, by `keyId|lang`, read under row locks on MySQL
 * (SQLite's transaction is already exclusive): two writers of a pair are ordered, and the later one sees it moved.
 * One range of the primary key (job_id, key_id, lang).
 */
async function stillPending(
  trx: Db,
  jobId: number,
  fromKey: number,
  toKey: number,
): Promise<Map<string, Pick<Pair, 'key_id' | 'lang'>>> {
  const q = trx('fill_pairs')
    .where({ job_id: jobId })
    .andWhere('key_id', '>=', fromKey)
    .andWhere('key_id', '<=', toKey)
    .select('key_id', 'lang', 'state');
  if (dialectOf(trx) === 'mysql') q.forUpdate();
  const out = new Map<string, Pick<Pair, 'key_id' | 'lang'>>();
  for (const r of await q)
    if (r.state === 'pending') out.set(`${r.key_id}|${r.lang}`, { key_id: Number(r.key_id), lang: r.lang });
  return out;
}

/** The content tokens of the keys of `results` as they are now, in the writing transaction. */
async function currentTokens(trx: Db, results: Result[]): Promise<Map<number, string>> {
  const ids = [...new Set(results.filter((r) => r.token !== undefined).map((r) => Number(r.pair.key_id)))];
  const out = new Map<number, string>();
  for (const part of chunks(ids, PAIR_SLICE)) {
    const q = trx('keys').whereIn('id', part).select('id', 'token');
    if (dialectOf(trx) === 'mysql') q.forUpdate();
    for (const k of await q) out.set(Number(k.id), k.token);
  }
  return out;
}

/**
 * Moves pairs that stillPending found pending in this transaction (and, on MySQL, locked) to `state`: looked up by
 * the primary key alone. With `state` in the condition, SQLite would read every pending pair of the job through
 * (job_id, state), and MySQL's scan of that index would lock the gap at its end, where a push of another job inserts
 * its pairs: the two deadlocked under load. Returns how many moved.
 */
async function movePairs(
  trx: Db,
  jobId: number,
  pairs: Array<Pick<Pair, 'key_id' | 'lang'>>,
  state: 'translated' | 'failed',
): Promise<number> {
  let moved = 0;
  const cells = pairs.map((p) => ({ keyId: Number(p.key_id), lang: p.lang }));
  // SQLite: keys times languages per statement. MySQL: one language per statement, as before, each row a point of
  // the primary key: with both lists MariaDB may scan ranges of the key, locking gaps where other jobs' pairs are
  // inserted, and the statements are off the event loop there anyway.
  const mysql = dialectOf(trx) === 'mysql';
  for (const { keyIds, langs } of cellGroups(cells, mysql ? PAIR_SLICE : PAIR_GROUP_KEYS, mysql))
    moved += await trx('fill_pairs')
      .where({ job_id: jobId })
      .whereIn('key_id', keyIds)
      .whereIn('lang', langs)
      .update({ state });
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
    if (job.operation_id) await releaseOperation(trx, job.operation_id, Number(job.held_mc), now);
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

/**
 * One read of the job takes up to this many engine batches of pairs, key-major (every language of a run of keys),
 * so each language's engine call gets a full batch for up to this many languages; at most READ_ROWS, so one
 * read keeps the event loop for a few milliseconds only.
 */
const READ_BATCHES = 40;
const READ_ROWS = { sqlite: 2_000, mysql: 8_000 };
/**
 * Pairs per write transaction, whole keys: a transaction covers a run of keys in every language, so it dirties
 * few pages (cells are stored key by key) and holds the write lock for a few milliseconds. MySQL (statements off
 * the event loop, a commit flushed to disk each) takes bigger ones.
 */
const WRITE_PAIRS = { sqlite: 400, mysql: 2_000 };

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface KeyInfo {
  id: number;
  name: string;
  namespace: string;
  token: string;
  source: string;
  ctx: string | null;
  comment: string | null;
  meta: string | null;
  enabled: unknown;
}

interface FillRun {
  app: App;
  ctx: JobContext<FillPayload>;
  engine: TranslationEngine;
  jobId: number;
  job: { project_id: string; workspace_id: string; operation_id: string | null };
  baseLang: string;
  /**
   * The project: its translation memory (references for the engine, the values it stores as entries), its
   * termbase and its style guide (context.ts).
   */
  project: MemoryProject & ProjectRow;
  /** What the engine reported using and no write has added to the job yet. */
  usage: { promptTokens: number; completionTokens: number; requests: number };
}

type PairRow = Pair & { state: string };

/**
 * The job's pairs of whole keys after `afterKey`, up to about `limit`, in primary-key order (job_id, key_id,
 * lang): a range of the key on both databases, however many of the job's pairs are done. Whatever their state:
 * the caller keeps the pending ones.
 */
async function readPairs(db: Db, jobId: number, afterKey: number, limit: number): Promise<PairRow[]> {
  const cols = ['key_id', 'lang', 'state', 'cost_mc'] as const;
  const rows: PairRow[] = await db('fill_pairs')
    .where({ job_id: jobId })
    .andWhere('key_id', '>', afterKey)
    .orderBy(['key_id', 'lang'])
    .limit(limit)
    .select(...cols);
  if (rows.length < limit) return rows;
  // The last key may go on past the limit: it is left to the next read, unless it is the only one.
  const lastKey = rows[rows.length - 1].key_id;
  let end = rows.length;
  while (end > 0 && rows[end - 1].key_id === lastKey) end--;
  if (end > 0) return rows.slice(0, end);
  const whole: PairRow[] = await db('fill_pairs')
    .where({ job_id: jobId, key_id: lastKey })
    .orderBy('lang')
    .select(...cols);
  return whole;
}

async function readKeys(db: Db, pairs: Pair[]): Promise<Map<number, KeyInfo>> {
  const ids = [...new Set(pairs.map((p) => Number(p.key_id)))];
  const keys = new Map<number, KeyInfo>();
  for (const part of chunks(ids, PAIR_SLICE))
    for (const k of await db('keys')
      .whereIn('id', part)
      .select('id', 'name', 'namespace', 'token', 'source', 'ctx', 'comment', 'meta', 'enabled'))
      keys.set(Number(k.id), k as KeyInfo);
  return keys;
}

/** What became of one pair: a value to store with its score, or why it failed. */
interface Result {
  pair: Pair;
  value?: string;
  /** The key's content token when the engine was asked: the source the value translates (writeResults). */
  token?: string;
  /** The value's score (per mille, translations.ai_score) and its reason (packages/core/src/guard.ts scoreValue). */
  score?: number;
  reason?: string;
  failure?: Failure;
}

/** A value the fill stores, with its score. */
interface StoredValue {
  keyId: number;
  lang: string;
  value: string;
  score: number;
  reason: string;
}

/** What asking the engine needs of a fill: a suggestion (translateOne) has the same without a job. */
type EngineAsk = Pick<FillRun, 'app' | 'engine' | 'baseLang' | 'project' | 'usage'>;

/** Asks the engine for `pairs` (one language) and judges each answer; results in the pairs' order. */
async function translateBatch(
  run: EngineAsk,
  pairs: Pair[],
  keys: Map<number, KeyInfo>,
  references: Map<string, Reference[]>,
  contexts: Map<number, KeyContext>,
): Promise<Result[]> {
  const { engine } = run;
  const lang = pairs[0].lang;
  // An engine that reads images gets the keys' first screenshots, as many as one request carries.
  const shots = engine.imagesPerRequest
    ? await firstScreenshots(
        run.app.db,
        run.app.objects,
        [...new Set(pairs.map((p) => Number(p.key_id)))],
        engine.imagesPerRequest,
      )
    : undefined;
  const items = pairs.map((p, n) => {
    const k = keys.get(Number(p.key_id));
    const refs = references.get(`${p.key_id}|${lang}`);
    const c = contexts.get(Number(p.key_id));
    const terms = c ? itemTerms(c.terms, lang) : [];
    return {
      id: String(n),
      key: k?.name ?? '',
      ctx: k?.ctx ?? null,
      source: k?.source ?? '',
      sourceLang: run.baseLang,
      targetLang: lang,
      ...(refs ? { references: refs } : {}),
      ...(c?.comment ? { comment: c.comment } : {}),
      ...(c?.maxLength ? { maxLength: c.maxLength } : {}),
      ...(terms.length ? { terms } : {}),
      ...(c?.related.length ? { related: c.related } : {}),
      ...(shots?.has(Number(p.key_id)) ? { screenshot: shots.get(Number(p.key_id)) } : {}),
    };
  });
  const byId = new Map<string, TranslationOutcome>();
  const instructions = instructionsFor(run.project, lang);
  const outcomes = await engine.translate(items, {
    ...(instructions ? { instructions } : {}),
    onUsage: (u) => {
      run.usage.promptTokens += u.promptTokens;
      run.usage.completionTokens += u.completionTokens;
      run.usage.requests++;
    },
  });
  for (const o of outcomes) byId.set(o.id, o);
  const results: Result[] = [];
  for (let n = 0; n < pairs.length; n++) {
    const pair = pairs[n];
    const o = byId.get(String(n));
    const k = keys.get(Number(pair.key_id));
    if (!k || !bool(k.enabled))
      results.push({ pair, failure: { reason: k ? 'the key is disabled' : 'the key no longer exists', token: null } });
    else if (o?.value === undefined)
      results.push({ pair, failure: { reason: o?.error ?? 'the engine returned no translation', token: k.token } });
    else {
      // The fill gate before storing, unless the engine ran this very gate on this value: a value that would be
      // refused is never written.
      const problem = engine.checksFill ? null : checkFill(k.source, o.value, lang);
      if (problem) results.push({ pair, failure: { reason: problem, token: k.token } });
      else {
        const { score, reason } = scoreValue({ ...o, value: o.value, references: items[n].references });
        const said = o.failures?.length ? `${reason}: ${o.failures.join('; ')}` : reason;
        results.push({
          pair,
          value: o.value,
          token: k.token,
          score: Math.round(score * 1000),
          reason: shortReason(said),
        });
      }
    }
  }
  return results;
}

/**
 * Stores the results of a run of whole keys in one transaction: charge what was translated (never more than
 * these pairs' hold), store the values, move the pairs and the job's counters. The cells it stored a value in;
 * false when the balance no longer covers the charge (nothing is written).
 */
async function writeResults(
  run: FillRun,
  results: Result[],
  ahead?: AheadChecks,
): Promise<false | Array<{ keyId: number; lang: string }>> {
  const { app, ctx, jobId, job } = run;
  const fromKey = Number(results[0].pair.key_id);
  const toKey = Number(results[results.length - 1].pair.key_id);
  const now = Date.now();
  // What the engine used so far is added with these results (kept for the next write if this one rolls back).
  const usage = { ...run.usage };
  // A write that loses a deadlock to another writer of the project (MySQL) is run again, whole: it read nothing
  // outside its transaction, so a rolled-back attempt left nothing behind. Without it the job's attempt failed and
  // waited for its backoff with the engine's answers thrown away.
  const stored = await retryContended(() =>
    app.db.transaction(async (trx) => {
      await ctx.fence(trx);
      // Charge, store and count only the pairs no one moved meanwhile: a pair is paid and counted once.
      // A source edited while the engine translated it (catalog/source-edit.ts, a push): the value translates the
      // old text, so it is not stored; the pair stays pending and the job's next pass asks again with the new one.
      // The keys are read first, locked on MySQL as a source edit locks its key, so the two take turns.
      const tokens = await currentTokens(trx, results);
      const mine = await stillPending(trx, jobId, fromKey, toKey);
      for (const r of results)
        if (r.token !== undefined && tokens.get(Number(r.pair.key_id)) !== r.token)
          mine.delete(`${r.pair.key_id}|${r.pair.lang}`);
      await yieldTurn();
      const values: StoredValue[] = [];
      const failed: Array<{ pair: Pair; failure: Failure }> = [];
      let chargeMc = 0;
      let releaseMc = 0;
      for (const r of results) {
        if (!mine.has(`${r.pair.key_id}|${r.pair.lang}`)) continue;
        releaseMc += Number(r.pair.cost_mc);
        if (r.failure) failed.push({ pair: r.pair, failure: r.failure });
        else {
          chargeMc += Number(r.pair.cost_mc);
          values.push({
            keyId: Number(r.pair.key_id),
            lang: r.pair.lang,
            value: r.value!,
            score: r.score ?? 1000,
            reason: r.reason ?? '',
          });
        }
      }
      if (!(await charge(trx, job.workspace_id, chargeMc, releaseMc, now))) return false;
      if (job.operation_id) await chargeOperation(trx, job.operation_id, chargeMc, releaseMc, now);
      await storeValues(trx, job.project_id, values, now, ahead);
      const nFailed = await movePairs(
        trx,
        jobId,
        failed.map((f) => f.pair),
        'failed',
      );
      // Every other pending pair of these keys was translated: the results cover the keys whole.
      for (const f of failed) mine.delete(`${f.pair.key_id}|${f.pair.lang}`);
      const nTranslated = await movePairs(trx, jobId, [...mine.values()], 'translated');
      await yieldTurn();
      await recordFailures(trx, jobId, failed, now);
      await trx('fill_jobs')
        .where({ id: jobId })
        .update({
          translated: trx.raw('translated + ?', [nTranslated]),
          failed: trx.raw('failed + ?', [nFailed]),
          charged_mc: trx.raw('charged_mc + ?', [chargeMc]),
          held_mc: trx.raw('held_mc - ?', [releaseMc]),
          prompt_tokens: trx.raw('prompt_tokens + ?', [usage.promptTokens]),
          completion_tokens: trx.raw('completion_tokens + ?', [usage.completionTokens]),
          engine_requests: trx.raw('engine_requests + ?', [usage.requests]),
          updated_at: now,
        });
      if (values.length) await contentChanged(trx, job.project_id, now);
      return values;
    }),
  );
  if (stored) {
    run.usage.promptTokens -= usage.promptTokens;
    run.usage.completionTokens -= usage.completionTokens;
    run.usage.requests -= usage.requests;
  }
  return stored;
}

/**
 * Fills one read of pending pairs (whole keys, key-major): engine batches of one language each, then the results
 * written in transactions of whole keys. Yields a turn of the event loop after each engine batch and each
 * transaction, so other requests run between them. False when credits ran out.
 */
async function fillChunk(run: FillRun, pending: PairRow[]): Promise<boolean> {
  const { engine } = run;
  const keys = await readKeys(run.app.db, pending);
  // One target language per engine call: an engine request covers one language pair.
  const byLang = new Map<string, Pair[]>();
  for (const p of pending) {
    const list = byLang.get(p.lang);
    if (list) list.push(p);
    else byLang.set(p.lang, [p]);
  }
  // The memory's fuzzy matches, sent as references so the engine follows the team's earlier wording.
  const references = await referencesFor(
    run.app.db,
    run.project,
    [...keys.values()].map((k) => ({ keyId: Number(k.id), source: k.source, ctx: k.ctx, name: k.name })),
    [...byLang.keys()],
  );
  const contexts = await keyContexts(run.app.db, run.project, [...keys.values()]);
  const resultOf = new Map<Pair, Result>();
  for (const list of byLang.values())
    for (const batch of chunks(list, engine.maxBatch)) {
      for (const r of await translateBatch(run, batch, keys, references, contexts)) resultOf.set(r.pair, r);
      await yieldTurn();
    }
  const writePairs = WRITE_PAIRS[dialectOf(run.app.db)];
  const writes: Result[][] = [];
  for (let from = 0; from < pending.length;) {
    let to = Math.min(from + writePairs, pending.length);
    while (to < pending.length && pending[to].key_id === pending[to - 1].key_id) to++;
    writes.push(pending.slice(from, to).map((p) => resultOf.get(p)!));
    from = to;
  }
  // A large read's values are checked on the check threads while the writes before them run (checks-ahead.ts).
  const ahead =
    pending.length >= AHEAD_MIN_PAIRS
      ? await checkAhead(
          run.app,
          run.job.project_id,
          keyInputs(keys),
          writes.map((w) => w.flatMap((r) => (r.value === undefined ? [] : [aheadValue(r)]))),
        )
      : undefined;
  for (const [i, results] of writes.entries()) {
    const stored = await writeResults(run, results, await ahead?.[i]);
    if (!stored) return false;
    // The values' memory entries, once they are committed (entries.ts rememberAfter).
    await rememberAfter(run.app.db, run.app.log, run.project, stored);
    await yieldTurn();
  }
  return true;
}

const aheadValue = (r: Result): AheadValue => ({ keyId: Number(r.pair.key_id), lang: r.pair.lang, value: r.value! });

/** The keys as the checks read them (server/domain/checks/compute.ts KeyInput). */
function keyInputs(keys: Map<number, KeyInfo>): Map<number, KeyInput> {
  const out = new Map<number, KeyInput>();
  for (const [id, k] of keys) out.set(id, { id, name: k.name, source: k.source, ctx: k.ctx, comment: k.comment });
  return out;
}

/**
 * One cell's translation from the engine, asked with everything a fill sends (memory references, the key's comment,
 * limit, terms, neighbours, screenshot) and judged by the same gate and score: the key editor's machine suggestion
 * (suggest.ts). Nothing is stored.
 */
export async function translateOne(
  ask: Omit<EngineAsk, 'usage'>,
  keyId: number,
  lang: string,
): Promise<{ value: string; score: number; reason: string } | { problem: string }> {
  const pair: Pair = { key_id: keyId, lang, cost_mc: 0 };
  const keys = await readKeys(ask.app.db, [pair]);
  const k = keys.get(keyId);
  if (!k) return { problem: 'the key no longer exists' };
  const references = await referencesFor(
    ask.app.db,
    ask.project,
    [{ keyId, source: k.source, ctx: k.ctx, name: k.name }],
    [lang],
  );
  const contexts = await keyContexts(ask.app.db, ask.project, [k]);
  const usage = { promptTokens: 0, completionTokens: 0, requests: 0 };
  const [r] = await translateBatch({ ...ask, usage }, [pair], keys, references, contexts);
  if (r.value === undefined) return { problem: r.failure?.reason ?? 'the engine returned no translation' };
  return { value: r.value, score: r.score ?? 0, reason: r.reason ?? '' };
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
  const project = (await db('projects').where({ id: job.project_id }).first())!;
  const run: FillRun = {
    app,
    ctx,
    engine,
    jobId,
    job,
    baseLang: project.base_lang,
    project,
    usage: { promptTokens: 0, completionTokens: 0, requests: 0 },
  };
  try {
    // Passes over the job's pairs in primary-key order until none is pending (one pass, unless a pair was left
    // pending by a write that did not move it).
    while (await db('fill_pairs').where({ job_id: jobId, state: 'pending' }).first('key_id')) {
      let afterKey = 0;
      for (;;) {
        const rows = await readPairs(
          db,
          jobId,
          afterKey,
          Math.min(engine.maxBatch * READ_BATCHES, READ_ROWS[dialectOf(db)]),
        );
        if (!rows.length) break;
        afterKey = Number(rows[rows.length - 1].key_id);
        const pending = rows.filter((r) => r.state === 'pending');
        if (pending.length && !(await fillChunk(run, pending)))
          return finish(db, ctx, jobId, 'aborted_no_credits', Date.now());
      }
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
