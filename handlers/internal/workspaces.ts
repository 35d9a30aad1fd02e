// Workspaces and their credit balance, in millicredits.
import type { Db } from '../platform/db.js';
import { bool, newId } from '../platform/db.js';
import { conflict, notFound } from '../platform/errors.js';
import type { Handler } from '../platform/pipeline.js';

const MAX_MC = Number.MAX_SAFE_INTEGER;

function workspaceView(w: any) {
  return {
    workspaceId: w.id,
    name: w.name,
    balance: Number(w.balance_mc),
    requireApproval: bool(w.require_approval),
    spendingCapMc: w.spending_cap_mc == null ? null : Number(w.spending_cap_mc),
    keyLimit: w.key_limit == null ? null : Number(w.key_limit),
    documentLimit: w.document_limit == null ? null : Number(w.document_limit),
  };
}

const SETTINGS: Record<string, string> = {
  creditsMc: 'balance_mc',
  requireApproval: 'require_approval',
  spendingCapMc: 'spending_cap_mc',
  keyLimit: 'key_limit',
  documentLimit: 'document_limit',
};

function settingsRow(body: Record<string, unknown>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(SETTINGS)) if (field in body) row[column] = body[field];
  return row;
}

export async function createWorkspace(db: Db, body: { name: string } & Record<string, unknown>) {
  const now = Date.now();
  const id = newId('ws');
  await db('workspaces').insert({ id, name: body.name, balance_mc: 0, ...settingsRow(body), created_at: now, updated_at: now });
  return workspaceView(await db('workspaces').where({ id }).first());
}

export const internalCreateWorkspace: Handler = async (ctx) => {
  const w = await createWorkspace(ctx.app.db, ctx.body);
  return { status: 201, body: { workspaceId: w.workspaceId, balance: w.balance } };
};

export const internalUpdateWorkspace: Handler = async (ctx) => {
  const { db } = ctx.app;
  const n = await db('workspaces').where({ id: ctx.params.workspaceId }).update({ ...settingsRow(ctx.body), updated_at: Date.now() });
  if (!n) throw notFound('Workspace not found.');
  return { body: workspaceView(await db('workspaces').where({ id: ctx.params.workspaceId }).first()) };
};

export const internalAdjustCredits: Handler = async (ctx) => {
  const { db } = ctx.app;
  const mc: number = ctx.body.mc;
  const id = ctx.params.workspaceId;
  // One conditional update: concurrent adjustments can never take the balance below zero, nor above the largest
  // integer a JSON client reads exactly (the spec's bound on every millicredit field).
  const n = await db('workspaces').where({ id }).andWhere('balance_mc', '>=', -mc).andWhere('balance_mc', '<=', MAX_MC - mc)
    .update({ balance_mc: db.raw('balance_mc + ?', [mc]), updated_at: Date.now() });
  const w = await db('workspaces').where({ id }).first('balance_mc');
  if (!w) throw notFound('Workspace not found.');
  if (!n) throw conflict('conflict', `The balance (${w.balance_mc} mc) cannot go ${mc < 0 ? 'below zero' : `above ${MAX_MC} mc`}.`);
  return { body: { balance: Number(w.balance_mc) } };
};
