import type { Knex } from 'knex';

// Outdated translations (docs/decisions/0019-outdated-translations.md):
// - `translations.outdated_at`: when the key's source changed after the cell's value was written (a sync's updated
//   source, a translate carry-over by key name); null while the value was made for the source the key has. The
//   source it was made for is the key's `key_history` row replaced at or after that instant. An edit, a review
//   state, an import of the cell or a new fill clears it.
// - `projects.outdated_mode`: what a changed source does to its translations: `keep` (marked outdated, still
//   served until someone re-translates, edits or approves them) or `retranslate` (machine translations are queued
//   again at once; the old value stays in the cell's history).
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('translations', (t) => {
    t.bigInteger('outdated_at').nullable();
  });
  await db.schema.alterTable('projects', (t) => {
    t.string('outdated_mode', 12).notNullable().defaultTo('keep');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('projects', (t) => {
    t.dropColumn('outdated_mode');
  });
  await db.schema.alterTable('translations', (t) => {
    t.dropColumn('outdated_at');
  });
}
