import type { Knex } from 'knex';

// Namespaces (docs/decisions/0016-namespaces.md): a key belongs to one namespace of its project, `''` being the
// default one every key had before, so a key's identity is (project, namespace, name) and one project can hold
// `app.json` and `common.json` (or `strings.xml` and `en.json`) whose syncs never touch each other's keys. Tokens
// stay unique per project: a named namespace salts them (server/domain/catalog/keys.ts `namespacedCtx`). The file-level
// data of a synced file (`project_catalogs`) is kept per namespace too.
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('keys', (t) => {
    t.string('namespace', 64).notNullable().defaultTo('');
  });
  // The new unique index first: on MySQL the project's foreign key needs an index starting with project_id at all
  // times (keys_project_id_index, 009, is one; this keeps the order safe either way).
  await db.schema.alterTable('keys', (t) => {
    t.unique(['project_id', 'namespace', 'name'], { indexName: 'keys_project_namespace_name_unique' });
  });
  await db.schema.alterTable('keys', (t) => {
    t.dropUnique(['project_id', 'name']);
  });
  await db.schema.alterTable('project_catalogs', (t) => {
    t.string('namespace', 64).notNullable().defaultTo('');
  });
  await db.schema.alterTable('project_catalogs', (t) => {
    t.dropPrimary();
    t.primary(['project_id', 'format', 'namespace']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db('project_catalogs').whereNot('namespace', '').delete();
  await db.schema.alterTable('project_catalogs', (t) => {
    t.dropPrimary();
    t.primary(['project_id', 'format']);
  });
  await db.schema.alterTable('project_catalogs', (t) => {
    t.dropColumn('namespace');
  });
  await db.schema.alterTable('keys', (t) => {
    t.unique(['project_id', 'name']);
  });
  await db.schema.alterTable('keys', (t) => {
    t.dropUnique(['project_id', 'namespace', 'name'], 'keys_project_namespace_name_unique');
    t.dropColumn('namespace');
  });
}
