// The engine work a person asks for over many keys at once (internalBulkKeys' actions retry, retranslate and
// translate), queued in the caller's transaction as a push queues its own: memory first at no charge, the rest in
// one fill job whose estimate is held.
import type { Db } from '../../infra/db.js';
import { bool, chunks, parseJson } from '../../infra/db.js';
import type { JobQueue } from '../../infra/jobs.js';
import type { ProjectRow } from '../../infra/tables.js';
import { pairCost } from '../billing/credits.js';
import { preTranslatePairs } from '../memory/pretranslate.js';
import { contentChanged } from '../project/revision.js';
import { enqueueFill, insertMarkers } from './queue.js';
import { outdatedPairs, retranslate } from './retranslate.js';

type BulkFillAction = 'retry' | 'retranslate' | 'translate';

export interface BulkFillResult {
  /** Cells queued, and those the memory filled. */
  affected: number;
  fromMemory: number;
  trackingToken: string | null;
  /** Millicredits held for the job. */
  estimate: number;
}

interface Pair {
  keyId: number;
  lang: string;
  cost: number;
}

interface KeySource {
  id: number;
  source: string;
  forms: string | null;
}

/**
 * Queues `action` over the keys `ids` in the languages `langs` (AI-filled ones: the caller chose them). Throws the
 * 402 of the hold, which rolls the caller's transaction back.
 */
export async function queueBulkFill(
  trx: Db,
  jobs: JobQueue,
  p: ProjectRow,
  action: BulkFillAction,
  ids: number[],
  langs: string[],
  now: number,
  actor: string,
): Promise<BulkFillResult> {
  const none: BulkFillResult = { affected: 0, fromMemory: 0, trackingToken: null, estimate: 0 };
  if (!langs.length || !ids.length) return none;
  if (action === 'retranslate') {
    const queued = await retranslate(trx, jobs, p, await outdatedPairs(trx, p, langs, ids), now, actor);
    if (!queued) return none;
    await contentChanged(trx, p.id, now);
    return { affected: queued.pairs, fromMemory: 0, trackingToken: queued.trackingToken, estimate: queued.estimate };
  }
  const { pairs, unborn } =
    action === 'retry'
      ? { pairs: await failedPairs(trx, p, ids, langs), unborn: [] }
      : await unfilledPairs(trx, p, ids, langs);
  // What the memory holds at 100 or 101 is filled from it, at no charge; the rest is asked of the engine.
  const { filled, rest } = await preTranslatePairs(trx, p, pairs, now);
  const filledNow = new Set(filled.map((q) => `${q.keyId}|${q.lang}`));
  await insertMarkers(
    trx,
    p.id,
    unborn.filter((q) => !filledNow.has(`${q.keyId}|${q.lang}`)),
    now,
  );
  const queued = await enqueueFill(trx, jobs, p, rest, now);
  if (filled.length || queued) await contentChanged(trx, p.id, now);
  return {
    affected: filled.length + (queued?.pairs ?? 0),
    fromMemory: filled.length,
    trackingToken: queued?.trackingToken ?? null,
    estimate: queued?.estimate ?? 0,
  };
}

/** The keys of `ids` a fill may take: switched on, and with a verified source where the project asks for one. */
async function fillableKeys(trx: Db, p: ProjectRow, ids: number[]): Promise<KeySource[]> {
  const out: KeySource[] = [];
  for (const part of chunks(ids)) {
    const q = trx('keys').whereIn('id', part).where('enabled', true).select<KeySource[]>('id', 'source', 'forms');
    if (bool(p.auto_verify)) q.where('source_verified', true);
    out.push(...(await q));
  }
  return out;
}

const costOf = (k: KeySource) => pairCost(k.source, parseJson<Record<string, string> | null>(k.forms, null));

/** The failed pairs (a pending marker with its failure) of the fillable keys. */
async function failedPairs(trx: Db, p: ProjectRow, ids: number[], langs: string[]): Promise<Pair[]> {
  const keys = await fillableKeys(trx, p, ids);
  const byId = new Map(keys.map((k) => [Number(k.id), k]));
  const pairs: Pair[] = [];
  for (const part of chunks([...byId.keys()]))
    for (const r of await trx('translations')
      .whereIn('key_id', part)
      .whereIn('lang', langs)
      .where('status', 'pending')
      .whereNotNull('fail_reason')
      .orderBy(['key_id', 'lang'])
      .select<Array<{ key_id: number; lang: string }>>('key_id', 'lang'))
      pairs.push({ keyId: Number(r.key_id), lang: r.lang, cost: costOf(byId.get(Number(r.key_id))!) });
  return pairs;
}

/**
 * Every pair of the fillable keys without a value: no row yet (`unborn`, which needs a pending marker before a job
 * can claim it), or a pending marker, failed or not. A marker a live job holds is passed over by the claim.
 */
async function unfilledPairs(
  trx: Db,
  p: ProjectRow,
  ids: number[],
  langs: string[],
): Promise<{ pairs: Pair[]; unborn: Pair[] }> {
  const pairs: Pair[] = [];
  const unborn: Pair[] = [];
  const keys = await fillableKeys(trx, p, ids);
  for (const part of chunks(keys)) {
    const rows = await trx('translations')
      .whereIn(
        'key_id',
        part.map((k) => k.id),
      )
      .whereIn('lang', langs)
      .select<Array<{ key_id: number; lang: string; status: string }>>('key_id', 'lang', 'status');
    const status = new Map(rows.map((r) => [`${r.key_id}|${r.lang}`, r.status]));
    for (const k of part) {
      const cost = costOf(k);
      for (const lang of langs) {
        const s = status.get(`${k.id}|${lang}`);
        const pair = { keyId: Number(k.id), lang, cost };
        if (s === undefined) unborn.push(pair);
        if (s === undefined || s === 'pending') pairs.push(pair);
      }
    }
  }
  return { pairs, unborn };
}
