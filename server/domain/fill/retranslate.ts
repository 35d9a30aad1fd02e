// Translating cells again on request: the outdated ones (server/domain/catalog/outdated.ts: the dashboard's bulk
// action, internalBulkKeys `retranslate`; the public route, spec: `retranslateOutdated`, `glossa push
// --retranslate-outdated`), or cells a translator or agent chose (spec: `retranslateCells`, the MCP tool
// `retranslate_cells`). The cells are queued by the push's own path (enqueueFill: held, or refused with the
// push's 402 in the caller's transaction, which then rolls the retirement back too).
import type { OperationBudget } from '../../infra/approval.js';
import type { Db } from '../../infra/db.js';
import { bool, chunks, parseJson } from '../../infra/db.js';
import { conflict, invalidArgument, notFound } from '../../infra/errors.js';
import type { JobQueue } from '../../infra/jobs.js';
import type { KeyRow, ProjectRow } from '../../infra/tables.js';
import { pairCost } from '../billing/credits.js';
import { DEFAULT_NAMESPACE } from '../catalog/keys.js';
import { retireForRetranslation } from '../catalog/outdated.js';
import { resolveTargets } from '../catalog/targets.js';
import { normalizeLanguage } from '../project/languages.js';
import { FINAL } from './fill.js';
import { enqueueFill, insertMarkers } from './queue.js';

interface RetranslatePair {
  keyId: number;
  lang: string;
  cost: number;
}

/**
 * The outdated cells of `langs` (AI-filled languages: the caller's choice) of the project's enabled keys (`keyIds`,
 * else all) that a push would fill (source verified under auto-verify), with their cost.
 */
export async function outdatedPairs(
  db: Db,
  p: ProjectRow,
  langs: string[],
  keyIds: number[] | null,
): Promise<RetranslatePair[]> {
  if (!langs.length || keyIds?.length === 0) return [];
  const read = (ids: number[] | null) => {
    const q = db('translations as t')
      .join('keys as k', 'k.id', 't.key_id')
      .where('t.project_id', p.id)
      .whereIn('t.lang', langs)
      .whereNotNull('t.outdated_at')
      .whereNot('t.status', 'pending')
      .where('k.enabled', true)
      .orderBy(['t.key_id', 't.lang'])
      .select<Array<{ key_id: number; lang: string; source: string; forms: string | null }>>(
        't.key_id',
        't.lang',
        'k.source',
        'k.forms',
      );
    if (ids) q.whereIn('t.key_id', ids);
    if (bool(p.auto_verify)) q.where('k.source_verified', true);
    return q;
  };
  const rows = [];
  if (keyIds) for (const part of chunks(keyIds)) rows.push(...(await read(part)));
  else rows.push(...(await read(null)));
  return rows.map((r) => ({
    keyId: Number(r.key_id),
    lang: r.lang,
    cost: pairCost(r.source, parseJson<Record<string, string> | null>(r.forms, null)),
  }));
}

/**
 * Retires `pairs` (their values kept in history, by `actor`) and queues them in one fill job, in the caller's
 * transaction. Null when nothing was queued.
 */
export async function retranslate(
  trx: Db,
  jobs: JobQueue,
  p: ProjectRow,
  pairs: RetranslatePair[],
  now: number,
  actor: string,
) {
  if (!pairs.length) return null;
  const retired = new Set(
    (await retireForRetranslation(trx, p.id, pairs, now, actor)).map((c) => `${c.keyId}|${c.lang}`),
  );
  return enqueueFill(
    trx,
    jobs,
    p,
    pairs.filter((q) => retired.has(`${q.keyId}|${q.lang}`)),
    now,
  );
}

/** A cell a caller chose to translate again (spec: `RetranslateCellsRequest`). */
interface ChosenCell {
  key: string;
  lang: string;
  namespace?: string;
}

/** What becomes of each chosen cell (`RetranslateCellsResult.cells`). */
export interface ChosenOutcome {
  key: string;
  namespace?: string;
  lang: string;
  outcome: 'queued' | 'in_flight';
}

/** The chosen cells resolved: the pairs to queue with their cost, each cell's outcome, the sources for a preview. */
interface ChosenPlan {
  pairs: RetranslatePair[];
  /** Pairs with no translation row yet: they get a pending marker before the claim. */
  unborn: RetranslatePair[];
  cells: ChosenOutcome[];
  /** `key [lang]: source` of each pair to queue, what a person approving the operation reads. */
  samples: string[];
  estimate: number;
}

type KeyFields = Pick<KeyRow, 'id' | 'name' | 'token' | 'source' | 'forms' | 'enabled' | 'source_verified'> & {
  namespace: string;
};

/** The keys the cells name (by name, else by token), per namespace, with one query per namespace and chunk. */
async function keysOf(db: Db, projectId: string, cells: ChosenCell[]): Promise<Map<string, KeyFields>> {
  const byNs = new Map<string, Set<string>>();
  for (const c of cells) {
    const ns = c.namespace ?? DEFAULT_NAMESPACE;
    byNs.set(ns, (byNs.get(ns) ?? new Set()).add(c.key));
  }
  const found = new Map<string, KeyFields>();
  for (const [ns, refs] of byNs)
    for (const part of chunks([...refs])) {
      const rows: KeyFields[] = await db('keys')
        .where({ project_id: projectId, namespace: ns })
        .andWhere((w) => {
          w.whereIn('name', part).orWhereIn('token', part);
        })
        .select('id', 'name', 'token', 'source', 'forms', 'enabled', 'source_verified', 'namespace');
      // A name wins over another key's token.
      for (const r of rows)
        if (part.includes(r.token) && !found.has(`${ns}\u0000${r.token}`)) found.set(`${ns}\u0000${r.token}`, r);
      for (const r of rows) if (part.includes(r.name)) found.set(`${ns}\u0000${r.name}`, r);
    }
  return found;
}

/**
 * Resolves and checks every chosen cell before anything is written (spec: `retranslateCells`): an unknown key is
 * 404, a disabled key or one awaiting source verification 409, a cell named twice 400; the languages are held to
 * `resolveTargets` (the base language, unknown or manual languages refused). A cell a live fill job holds stays
 * with that job (`in_flight`) and costs nothing.
 */
export async function planChosen(db: Db, p: ProjectRow, cells: ChosenCell[]): Promise<ChosenPlan> {
  const langs = await resolveTargets(
    db,
    p,
    cells.map((c) => c.lang),
  );
  const keys = await keysOf(db, p.id, cells);
  const seen = new Set<string>();
  const resolved = cells.map((c, i) => {
    const ns = c.namespace ?? DEFAULT_NAMESPACE;
    const key = keys.get(`${ns}\u0000${c.key}`);
    const where = ns === DEFAULT_NAMESPACE ? '' : ` in namespace ${ns}`;
    if (!key) throw notFound(`cells/${i}: no key ${c.key}${where}; nothing was queued.`);
    if (!bool(key.enabled))
      throw conflict('conflict', `${key.name}${where} is disabled; enable it before translating it again.`);
    if (bool(p.auto_verify) && !bool(key.source_verified))
      throw conflict('conflict', `${key.name}${where} awaits source verification; verify it first.`);
    const lang = normalizeLanguage(c.lang);
    const id = `${Number(key.id)}|${lang}`;
    if (seen.has(id)) throw invalidArgument(`cells/${i}: ${key.name} [${lang}] is named twice.`);
    seen.add(id);
    return { key, lang };
  });
  const rows = new Map<string, { status: string; job_id: number | null; job_status: string | null }>();
  for (const lang of langs) {
    const ids = resolved.filter((r) => r.lang === lang).map((r) => Number(r.key.id));
    for (const part of chunks(ids))
      for (const r of await db('translations as t')
        .leftJoin('fill_jobs as j', 'j.id', 't.job_id')
        .where('t.lang', lang)
        .whereIn('t.key_id', part)
        .select<Array<{ key_id: number; status: string; job_id: number | null; job_status: string | null }>>(
          't.key_id',
          't.status',
          't.job_id',
          'j.status as job_status',
        ))
        rows.set(`${Number(r.key_id)}|${lang}`, r);
  }
  const plan: ChosenPlan = { pairs: [], unborn: [], cells: [], samples: [], estimate: 0 };
  for (const { key, lang } of resolved) {
    const row = rows.get(`${Number(key.id)}|${lang}`);
    const held = row?.status === 'pending' && row.job_id != null && !FINAL.includes(row.job_status as never);
    plan.cells.push({
      key: key.name,
      ...(key.namespace === DEFAULT_NAMESPACE ? {} : { namespace: key.namespace }),
      lang,
      outcome: held ? 'in_flight' : 'queued',
    });
    if (held) continue;
    const pair = {
      keyId: Number(key.id),
      lang,
      cost: pairCost(key.source, parseJson<Record<string, string> | null>(key.forms, null)),
    };
    plan.pairs.push(pair);
    if (!row) plan.unborn.push(pair);
    plan.samples.push(`${key.name} [${lang}]: ${key.source}`);
    plan.estimate += pair.cost;
  }
  return plan;
}

/**
 * Queues a plan's pairs in one fill job, in the caller's transaction: cells without a row get a pending marker,
 * values are retired into history by `actor`, then the job claims them, holds their cost (402 rolls it all back)
 * and, under an operation, reserves it from the operation's budget, which must cover all of it.
 */
export async function retranslateChosen(
  trx: Db,
  jobs: JobQueue,
  p: ProjectRow,
  plan: ChosenPlan,
  now: number,
  actor: string,
  budget?: OperationBudget,
) {
  if (!plan.pairs.length) return null;
  if (budget && (await budget.remaining(trx)) < plan.estimate)
    throw conflict(
      'budget_exhausted',
      `The operation's remaining budget does not cover this request (${plan.estimate} mc); nothing was queued.`,
    );
  await insertMarkers(trx, p.id, plan.unborn, now);
  await retireForRetranslation(trx, p.id, plan.pairs, now, actor);
  return enqueueFill(trx, jobs, p, plan.pairs, now, budget ? { budget, unreached: [] } : undefined);
}
