// Webhooks group (spec: createWebhook … resendWebhookDelivery; docs/guides/webhooks.md), and the same operations on the
// internal API for the dashboard (internalListWebhooks … internalResendWebhookDelivery, at the end). Scope `publish`
// is the pipeline's (x-scopes); the body's shape (https URL form, known event types, at least one field on update)
// is the spec's. Here: the URL's addresses, the five-webhook limit, and the secret, shown on create and rotate only.
import type { App } from '../../infra/app.js';
import { lockProject, newId } from '../../infra/db.js';
import { conflict, invalidArgument, notFound } from '../../infra/errors.js';
import {
  deliveryJobKey,
  recordTestEvent,
  WEBHOOK_ATTEMPTS,
  WEBHOOK_DELIVER_JOB,
} from '../../domain/webhooks/events.js';
import type { Handler } from '../pipeline.js';
import { newSecret } from '../../domain/webhooks/sign.js';
import {
  DELIVERY_LOG,
  MAX_WEBHOOKS,
  ROTATION_OVERLAP_MS,
  deliveryView,
  inFlight,
  readWebhook,
  webhookView,
  withSecret,
} from '../../domain/webhooks/store.js';
import { lookupsOf } from '../../domain/webhooks/resolver.js';
import { checkWebhookUrl, UrlRefused } from '../../domain/webhooks/urls.js';

/** 400 invalid_argument unless every address of the URL's host may be delivered to. */
async function checkUrl(app: App, projectId: string, url: string): Promise<void> {
  try {
    await checkWebhookUrl(url, { allowPrivate: app.config.webhookAllowPrivate, lookups: lookupsOf(app), projectId });
  } catch (err) {
    if (err instanceof UrlRefused) throw invalidArgument(`url: ${err.message}.`);
    throw err;
  }
}

export const createWebhook: Handler<'createWebhook'> = async (ctx) => {
  const { app } = ctx;
  const { projectId } = ctx.params;
  await checkUrl(app, projectId, ctx.body.url);
  const now = Date.now();
  const row = {
    id: newId('wh', 9),
    project_id: projectId,
    url: ctx.body.url,
    events: JSON.stringify(ctx.body.events),
    enabled: true,
    disabled_reason: null,
    failure_count: 0,
    secret: newSecret(),
    previous_secret: null,
    previous_expires_at: null,
    created_at: now,
    updated_at: now,
  };
  await app.db.transaction(async (trx) => {
    // Concurrent creates count the project's webhooks one at a time.
    await lockProject(trx, projectId, 'webhooks');
    const [{ n }] = await trx('webhooks').where({ project_id: projectId }).count({ n: '*' });
    if (Number(n) >= MAX_WEBHOOKS) throw conflict('webhook_limit', 'A project holds at most five webhooks.');
    await trx('webhooks').insert(row);
  });
  return { status: 201, body: withSecret(row) };
};

export const listWebhooks: Handler<'listWebhooks'> = async (ctx) => {
  const rows = await ctx.app
    .db('webhooks')
    .where({ project_id: ctx.params.projectId })
    .orderBy('created_at')
    .orderBy('id');
  return { body: { webhooks: rows.map(webhookView) } };
};

export const updateWebhook: Handler<'updateWebhook'> = async (ctx) => {
  const { app } = ctx;
  const { projectId, webhookId } = ctx.params;
  const { url, events, enabled } = ctx.body;
  await readWebhook(app.db, projectId, webhookId);
  if (url !== undefined) await checkUrl(app, projectId, url);
  const change: Record<string, unknown> = { updated_at: Date.now() };
  if (url !== undefined) change.url = url;
  if (events !== undefined) change.events = JSON.stringify(events);
  // Enabling clears what disabled it and the failures counted toward it; disabling by hand leaves a reason as is.
  if (enabled === true) Object.assign(change, { enabled: true, disabled_reason: null, failure_count: 0 });
  if (enabled === false) change.enabled = false;
  await app.db('webhooks').where({ id: webhookId, project_id: projectId }).update(change);
  return { body: webhookView(await readWebhook(app.db, projectId, webhookId)) };
};

export const deleteWebhook: Handler<'deleteWebhook'> = async (ctx) => {
  const { db } = ctx.app;
  const { projectId, webhookId } = ctx.params;
  await readWebhook(db, projectId, webhookId);
  // Its jobs still queued find no delivery and end (deliver.ts).
  await db.transaction(async (trx) => {
    await trx('webhook_deliveries').where({ webhook_id: webhookId }).delete();
    await trx('webhooks').where({ id: webhookId, project_id: projectId }).delete();
  });
  return { status: 204 };
};

export const rotateWebhookSecret: Handler<'rotateWebhookSecret'> = async (ctx) => {
  const { db } = ctx.app;
  const { projectId, webhookId } = ctx.params;
  const now = Date.now();
  const secret = newSecret();
  const expires = now + ROTATION_OVERLAP_MS;
  // One statement: two rotations at once each keep the secret they replaced, never a secret no one was shown.
  const n = await db('webhooks')
    .where({ id: webhookId, project_id: projectId })
    .update({ previous_secret: db.ref('secret'), previous_expires_at: expires, secret, updated_at: now });
  if (!n) throw notFound('No such webhook in this project.');
  return { body: { webhookId, secret, previousSecretExpiresAt: new Date(expires).toISOString() } };
};

export const listWebhookDeliveries: Handler<'listWebhookDeliveries'> = async (ctx) => {
  const { db } = ctx.app;
  const { projectId, webhookId } = ctx.params;
  await readWebhook(db, projectId, webhookId);
  const rows = await db('webhook_deliveries')
    .where({ webhook_id: webhookId })
    .orderBy('seq', 'desc')
    .limit(DELIVERY_LOG);
  const busy = await inFlight(
    db,
    rows.map((r) => r.id),
  );
  return { body: { deliveries: rows.map((r) => deliveryView(r, busy.has(r.id))) } };
};

export const resendWebhookDelivery: Handler<'resendWebhookDelivery'> = async (ctx) => {
  const { app } = ctx;
  const { projectId, webhookId, deliveryId } = ctx.params;
  await readWebhook(app.db, projectId, webhookId);
  const now = Date.now();
  const row = await app.db.transaction(async (trx) => {
    const d = await trx('webhook_deliveries').where({ id: deliveryId, webhook_id: webhookId }).first();
    if (!d) throw notFound('No such delivery of this webhook.');
    if ((await inFlight(trx, [deliveryId])).size)
      throw conflict('delivery_in_flight', 'An attempt of this delivery is in flight.');
    // A delivery waiting for a retry is brought forward; a finished one starts a new schedule of six attempts.
    // Either way the same event is sent again, with the same event id.
    const moved = await trx('jobs')
      .where({ unique_key: deliveryJobKey(deliveryId), state: 'queued' })
      .update({ run_at: now, updated_at: now });
    if (!moved)
      await app.jobs.enqueue(
        trx,
        WEBHOOK_DELIVER_JOB,
        { deliveryId },
        { uniqueKey: deliveryJobKey(deliveryId), maxAttempts: WEBHOOK_ATTEMPTS, now, shareKey: projectId },
      );
    await trx('webhook_deliveries')
      .where({ id: deliveryId })
      .update({ status: 'pending', next_attempt_at: now, updated_at: now });
    return (await trx('webhook_deliveries').where({ id: deliveryId }).first())!;
  });
  return { status: 202, body: deliveryView(row) };
};

// The internal API's webhook operations (spec/internal.yaml): the same paths and bodies for a person rather than a
// key; the pipeline has resolved the project (404) before either handler runs.
export const internalListWebhooks: Handler<'internalListWebhooks'> = (ctx) => listWebhooks({ ...ctx });

export const internalCreateWebhook: Handler<'internalCreateWebhook'> = (ctx) => createWebhook({ ...ctx });

export const internalUpdateWebhook: Handler<'internalUpdateWebhook'> = (ctx) => updateWebhook({ ...ctx });

export const internalDeleteWebhook: Handler<'internalDeleteWebhook'> = (ctx) => deleteWebhook({ ...ctx });

export const internalRotateWebhookSecret: Handler<'internalRotateWebhookSecret'> = (ctx) =>
  rotateWebhookSecret({ ...ctx });

/** The public delivery log, with the body each delivery sends (the event as recorded): the dashboard shows it. */
export const internalListWebhookDeliveries: Handler<'internalListWebhookDeliveries'> = async (ctx) => {
  const { db } = ctx.app;
  const { projectId, webhookId } = ctx.params;
  await readWebhook(db, projectId, webhookId);
  const rows = await db('webhook_deliveries')
    .where({ webhook_id: webhookId })
    .orderBy('seq', 'desc')
    .limit(DELIVERY_LOG);
  const busy = await inFlight(
    db,
    rows.map((r) => r.id),
  );
  const ids = [...new Set(rows.map((r) => r.event_id))];
  const events = ids.length
    ? await db('events').whereIn('id', ids).select<Array<{ id: string; payload: string }>>('id', 'payload')
    : [];
  const payloads = new Map(events.map((e) => [e.id, e.payload]));
  return {
    body: {
      deliveries: rows.map((r) => ({ ...deliveryView(r, busy.has(r.id)), payload: payloads.get(r.event_id) ?? null })),
    },
  };
};

export const internalTestWebhook: Handler<'internalTestWebhook'> = async (ctx) => {
  const { db } = ctx.app;
  const { webhookId } = ctx.params;
  await readWebhook(db, ctx.project.id, webhookId);
  const deliveryId = await db.transaction((trx) => recordTestEvent(trx, ctx.project, webhookId));
  const row = (await db('webhook_deliveries').where({ id: deliveryId }).first())!;
  return { status: 202, body: deliveryView(row) };
};

export const internalResendWebhookDelivery: Handler<'internalResendWebhookDelivery'> = (ctx) =>
  resendWebhookDelivery({ ...ctx });
