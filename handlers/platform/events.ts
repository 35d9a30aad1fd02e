// Events are written in the caller's transaction, so an event exists exactly when its change committed.
import type { Db } from './db.js';
import { newId } from './db.js';

export async function recordEvent(
  trx: Db,
  projectId: string,
  type: string,
  data: unknown,
  now = Date.now(),
  id = newEventId(),
): Promise<string> {
  await trx('events').insert({ id, project_id: projectId, type, payload: JSON.stringify(data), created_at: now });
  return id;
}

export const newEventId = () => newId('evt', 12);
