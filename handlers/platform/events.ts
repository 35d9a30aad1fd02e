// Events are written in the caller's transaction, so an event exists exactly when its change committed.
import type { Db } from './db.js';
import { newId } from './db.js';

export async function recordEvent(trx: Db, projectId: string, type: string, data: unknown, now = Date.now()): Promise<string> {
  const id = newId('evt', 12);
  await trx('events').insert({ id, project_id: projectId, type, payload: JSON.stringify(data), created_at: now });
  return id;
}
