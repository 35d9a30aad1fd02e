// Operations group (spec: `createOperation`, `getOperation`, `cancelOperation`; schema `Operation`).
import type { Handler } from '../pipeline.js';
import { operationNotFound } from '../../infra/errors.js';
import { createOperation as create } from '../../domain/operations/create.js';
import { cancelOperation as cancel } from '../../domain/operations/decide.js';
import { operationView, readOperation, type OperationRow } from '../../domain/operations/store.js';

export const createOperation: Handler<'createOperation'> = async (ctx) => {
  const { db, config } = ctx.app;
  const p = ctx.principal!;
  return { status: 201, body: await create(db, config, { keyId: p.keyId, projectId: p.projectId }, ctx.body) };
};

/** Only the creating key reads it; anything else is the same 404 (never writes: expiry is the sweep's). */
export const getOperation: Handler<'getOperation'> = async (ctx) => {
  const { db, config } = ctx.app;
  const row = await ownRow(ctx.app.db, ctx.params.operationId, ctx.principal!);
  return { body: await operationView(db, config, row, Date.now()) };
};

/** The asking key withdraws it (`cancelOperation`); the same 404 as a read for anything but its own. */
export const cancelOperation: Handler<'cancelOperation'> = async (ctx) => {
  const { db, config } = ctx.app;
  const row = await ownRow(db, ctx.params.operationId, ctx.principal!);
  await cancel(db, row);
  return { body: await operationView(db, config, (await readOperation(db, row.id))!, Date.now()) };
};

async function ownRow(
  db: Parameters<typeof readOperation>[0],
  id: string,
  p: { keyId: string; projectId: string },
): Promise<OperationRow> {
  const row = await readOperation(db, id);
  if (!row || row.api_key_id !== p.keyId || row.project_id !== p.projectId) throw operationNotFound();
  const project = await db('projects').where({ id: row.project_id }).first('deleted_at');
  if (!project || project.deleted_at != null) throw operationNotFound();
  return row;
}
