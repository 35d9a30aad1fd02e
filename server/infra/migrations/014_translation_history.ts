import type { Knex } from 'knex';

// The review side of keys (the dashboard's key list and editor).
// - `translation_history`: every value or status change of a cell, with who made it (`actor`: a dashboard user id,
//   `ai`, `import`, `sync` or `admin`) and when. The editor shows it with a diff of each value against the one
//   before, and reverts by saving an older value. Values are kept whole (MEDIUMTEXT on MySQL, as translations').
// - `translations.conflict_value`: the file's value a sync kept out because the stored one was the project's own or
//   signed off (a `kept` conflict row of the sync answer); the key list filters on it and a person's save clears it.
// - `translations (project_id, lang, status)`: the key list's status filters read a language's cells of a status
//   without reading the others.
export async function up(db: Knex): Promise<void> {
  const mysql = (db.client as { config: Knex.Config }).config.client === 'mysql2';
  await db.schema.createTable('translation_history', (t) => {
    t.bigIncrements('id').primary();
    t.string('project_id', 40).notNullable();
    t.bigInteger('key_id').notNullable();
    t.string('lang', 35).notNullable();
    if (mysql) t.text('value', 'mediumtext').nullable();
    else t.text('value').nullable();
    t.string('status', 12).notNullable();
    t.string('origin', 10).nullable();
    t.string('actor', 60).notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['key_id', 'lang', 'id'], 'translation_history_cell_index');
  });
  await db.schema.alterTable('translations', (t) => {
    if (mysql) t.text('conflict_value', 'mediumtext').nullable();
    else t.text('conflict_value').nullable();
    t.index(['project_id', 'lang', 'status'], 'translations_project_lang_status_index');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('translations', (t) => {
    t.dropIndex(['project_id', 'lang', 'status'], 'translations_project_lang_status_index');
    t.dropColumn('conflict_value');
  });
  await db.schema.dropTableIfExists('translation_history');
}
