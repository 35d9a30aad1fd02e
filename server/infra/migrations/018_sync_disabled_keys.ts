import type { Knex } from 'knex';

// When, and by which synced file, a whole-catalog sync disabled a key its file no longer carried, so the overview
// (server/http/routes/overview.ts) and the sync answer can say which keys a sync switched off and how to
// bring them back. Cleared by every path that switches the key on or off again.
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('keys', (t) => {
    t.bigInteger('sync_disabled_at').nullable();
    t.string('sync_disabled_by', 255).nullable();
    t.index(['project_id', 'sync_disabled_at'], 'keys_sync_disabled');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('keys', (t) => {
    t.dropIndex(['project_id', 'sync_disabled_at'], 'keys_sync_disabled');
    t.dropColumn('sync_disabled_at');
    t.dropColumn('sync_disabled_by');
  });
}
