// POST /outdated/retranslate (spec: `retranslateOutdated`): the outdated cells (server/domain/catalog/outdated.ts)
// queued for the fill again, as `glossa push --retranslate-outdated` asks; POST /retranslate (`retranslateCells`):
// cells a translator or agent chose.
import { contentChanged } from '../../domain/project/revision.js';
import type { Db } from '../../infra/db.js';
import { chunks } from '../../infra/db.js';
import { ApiError } from '../../infra/errors.js';
import type { Handler } from '../pipeline.js';
import { readCredit } from '../../domain/billing/credits.js';
import { resolveTargets } from '../../domain/catalog/targets.js';
import {
  outdatedPairs,
  planChosen,
  retranslate,
  retranslateChosen,
  type ChosenOutcome,
} from '../../domain/fill/retranslate.js';
import { previewBatch } from '../../domain/operations/previews.js';
import { withRequestRecord } from '../../infra/requests.js';

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

/**
 * POST /retranslate (spec: `retranslateCells`): chosen cells queued again. A dry run answers the plan and the
 * `batchSha256` of its body (an agent key's operation manifest); the real run is recorded under its requestId, and
 * an agent key's paid request is refused (403) until it carries an approved operation, whose gate checks the body
 * as one batch (server/domain/operations/gate.ts).
 */
export const retranslateCells: Handler<'retranslateCells'> = async (ctx) => {
  const { db, engine, jobs } = ctx.app;
  if (!engine)
    throw new ApiError(
      503,
      'unavailable',
      'No translation engine is configured (TRANSLATION_ENGINE=none); nothing was queued.',
    );
  const p = ctx.project;
  if (ctx.dryRun) {
    const plan = await planChosen(db, p, ctx.body.cells);
    const balance = (await readCredit(db, p.workspace_id, Date.now(), true)).available;
    const batchSha256 = await previewBatch(db, ctx.app.log, p.id, ctx.body, {
      sources: plan.samples,
      estimateMc: plan.estimate,
    });
    return {
      body: {
        queued: plan.pairs.length,
        trackingToken: null,
        estimatedCredits: plan.estimate,
        balance,
        accepted: plan.estimate <= balance,
        batchSha256,
        cells: plan.cells,
      },
    };
  }
  const actor = `key:${ctx.principal!.keyId}`;
  return withRequestRecord(
    db,
    { keyId: ctx.principal!.keyId, projectId: p.id, body: ctx.body, approval: ctx.approval },
    'retranslate',
    async (scope) => {
      const now = Date.now();
      const body = {
        queued: 0,
        trackingToken: null as string | null,
        estimatedCredits: 0,
        balance: 0,
        cells: [] as ChosenOutcome[],
      };
      await db.transaction(async (trx) => {
        const plan = await planChosen(trx, p, ctx.body.cells);
        // An agent key may not buy fills without an approved operation (spec: x-operation-action).
        if (ctx.approval.guardsSpending) ctx.approval.spend(plan.estimate);
        const q = await retranslateChosen(trx, jobs, p, plan, now, actor, ctx.approval.operation?.budget);
        body.cells = plan.cells;
        if (q) {
          body.queued = q.pairs;
          body.trackingToken = q.trackingToken;
          body.estimatedCredits = q.estimate;
          await contentChanged(trx, p.id, now);
        }
        body.balance = (await readCredit(trx, p.workspace_id, now, true)).available;
        await scope.capture(trx, { body, trackingToken: body.trackingToken });
      });
      return { reply: { body }, trackingToken: body.trackingToken };
    },
  );
};
