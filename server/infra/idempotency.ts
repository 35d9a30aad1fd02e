// `Idempotency-Key` (spec parameter `IdempotencyKey`: POST /content, content runs). The key is claimed by an insert
// before the work, so of two concurrent requests with one key exactly one works and the other answers
// `409 run_in_progress`; the answer is stored in the work's own transaction, so a key is `done` exactly when its
// work committed. A request that fails gives its key back; one that dies mid-way leaves a claim whose lease
// expires, after which the key may be used again.
// It stays apart from requests.ts (requestId), on whose claim it builds: the spec gives the two other contracts (no
// body check, failures not kept, a key reusable after a day, no recovery of enqueued work).
import type { Db } from './db.js';
import { conflict } from './errors.js';
import { claimRow, LEASE_MS } from './requests.js';

/** How long a key replays its first answer. */
const KEEP_MS = 24 * 3600_000;

interface KeyRef {
  projectId: string;
  /** The route and resource the key is scoped to, e.g. `content.create` or `content.run:<docId>`. */
  scope: string;
  key: string;
}

interface StoredAnswer {
  status: number;
  body: unknown;
}

/** What `work` gets: call `commit(trx, answer)` in the transaction that makes the work durable. */
interface KeyScope {
  commit(trx: Db, answer: StoredAnswer): Promise<void>;
}

const whereKey = (ref: KeyRef) => ({ project_id: ref.projectId, scope: ref.scope, idem_key: ref.key });

/**
 * Runs `work` once per key. A key already answered returns `replay(first answer)`; a key whose first request is
 * still working is `409 run_in_progress`. Without a key, `work` simply runs.
 */
export async function withIdempotencyKey(
  db: Db,
  ref: KeyRef | null,
  work: (scope: KeyScope) => Promise<StoredAnswer>,
  replay: (first: StoredAnswer) => StoredAnswer = (first) => first,
): Promise<StoredAnswer> {
  if (!ref) return work({ async commit() {} });
  const now = Date.now();
  const claim = {
    ...whereKey(ref),
    state: 'processing' as const,
    status: null,
    response: null,
    lease_until: now + LEASE_MS,
    created_at: now,
  };
  if (!(await claimRow(db, 'idempotency_keys', claim))) {
    const row = await db('idempotency_keys').where(whereKey(ref)).first();
    if (row?.state === 'done' && Number(row.created_at) + KEEP_MS > now)
      return replay({ status: row.status ?? 200, body: JSON.parse(row.response ?? 'null') });
    const stale = !row || Number(row.lease_until) < now || row.state === 'done';
    // An abandoned claim or an expired answer: take the key over, unless another request just did.
    const taken = stale
      ? await db('idempotency_keys')
          .where(whereKey(ref))
          .andWhere('lease_until', row ? Number(row.lease_until) : 0)
          .update({ state: 'processing', status: null, response: null, lease_until: now + LEASE_MS, created_at: now })
      : 0;
    if (taken !== 1)
      throw conflict(
        'run_in_progress',
        'A request with this Idempotency-Key is still being processed; retry it later.',
      );
  }
  let committed = false;
  const store = async (trx: Db, answer: StoredAnswer) => {
    await trx('idempotency_keys')
      .where(whereKey(ref))
      .update({ state: 'done', status: answer.status, response: JSON.stringify(answer.body) });
    committed = true;
  };
  let answer: StoredAnswer;
  try {
    answer = await work({ commit: store });
  } catch (err) {
    await db('idempotency_keys').where(whereKey(ref)).andWhere({ state: 'processing' }).delete();
    throw err;
  }
  // Work that wrote nothing (nothing to commit with) still answers the same on a retry.
  if (!committed) await store(db, answer);
  return answer;
}

/** Keys past their replay window. */
export async function sweepIdempotencyKeys(db: Db, now: number): Promise<void> {
  await db('idempotency_keys')
    .where('created_at', '<', now - KEEP_MS)
    .andWhere('lease_until', '<', now)
    .delete();
}
