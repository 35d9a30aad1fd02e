// GET /credential: what the calling key may do (spec: `getCredential`).
import type { Handler } from '../pipeline.js';

export const getCredential: Handler<'getCredential'> = (ctx) => ({
  body: { scopes: ctx.principal!.scopes, requires_operation_approval: ctx.principal!.requiresOperationApproval },
});
