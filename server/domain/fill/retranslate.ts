// Translating outdated cells again on request (server/domain/catalog/outdated.ts): the dashboard's bulk action
// (internalBulkKeys `retranslate`), the public route (spec: `retranslateOutdated`, `glossa push
// --retranslate-outdated`). The cells are queued by the push's own path (enqueueFill: held, or refused with the
// push's 402 in the caller's transaction, which then rolls the retirement back too).
import type { Db } from '../../infra/db.js';
import { bool, chunks, parseJson } from '../../infra/db.js';
import type { JobQueue } from '../../infra/jobs.js';
import type { ProjectRow } from '../../infra/tables.js';
import { pairCost } from '../billing/credits.js';
import { retireForRetranslation } from '../catalog/outdated.js';
import { enqueueFill } from './queue.js';

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
