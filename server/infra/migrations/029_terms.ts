import type { Knex } from 'knex';

// The termbase (docs/decisions/0026-termbase.md, docs/guides/terms.md):
// - `terms`: one row per entry. A workspace's terms (`project_id` null) are shared by the projects of the workspace
//   whose base language is the term's `lang`; a project's own terms have its id. `text` is the term in `lang`,
//   `description` which meaning it has, `part_of_speech` one of PARTS_OF_SPEECH (packages/core/src/terms/entry.ts).
//   `search` is the lower-cased text, description and translations, so one LIKE filters by any of them on both
//   dialects (MySQL's binary collation compares case). `identity` is what an import matches an entry by: the
//   lower-cased text, the description and the forbidden flag.
// - `term_translations`: a term's translation per language (one per language: the required one).
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('terms', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable();
    t.string('project_id', 40).nullable();
    t.string('lang', 35).notNullable();
    t.string('text', 255).notNullable();
    t.string('description', 1000).nullable();
    t.string('part_of_speech', 32).nullable();
    t.boolean('forbidden').notNullable().defaultTo(false);
    t.boolean('non_translatable').notNullable().defaultTo(false);
    t.boolean('case_sensitive').notNullable().defaultTo(false);
    t.boolean('abbreviation').notNullable().defaultTo(false);
    t.text('search').notNullable();
    t.string('identity', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['workspace_id', 'lang'], 'terms_workspace_lang_index');
    t.index(['project_id'], 'terms_project_index');
  });
  await db.schema.createTable('term_translations', (t) => {
    t.string('term_id', 40).notNullable();
    t.string('lang', 35).notNullable();
    t.string('text', 255).notNullable();
    t.primary(['term_id', 'lang']);
    t.index(['lang'], 'term_translations_lang_index');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('term_translations');
  await db.schema.dropTable('terms');
}
