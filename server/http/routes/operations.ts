// Operations group (spec: `createOperation`, `getOperation`; schema `Operation`).
import type { Handler } from '../pipeline.js';
import { operationNotFound } from '../../infra/errors.js';
import { createOperation as create } from '../../domain/operations/create.js';
import { operationView, readOperation } from '../../domain/operations/store.js';

export const createOperation: Handler<'createOperation'> = async (ctx) => {
  const { db, config } = ctx.app;
  const p = ctx.principal!;
  return { status: 201, body: await create(db, config, { keyId: p.keyId, projectId: p.projectId }, ctx.body) };
};

/** Only the creating key reads it; anything else is the same 404 (never writes: expiry is the sweep's). */
export const getOperation: Handler<'getOperation'> = async (ctx) => {
  const { db, config } = ctx.app;
  const row = await readOperation(db, ctx.params.operationId);
  const p = ctx.principal!;
  if (!row || row.api_key_id !== p.keyId || row.project_id !== p.projectId) throw operationNotFound();
  const project = await db('projects').where({ id: row.project_id }).first('deleted_at');
  if (!project || project.deleted_at != null) throw operationNotFound();
  return { body: await operationView(db, config, row, Date.now()) };
};
