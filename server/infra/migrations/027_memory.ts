import type { Knex } from 'knex';

// The translation memory (docs/decisions/0021-translation-memory.md; server/domain/memory/):
// - `memory_segments`: one row per distinct source of a memory: its scope (the workspace id for the memory its
//   shared projects pool, a project id for an isolated project's own), its language, its ctx, the source as
//   written and the lookup key of its normalised form (`norm_key`, normalize.ts). A source translated into ten
//   languages, or by three projects, is one segment.
// - `memory_tokens`: the candidate index, a posting list of our own that works alike on both databases: one row
//   per (token, segment), tokens being the hashed words and pairs of adjacent words of the normalised source
//   (normalize.ts `indexTokens`), clustered by token so that a token's segments are one range of the index.
// - `memory_entries`: a translation of a segment into one language: the target as written, where it came from
//   (`origin`: edit, ai, import, memory), its review `status`, the project and the cell's key it mirrors (null for
//   an imported entry), and when it last changed.
// - `projects.memory_sharing` (`shared`, `isolated`, `off`), `memory_pretranslate`, `memory_threshold`: the
//   project's memory settings (internalUpdateProject).
export async function up(db: Knex): Promise<void> {
  const mysql = (db.client as { config: Knex.Config }).config.client === 'mysql2';
  await db.schema.alterTable('projects', (t) => {
    t.string('memory_sharing', 10).notNullable().defaultTo('shared');
    t.boolean('memory_pretranslate').notNullable().defaultTo(true);
    t.integer('memory_threshold').notNullable().defaultTo(75);
  });
  await db.schema.createTable('memory_segments', (t) => {
    t.bigIncrements('id').primary();
    t.string('scope_id', 40).notNullable();
    t.string('source_lang', 35).notNullable();
    if (mysql) t.text('source', 'mediumtext').notNullable();
    else t.text('source').notNullable();
    t.text('ctx').nullable();
    t.bigInteger('norm_key').notNullable();
    t.bigInteger('created_at').notNullable();
    // Exact lookups (a normalised source), and the scope's segments in id order (rescoping, export): on both
    // databases a secondary index ends with the row's id.
    t.index(['scope_id', 'source_lang', 'norm_key'], 'memory_segments_lookup_index');
    t.index(['scope_id'], 'memory_segments_scope_index');
  });
  // SQLite: WITHOUT ROWID, so the table is its primary key's b-tree (InnoDB clusters by the primary key anyway).
  if (mysql)
    await db.raw(
      'CREATE TABLE memory_tokens (token INT UNSIGNED NOT NULL, segment_id BIGINT NOT NULL, PRIMARY KEY (token, segment_id))',
    );
  else
    await db.raw(
      'CREATE TABLE memory_tokens (token INTEGER NOT NULL, segment_id INTEGER NOT NULL, PRIMARY KEY (token, segment_id)) WITHOUT ROWID',
    );
  await db.schema.createTable('memory_entries', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('segment_id').notNullable();
    t.string('target_lang', 35).notNullable();
    t.string('project_id', 40).nullable();
    t.bigInteger('key_id').nullable();
    if (mysql) t.text('target', 'mediumtext').notNullable();
    else t.text('target').notNullable();
    t.string('origin', 10).notNullable();
    t.string('status', 12).notNullable();
    t.bigInteger('updated_at').notNullable();
    // The one index: a segment's entries in a language, with their keys. A cell's entry is found through its
    // source's segment (the key in the index spares a read of each row), and a project's entries through its
    // memory's segments, so no index by key or project is kept.
    t.index(['segment_id', 'target_lang', 'key_id'], 'memory_entries_segment_index');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('memory_entries');
  await db.schema.dropTableIfExists('memory_tokens');
  await db.schema.dropTableIfExists('memory_segments');
  await db.schema.alterTable('projects', (t) => {
    t.dropColumn('memory_threshold');
    t.dropColumn('memory_pretranslate');
    t.dropColumn('memory_sharing');
  });
}
