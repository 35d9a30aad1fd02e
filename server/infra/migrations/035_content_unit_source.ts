import type { Knex } from 'knex';

// The source a content translation was made from (server/domain/content/store.ts): when the block's source changes
// the translation reads stale, and a reviewer deciding whether to keep it sees the source diff (the dashboard's
// document page). Written by runs and by a person's edit; rows older than this have none.
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('content_units', (t) => {
    t.text('source_text', 'mediumtext').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('content_units', (t) => {
    t.dropColumn('source_text');
  });
}
