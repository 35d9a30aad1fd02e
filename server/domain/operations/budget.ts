// An operation's budget as its fill jobs move it (`Operation`: charges never exceed `authorized_mc`). A batch
// reserves its estimate in the transaction that queues its job (gate.ts, through translate/queue.ts); the fill
// charges against that reservation batch by batch, in the transaction that charges the workspace; what the job
// reserved and did not spend is released when it ends. A charge above what the pairs reserved would be absorbed
// by the service (`absorbed_mc`), never added to `charged_mc` past the reservation. Each move is one UPDATE.
import type { Db } from '../../infra/db.js';
import { EXPIRY_MS } from './store.js';

/** The fill charged `chargeMc` for pairs that had reserved `releaseMc`. */
export async function chargeOperation(
  trx: Db,
  operationId: string,
  chargeMc: number,
  releaseMc: number,
  now: number,
): Promise<void> {
  const charged = Math.min(chargeMc, releaseMc);
  await trx('operations')
    .where({ id: operationId })
    .update({
      charged_mc: trx.raw('charged_mc + ?', [charged]),
      reserved_mc: trx.raw('CASE WHEN reserved_mc >= ? THEN reserved_mc - ? ELSE 0 END', [releaseMc, releaseMc]),
      absorbed_mc: trx.raw('absorbed_mc + ?', [chargeMc - charged]),
      last_used_at: now,
      expires_at: trx.raw('CASE WHEN state = ? THEN ? ELSE expires_at END', ['approved', now + EXPIRY_MS]),
    });
}

/** The job ended: what it still reserved goes back to the operation. */
export async function releaseOperation(trx: Db, operationId: string, mc: number, now: number): Promise<void> {
  await trx('operations')
    .where({ id: operationId })
    .update({
      reserved_mc: trx.raw('CASE WHEN reserved_mc >= ? THEN reserved_mc - ? ELSE 0 END', [mc, mc]),
      last_used_at: now,
      expires_at: trx.raw('CASE WHEN state = ? THEN ? ELSE expires_at END', ['approved', now + EXPIRY_MS]),
    });
}
