import type { Knex } from 'knex';

// A person's role in each project they are granted (server/domain/users/grants.ts,
// docs/decisions/0033-project-roles.md): `translator` rows name one language each, as before; a project `owner` or
// `reviewer` has one row whose `lang` is `*` (every language of the project).
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('translator_grants', (t) => {
    t.string('role', 16).notNullable().defaultTo('translator');
  });
}

export async function down(db: Knex): Promise<void> {
  await db('translator_grants').whereNot({ role: 'translator' }).delete();
  await db.schema.alterTable('translator_grants', (t) => {
    t.dropColumn('role');
  });
}
