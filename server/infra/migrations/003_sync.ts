import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('keys', (t) => {
    // The key as the synced file spells it (`welcomeMessage`, an Angular digest), written back on pull.
    t.text('file_key').nullable();
    t.text('comment').nullable();
    // Format-specific data the renderer needs to write the entry back (opaque to sync).
    t.text('meta').nullable();
  });
  await db.schema.createTable('project_catalogs', (t) => {
    t.string('project_id', 40).notNullable();
    t.string('format', 20).notNullable();
    // File-level data of the last synced file (xcstrings version, language spellings, ...).
    t.text('meta').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.primary(['project_id', 'format']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('project_catalogs');
  await db.schema.alterTable('keys', (t) => {
    t.dropColumn('file_key');
    t.dropColumn('comment');
    t.dropColumn('meta');
  });
}
