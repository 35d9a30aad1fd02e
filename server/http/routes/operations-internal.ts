// Internal API of operations (spec/internal.yaml: `internalGetOperation`, `internalApproveOperation`,
// `internalDenyOperation`, `internalListOperations`), over decide.ts, which the dashboard calls in-process.
import type { Handler } from '../pipeline.js';
import { approveOperation, denyOperation, listOperations, operationWithPlan } from '../../domain/operations/decide.js';

export const internalGetOperation: Handler<'internalGetOperation'> = async (ctx) => ({
  body: await operationWithPlan(ctx.app, ctx.params.operationId),
});

export const internalApproveOperation: Handler<'internalApproveOperation'> = async (ctx) => ({
  body: await approveOperation(ctx.app.db, ctx.app.config, ctx.params.operationId, {
    authorizedCredits: ctx.body?.authorizedCredits,
    // A person deciding through the dashboard is recorded as themselves, whatever the body says.
    decidedBy: ctx.actor?.userId ?? ctx.body?.decidedBy,
  }),
});

export const internalDenyOperation: Handler<'internalDenyOperation'> = async (ctx) => ({
  body: await denyOperation(ctx.app.db, ctx.app.config, ctx.params.operationId, {
    decidedBy: ctx.actor?.userId ?? ctx.body?.decidedBy,
  }),
});

export const internalListOperations: Handler<'internalListOperations'> = async (ctx) => ({
  body: await listOperations(ctx.app.db, ctx.app.config, ctx.params.projectId, ctx.query),
});
