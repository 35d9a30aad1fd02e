import type { Knex } from 'knex';

// Snapshots stored in parts (packages/core/src/parts.ts): `snapshot_bodies` now holds a snapshot's head (its keys and the
// digest of each language's part), `snapshot_parts` each language's cells by content digest, so a publish, restore
// or pull reads one language at a time. A head's parts are listed in `snapshot_part_refs`: a part no
// head names is garbage once no publish can still be minting from it (server/domain/publish/parts-store.ts).
// Snapshots stored whole before this stay readable as they are.
//
// Reading one language's cells in key order, a chunk at a time: (project_id, lang, key_id) replaces
// (project_id, lang), of which it is an extension; keys of a project in id order get (project_id, id).
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('snapshot_parts', (t) => {
    t.string('project_id', 40).notNullable();
    t.string('digest', 64).notNullable();
    t.text('body', 'longtext').notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['project_id', 'digest']);
  });
  await db.schema.createTable('snapshot_part_refs', (t) => {
    t.string('project_id', 40).notNullable();
    t.string('head_digest', 64).notNullable();
    t.string('part_digest', 64).notNullable();
    t.primary(['project_id', 'head_digest', 'part_digest']);
    t.index(['project_id', 'part_digest']);
  });
  await db.schema.alterTable('translations', (t) => {
    t.index(['project_id', 'lang', 'key_id'], 'translations_project_lang_key_index');
  });
  await db.schema.alterTable('translations', (t) => {
    t.dropIndex(['project_id', 'lang']);
  });
  await db.schema.alterTable('keys', (t) => {
    t.index(['project_id', 'id'], 'keys_project_id_index');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('keys', (t) => {
    t.dropIndex(['project_id', 'id'], 'keys_project_id_index');
  });
  await db.schema.alterTable('translations', (t) => {
    t.index(['project_id', 'lang']);
  });
  await db.schema.alterTable('translations', (t) => {
    t.dropIndex(['project_id', 'lang', 'key_id'], 'translations_project_lang_key_index');
  });
  await db.schema.dropTable('snapshot_part_refs');
  await db.schema.dropTable('snapshot_parts');
}
