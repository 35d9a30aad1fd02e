// The delivery log keeps the last 50 deliveries of each webhook (store.ts): older finished rows are deleted here,
// on the job queue (server/app/jobs.ts). A delivery still pending or in flight is kept whatever its age.
import type { Db } from '../../infra/db.js';
import { DELIVERY_LOG } from './store.js';

export async function sweepDeliveryLog(db: Db): Promise<void> {
  const crowded = await db('webhook_deliveries')
    .select('webhook_id')
    .groupBy('webhook_id')
    .havingRaw('count(*) > ?', [DELIVERY_LOG]);
  for (const { webhook_id } of crowded) {
    const oldestKept = await db('webhook_deliveries')
      .where({ webhook_id })
      .orderBy('seq', 'desc')
      .offset(DELIVERY_LOG - 1)
      .first('seq');
    await db('webhook_deliveries')
      .where({ webhook_id })
      .andWhere('seq', '<', Number(oldestKept!.seq))
      .whereIn('status', ['delivered', 'failed'])
      .delete();
  }
}
