// Credits in millicredits (README "How translation works"): 1 mc per source character per target language, plural forms
// counting every form, at least 1 per pair. A push holds its estimate; the fill charges what it really
// translated and releases the rest. Every move is one conditional UPDATE, so concurrent pushes can never take
// a balance below zero or past the spending cap.
import type { Db } from '../../infra/db.js';
import { dialectOf } from '../../infra/db.js';
import { Refusal } from '../../infra/errors.js';

export function pairCost(source: string, forms: Record<string, string> | null): number {
  const chars = forms ? Object.values(forms).reduce((n, f) => n + [...f].length, 0) : [...source].length;
  return Math.max(1, chars);
}

const monthOf = (now: number) => new Date(now).toISOString().slice(0, 7);

interface WorkspaceCredit {
  balance: number;
  held: number;
  available: number;
  spendingCap: number | null;
  spent: number;
  keyLimit: number | null;
}

/** `latest`: inside a MySQL transaction, read the committed row (a locking read), not the snapshot. */
export async function readCredit(
  db: Db,
  workspaceId: string,
  now = Date.now(),
  latest = false,
): Promise<WorkspaceCredit> {
  const q = db('workspaces')
    .where({ id: workspaceId })
    .first('balance_mc', 'held_mc', 'spending_cap_mc', 'spent_month', 'spent_mc', 'key_limit');
  if (latest && dialectOf(db) === 'mysql') q.forUpdate();
  const w = (await q)!;
  const balance = Number(w.balance_mc);
  const held = Number(w.held_mc);
  return {
    balance,
    held,
    available: balance - held,
    spendingCap: w.spending_cap_mc == null ? null : Number(w.spending_cap_mc),
    spent: w.spent_month === monthOf(now) ? Number(w.spent_mc) : 0,
    keyLimit: w.key_limit == null ? null : Number(w.key_limit),
  };
}

/** The refusal a hold of `mc` would meet, or null if it fits. */
export function holdRefusal(c: WorkspaceCredit, mc: number): Refusal | null {
  if (mc > c.available) {
    return new Refusal(
      'insufficient_credits',
      `The estimate (${mc} mc) exceeds the available balance (${c.available} mc).`,
      { availableCredits: c.available },
    );
  }
  if (c.spendingCap != null && c.spent + c.held + mc > c.spendingCap) {
    return new Refusal('spend_cap_exceeded', `The monthly spending cap (${c.spendingCap} mc) would be exceeded.`, {
      capRemaining: Math.max(0, c.spendingCap - c.spent - c.held),
      spendingCap: c.spendingCap,
    });
  }
  return null;
}

/** Reserves `mc` for a fill, or throws the documented 402. */
export async function hold(trx: Db, workspaceId: string, mc: number, now = Date.now()): Promise<void> {
  if (mc <= 0) return;
  const month = monthOf(now);
  const n = await trx('workspaces')
    .where({ id: workspaceId })
    .andWhereRaw('balance_mc - held_mc >= ?', [mc])
    .andWhereRaw(
      '(spending_cap_mc IS NULL OR (CASE WHEN spent_month = ? THEN spent_mc ELSE 0 END) + held_mc + ? <= spending_cap_mc)',
      [month, mc],
    )
    .update({ held_mc: trx.raw('held_mc + ?', [mc]) });
  if (n === 1) return;
  throw (
    holdRefusal(await readCredit(trx, workspaceId, now, true), mc) ??
    new Refusal('billing_contended', 'The balance changed under this request; retry it.')
  );
}

/**
 * Charges `charge` against a hold of `release` (charge <= release). False when the balance no longer covers
 * the charge (credits were removed meanwhile): nothing is changed and the caller aborts.
 */
export async function charge(
  trx: Db,
  workspaceId: string,
  chargeMc: number,
  releaseMc: number,
  now = Date.now(),
): Promise<boolean> {
  const month = monthOf(now);
  // spent_mc is assigned before spent_month: MySQL evaluates SET left to right, so the CASE reads the old month.
  const n = await trx('workspaces')
    .where({ id: workspaceId })
    .andWhere('balance_mc', '>=', chargeMc)
    .update({
      balance_mc: trx.raw('balance_mc - ?', [chargeMc]),
      held_mc: trx.raw('CASE WHEN held_mc >= ? THEN held_mc - ? ELSE 0 END', [releaseMc, releaseMc]),
      spent_mc: trx.raw('(CASE WHEN spent_month = ? THEN spent_mc ELSE 0 END) + ?', [month, chargeMc]),
      spent_month: month,
    });
  return n === 1;
}

export async function release(trx: Db, workspaceId: string, mc: number): Promise<void> {
  if (mc > 0)
    await trx('workspaces')
      .where({ id: workspaceId })
      .update({ held_mc: trx.raw('CASE WHEN held_mc >= ? THEN held_mc - ? ELSE 0 END', [mc, mc]) });
}

/** 402 plan_limit when adding `adding` keys would pass the workspace's key cap, else null. */
export async function keyLimitRefusal(db: Db, workspaceId: string, adding: number): Promise<Refusal | null> {
  if (adding === 0) return null;
  const limit = (await readCredit(db, workspaceId)).keyLimit;
  if (limit == null) return null;
  const n = Number(
    (
      await db('keys')
        .join('projects', 'projects.id', 'keys.project_id')
        .where('projects.workspace_id', workspaceId)
        .count({ n: '*' })
    )[0].n,
  );
  return n + adding > limit
    ? new Refusal('plan_limit', `The workspace's plan allows ${limit} keys.`, {
        details: [{ feature: 'keys', limit }],
      })
    : null;
}
