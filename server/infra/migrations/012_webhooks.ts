import type { Knex } from 'knex';

// Webhooks (spec: `Webhook`, `WebhookDelivery`; docs/guides/webhooks.md).
// - `webhooks.secret` is kept as written: it is the HMAC key of every delivery, so it cannot be hashed. It is
//   returned once (create, rotate) and never logged; reads show its last four characters only.
// - `previous_secret` signs beside the new one until `previous_expires_at` (24 hours after a rotation).
// - `failure_count`: deliveries in a row that ended `failed`; three disable the webhook (`auto_failures`).
// - `webhook_deliveries` is one row per (event, webhook), created in the event's transaction (the events table is
//   the outbox, server/domain/webhooks/events.ts). Each attempt runs as a `webhook.deliver` job. `seq` orders the log
//   (newest first) without trusting clocks of different processes.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('webhooks', (t) => {
    t.string('id', 40).primary();
    t.string('project_id', 40).notNullable();
    t.string('url', 2048).notNullable();
    t.text('events').notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.string('disabled_reason', 20).nullable();
    t.integer('failure_count').notNullable().defaultTo(0);
    t.string('secret', 100).notNullable();
    t.string('previous_secret', 100).nullable();
    t.bigInteger('previous_expires_at').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['project_id']);
  });
  await db.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 40).notNullable().unique();
    t.string('webhook_id', 40).notNullable();
    t.string('project_id', 40).notNullable();
    t.string('event_id', 40).notNullable();
    t.string('event_type', 40).notNullable();
    t.string('publish_id', 64).nullable();
    t.string('status', 12).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.bigInteger('next_attempt_at').nullable();
    t.integer('last_status_code').nullable();
    t.string('last_error', 500).nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['webhook_id', 'seq']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const t of ['webhook_deliveries', 'webhooks']) await db.schema.dropTableIfExists(t);
}
