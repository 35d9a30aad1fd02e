import type { Knex } from 'knex';

// A translator's projects and languages (server/domain/users/grants.ts, docs/decisions/0032-translator-role.md): one
// row per (person, project, language) they may translate. A person whose role is not `translator` has none.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('translator_grants', (t) => {
    t.string('user_id', 40).notNullable();
    t.string('project_id', 40).notNullable();
    t.string('lang', 35).notNullable();
    t.primary(['user_id', 'project_id', 'lang']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('translator_grants');
}
