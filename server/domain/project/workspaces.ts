// Workspaces: the credit balance (millicredits) and the settings every project of the workspace shares.
import type { Db } from '../../infra/db.js';
import { bool, newId } from '../../infra/db.js';
import type { WorkspaceRow } from '../../infra/tables.js';

export const MAX_MC = Number.MAX_SAFE_INTEGER;

export function workspaceView(w: WorkspaceRow) {
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

export function settingsRow(body: Record<string, unknown>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(SETTINGS)) if (field in body) row[column] = body[field];
  return row;
}

export async function createWorkspace(db: Db, body: { name: string } & Record<string, unknown>) {
  const now = Date.now();
  const id = newId('ws');
  await db('workspaces').insert({
    id,
    name: body.name,
    balance_mc: 0,
    ...settingsRow(body),
    created_at: now,
    updated_at: now,
  });
  return workspaceView((await db('workspaces').where({ id }).first())!);
}
