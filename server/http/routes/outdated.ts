// POST /outdated/retranslate (spec: `retranslateOutdated`): the outdated cells (server/domain/catalog/outdated.ts)
// queued for the fill again, as `glossa push --retranslate-outdated` asks.
import { contentChanged } from '../../domain/project/revision.js';
import type { Db } from '../../infra/db.js';
import { chunks } from '../../infra/db.js';
import { ApiError } from '../../infra/errors.js';
import type { Handler } from '../pipeline.js';
import { readCredit } from '../../domain/billing/credits.js';
import { resolveTargets } from '../../domain/catalog/targets.js';
import { outdatedPairs, retranslate } from '../../domain/fill/retranslate.js';

async function keyIdsByName(db: Db, projectId: string, names: string[] | undefined): Promise<number[] | null> {
  if (!names) return null;
  const ids: number[] = [];
  for (const part of chunks([...new Set(names)]))
    ids.push(...(await db('keys').where('project_id', projectId).whereIn('name', part).pluck('id')).map(Number));
  return ids;
}

export const retranslateOutdated: Handler<'retranslateOutdated'> = async (ctx) => {
  const { db, engine, jobs } = ctx.app;
  if (!engine)
    throw new ApiError(
      503,
      'unavailable',
      'No translation engine is configured (TRANSLATION_ENGINE=none); nothing was queued.',
    );
  const p = ctx.project;
  const langs = await resolveTargets(db, p, ctx.body?.langs);
  const keyIds = await keyIdsByName(db, p.id, ctx.body?.keys);
  const now = Date.now();
  const body = { queued: 0, trackingToken: null as string | null, estimatedCredits: 0, balance: 0 };
  await db.transaction(async (trx) => {
    const pairs = await outdatedPairs(trx, p, langs, keyIds);
    // An agent key may not buy fills without an approved operation (spec: x-operation-action).
    if (ctx.approval.guardsSpending) ctx.approval.spend(pairs.reduce((n, q) => n + q.cost, 0));
    const q = await retranslate(trx, jobs, p, pairs, now, 'sync');
    if (q) {
      body.queued = q.pairs;
      body.trackingToken = q.trackingToken;
      body.estimatedCredits = q.estimate;
      await contentChanged(trx, p.id, now);
    }
    body.balance = (await readCredit(trx, p.workspace_id, now, true)).available;
  });
  return { body };
};
