import type { Knex } from 'knex';

// `dashboard_flashes`: what a dashboard form post did, kept for the page its redirect shows (post/redirect/get,
// server/web/flash.ts), so a notice comes from the server and never from the URL. One row per message,
// tied to a session (the SHA-256 the session table keys by) and to the path that shows it, sealed with a key only
// the session cookie's holder has, and deleted by the read that shows it.
// `batch_previews.estimate_mc`: what the dry run estimated for the batch, so the approval page can set the
// agent's credit ceiling beside the batches' own estimate.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('dashboard_flashes', (t) => {
    t.bigIncrements('id').primary();
    t.string('session_hash', 64).notNullable();
    t.string('path', 512).notNullable();
    t.text('sealed', 'mediumtext').notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['session_hash', 'path']);
    t.index(['created_at']);
  });
  await db.schema.alterTable('batch_previews', (t) => {
    t.bigInteger('estimate_mc').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('batch_previews', (t) => {
    t.dropColumn('estimate_mc');
  });
  await db.schema.dropTable('dashboard_flashes');
}
