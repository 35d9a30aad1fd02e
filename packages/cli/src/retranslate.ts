// The MCP tool `retranslate_cells` (spec: `retranslateCells`): chosen cells queued for the AI fill again. Sent under
// a requestId derived from the cells, so a rerun replays. An agent key's paid request becomes one batch of a
// translate operation (`approved` in commands.ts: created, or the equivalent one a person approved found), sent
// under a requestId derived from the first; a rerun after it ran reads that record and replays it, so an unchanged
// rerun asks nobody, while a rerun after the approval (its record not written yet) proceeds.
import { batchManifest } from '../../client/src/index.js';
import {
  approved,
  contentRequestId,
  failed,
  freeRequestId,
  isAuthorizationRequired,
  replayed,
  unexpired,
  type Ctx,
} from './commands.js';

interface Cell {
  key: string;
  lang: string;
  namespace?: string;
}

export async function retranslateCells(ctx: Ctx, cells: Cell[], requestId?: string) {
  const { api, cfg } = ctx;
  const path = { projectId: cfg.projectId };
  const body = { cells };
  const send = (b: Record<string, unknown>, dryRun = false) =>
    api.POST('/projects/{projectId}/retranslate', {
      params: { path, query: dryRun ? { dryRun: 'true' } : {} },
      body: b as typeof body,
    });
  // The id the first answer is under (a day's own after the content's expired): the run under an operation derives
  // its id from it, so a rerun that day finds that run, and one days later asks afresh.
  let first = { ...body, requestId: requestId ?? contentRequestId(body) };
  let r = await unexpired(ctx, first, (b) => {
    first = b;
    return send(b);
  });
  let operationId: string | undefined;
  if (!r.data && isAuthorizationRequired(r.response.status, r.error)) {
    const underId = contentRequestId({ underOperation: first.requestId });
    const earlier = await api.GET('/projects/{projectId}/requests/{requestId}', {
      params: { path: { ...path, requestId: underId } },
    });
    if (earlier.data?.state === 'done' && earlier.data.response)
      return { ok: true, replayed: true, ...earlier.data.response };
    const preview = await send(body, true);
    if (!preview.data) throw failed('re-translation preview', preview.response.status, preview.error);
    const { estimatedCredits: mc, batchSha256: sha } = preview.data;
    if (mc === 0) r = await send({ ...body, requestId: freeRequestId(first.requestId) });
    else {
      const op = await approved(ctx, {
        action: 'translate',
        max_credits: Math.max(1, Math.ceil(mc / 1000)),
        scope: {
          project_id: cfg.projectId,
          langs: [...new Set(cells.map((c) => c.lang))],
          unit_count: cells.length,
          ...(await batchManifest([{ sha256: sha!, unit_count: cells.length }])),
        },
      });
      operationId = op.operation_id;
      r = await send({
        ...body,
        operationId,
        requestId: underId,
        attemptId: underId,
        batchIndex: 0,
        batchSha256: sha,
      });
    }
  }
  if (!r.data)
    throw failed(
      `re-translation${operationId ? ` under ${operationId}` : ''} (after fixing the cause, call again with a new requestId)`,
      r.response.status,
      r.error,
    );
  return {
    ok: true,
    ...(replayed(r.response) ? { replayed: true } : {}),
    ...(operationId ? { operationId } : {}),
    ...r.data,
  };
}
