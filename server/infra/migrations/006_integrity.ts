import type { Knex } from 'knex';

// MySQL's TEXT holds 65,535 bytes. These columns take what the API accepts whole: a 5,000-character source in six
// plural forms at four bytes a character (120 KB as ICU, more as JSON), values of a 2 MiB synced file, the
// format data of its entries. SQLite's TEXT has no such bound, so only MySQL is altered.
const MEDIUM: Array<[string, string, boolean]> = [
  ['keys', 'source', false],
  ['keys', 'forms', true],
  ['keys', 'meta', true],
  ['keys', 'file_key', true],
  ['key_history', 'source', false],
  ['key_history', 'forms', true],
  ['translations', 'value', true],
  ['project_catalogs', 'meta', false],
  ['events', 'payload', false],
  ['versions', 'unapproved', true],
];

export async function up(db: Knex): Promise<void> {
  if ((db.client as { config: Knex.Config }).config.client === 'mysql2') {
    for (const [table, column, nullable] of MEDIUM) {
      await db.schema.alterTable(table, (t) => {
        const c = t.text(column, 'mediumtext');
        (nullable ? c.nullable() : c.notNullable()).alter();
      });
    }
  }
  // Rows locked to serialize what must be serial per project (db.ts lockProject): version numbering, whole-catalog sync.
  await db.schema.createTable('project_locks', (t) => {
    t.string('project_id', 40).notNullable();
    t.string('purpose', 20).notNullable();
    t.primary(['project_id', 'purpose']);
  });
  await db.schema.alterTable('versions', (t) => {
    // The manifest the version's delivery serves, written after the mint commits and rewritten from here whenever
    // the store's copy is behind the database (publish/manifest.ts).
    t.text('manifest', 'mediumtext').nullable();
  });
  await db.schema.alterTable('projects', (t) => {
    // The version whose manifest the object store was last seen to hold; differs from current_version until written.
    t.string('manifest_version', 20).nullable();
  });
  // Manifests of earlier versions were written inside the mint: take them as written.
  await db('projects')
    .whereNotNull('current_version')
    .update({ manifest_version: db.ref('current_version') });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('projects', (t) => {
    t.dropColumn('manifest_version');
  });
  await db.schema.alterTable('versions', (t) => {
    t.dropColumn('manifest');
  });
  await db.schema.dropTable('project_locks');
}
