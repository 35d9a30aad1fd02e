// Workspaces and their credit balance, in millicredits, as the dashboard manages them.
import { createWorkspace, MAX_MC, settingsRow, workspaceView } from '../../domain/project/workspaces.js';
import { conflict, notFound } from '../../infra/errors.js';
import type { Handler } from '../pipeline.js';

export const internalCreateWorkspace: Handler<'internalCreateWorkspace'> = async (ctx) => {
  const w = await createWorkspace(ctx.app.db, ctx.body);
  return { status: 201, body: { workspaceId: w.workspaceId, balance: w.balance } };
};

export const internalUpdateWorkspace: Handler<'internalUpdateWorkspace'> = async (ctx) => {
  const { db } = ctx.app;
  const n = await db('workspaces')
    .where({ id: ctx.params.workspaceId })
    .update({ ...settingsRow(ctx.body), updated_at: Date.now() });
  if (!n) throw notFound('Workspace not found.');
  return { body: workspaceView((await db('workspaces').where({ id: ctx.params.workspaceId }).first())!) };
};

export const internalAdjustCredits: Handler<'internalAdjustCredits'> = async (ctx) => {
  const { db } = ctx.app;
  const mc: number = ctx.body.mc;
  const id = ctx.params.workspaceId;
  // One conditional update: concurrent adjustments can never take the balance below zero, nor above the largest
  // integer a JSON client reads exactly (the spec's bound on every millicredit field).
  const n = await db('workspaces')
    .where({ id })
    .andWhere('balance_mc', '>=', -mc)
    .andWhere('balance_mc', '<=', MAX_MC - mc)
    .update({ balance_mc: db.raw('balance_mc + ?', [mc]), updated_at: Date.now() });
  const w = await db('workspaces').where({ id }).first('balance_mc');
  if (!w) throw notFound('Workspace not found.');
  if (!n)
    throw conflict(
      'conflict',
      `The balance (${w.balance_mc} mc) cannot go ${mc < 0 ? 'below zero' : `above ${MAX_MC} mc`}.`,
    );
  return { body: { balance: Number(w.balance_mc) } };
};
