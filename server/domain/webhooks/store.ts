// Webhooks and their delivery log as stored (migration 012) and as shown (spec: `Webhook`, `WebhookDelivery`;
// docs/guides/webhooks.md). A secret leaves this module only through `withSecret` (create and rotate answers).
import type { components } from '../../../generated/openapi.js';
import type { Db } from '../../infra/db.js';
import { bool, parseJson } from '../../infra/db.js';
import { notFound } from '../../infra/errors.js';
import { deliveryJobKey } from './events.js';
import type { WebhookDeliveryRow, WebhookRow } from '../../infra/tables.js';
import { secretHint } from './sign.js';

type WebhookView = components['schemas']['Webhook'];
type DeliveryView = components['schemas']['WebhookDelivery'];
type EventType = WebhookView['events'][number];

/** At most this many webhooks per project through the API (docs/guides/webhooks.md). */
export const MAX_WEBHOOKS = 5;
/** The delivery log keeps and lists this many per webhook (`WebhookDeliveryList`). */
export const DELIVERY_LOG = 50;
/** The previous secret keeps signing this long after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

export function webhookView(row: WebhookRow): WebhookView {
  return {
    webhookId: row.id,
    url: row.url,
    events: parseJson<EventType[]>(row.events, []),
    enabled: bool(row.enabled),
    secretHint: secretHint(row.secret),
    disabledReason: row.disabled_reason as WebhookView['disabledReason'],
  };
}

export const withSecret = (row: WebhookRow) => ({ ...webhookView(row), secret: row.secret });

const iso = (ms: unknown) => (ms == null ? null : new Date(Number(ms)).toISOString());

/** `inFlight`: an attempt's job is claimed right now (see inFlight), which the stored status does not say. */
export function deliveryView(row: WebhookDeliveryRow, inFlight = false): DeliveryView {
  return {
    deliveryId: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    publishId: row.publish_id,
    status: inFlight ? 'delivering' : (row.status as DeliveryView['status']),
    attempts: row.attempts,
    nextAttemptAt: iso(row.next_attempt_at),
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
  };
}

/**
 * The deliveries among `ids` with an attempt in flight: their job is claimed by a worker. The delivery row is
 * written only when an attempt ends (deliver.ts), so `delivering` is read from the job queue, never stored.
 */
export async function inFlight(db: Db, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db('jobs')
    .whereIn('unique_key', ids.map(deliveryJobKey))
    .where({ state: 'running' })
    .select('unique_key');
  return new Set(rows.map((r) => r.unique_key!.slice(deliveryJobKey('').length)));
}

/** The webhook of the project, or 404. */
export async function readWebhook(db: Db, projectId: string, webhookId: string): Promise<WebhookRow> {
  const row = await db('webhooks').where({ id: webhookId, project_id: projectId }).first();
  if (!row) throw notFound('No such webhook in this project.');
  return row;
}

/** The secrets that sign at `now`, newest first: the previous one only within its 24 hours. */
export function liveSecrets(
  row: Pick<WebhookRow, 'secret' | 'previous_secret' | 'previous_expires_at'>,
  now: number,
): string[] {
  const previous =
    row.previous_secret && row.previous_expires_at != null && Number(row.previous_expires_at) > now
      ? [row.previous_secret]
      : [];
  return [row.secret, ...previous];
}
