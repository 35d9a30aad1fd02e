// Events are written in the caller's transaction, so an event exists exactly when its change committed. The events
// table is the webhooks' outbox: the same transaction creates one delivery per subscribed, enabled webhook and the
// job that sends its first attempt (server/domain/webhooks/deliver.ts), so an event is never lost between the commit
// and a send, and never sent for a change that rolled back.
import type { Db } from '../../infra/db.js';
import { newId, parseJson } from '../../infra/db.js';
import { enqueueUniqueJobs } from '../../infra/jobs.js';

/** The event types a webhook may subscribe to (spec `WebhookEventType`). */
const WEBHOOK_EVENT_TYPES: readonly string[] = ['strings.published', 'content.published'];

/** The job kind of one delivery's attempts, and how many it makes: the first and five retries. */
export const WEBHOOK_DELIVER_JOB = 'webhook.deliver';
export const WEBHOOK_ATTEMPTS = 6;
export const deliveryJobKey = (deliveryId: string) => `delivery:${deliveryId}`;

export async function recordEvent(
  trx: Db,
  projectId: string,
  type: string,
  data: unknown,
  now = Date.now(),
  id = newEventId(),
): Promise<string> {
  await trx('events').insert({ id, project_id: projectId, type, payload: JSON.stringify(data), created_at: now });
  if (WEBHOOK_EVENT_TYPES.includes(type)) await fanOut(trx, projectId, type, id, data, now);
  return id;
}

/** The version (strings.published) or content publish (content.published) an event is about. */
function publishIdOf(data: unknown): string | null {
  const d = (data as { data?: { versionId?: unknown; publishId?: unknown } } | null)?.data;
  const v = d?.versionId ?? d?.publishId;
  return typeof v === 'string' ? v : null;
}

async function fanOut(trx: Db, projectId: string, type: string, eventId: string, data: unknown, now: number) {
  const hooks = await trx('webhooks').where({ project_id: projectId, enabled: true }).select('id', 'events');
  const subscribed = hooks.filter((h) => parseJson<string[]>(h.events, []).includes(type));
  if (!subscribed.length) return;
  await deliverTo(trx, projectId, subscribed, type, eventId, data, now);
}

/**
 * A `webhook.test` event (openapi.yaml webhooks) delivered to the one webhook `hook` whatever it subscribes to, by
 * the same job as every delivery; returns the delivery's id.
 */
export async function recordTestEvent(
  trx: Db,
  project: { id: string; handle: string; slug: string },
  webhookId: string,
  now = Date.now(),
): Promise<string> {
  const id = newEventId();
  const data = {
    id,
    type: 'webhook.test',
    schemaVersion: 1,
    createdAt: new Date(now).toISOString(),
    project: { id: project.id, handle: project.handle, slug: project.slug },
    data: { webhookId, message: 'A test event sent from the dashboard; nothing changed in the project.' },
  };
  await trx('events').insert({
    id,
    project_id: project.id,
    type: 'webhook.test',
    payload: JSON.stringify(data),
    created_at: now,
  });
  return (await deliverTo(trx, project.id, [{ id: webhookId }], 'webhook.test', id, data, now))[0];
}

async function deliverTo(
  trx: Db,
  projectId: string,
  hooks: Array<{ id: string }>,
  type: string,
  eventId: string,
  data: unknown,
  now: number,
): Promise<string[]> {
  const rows = hooks.map((h) => ({
    id: newId('dlv', 12),
    webhook_id: h.id,
    project_id: projectId,
    event_id: eventId,
    event_type: type,
    publish_id: publishIdOf(data),
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
  }));
  await trx('webhook_deliveries').insert(rows);
  await enqueueUniqueJobs(
    trx,
    WEBHOOK_DELIVER_JOB,
    // Each attempt runs in its project's share of a worker's window (server/domain/webhooks/deliver.ts).
    rows.map((r) => ({ payload: { deliveryId: r.id }, uniqueKey: deliveryJobKey(r.id), shareKey: projectId })),
    { maxAttempts: WEBHOOK_ATTEMPTS, now },
  );
  return rows.map((r) => r.id);
}

export const newEventId = () => newId('evt', 12);
