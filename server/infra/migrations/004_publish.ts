import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('versions', (t) => {
    t.string('project_id', 40).notNullable();
    // YYYY.MM.DD.N: the UTC day and N counting from 1 within it.
    t.string('id', 20).notNullable();
    t.string('day', 10).notNullable();
    t.integer('seq').notNullable();
    t.text('label').nullable();
    t.bigInteger('snapshot_at').notNullable();
    t.string('digest', 64).notNullable();
    t.text('formats').notNullable();
    t.integer('key_count').notNullable();
    t.text('languages').notNullable();
    t.string('restored_from', 20).nullable();
    // Every non-base cell was approved when it was published (restore in a requireApproval workspace).
    t.boolean('all_approved').notNullable();
    t.text('unapproved').nullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['project_id', 'id']);
    t.unique(['project_id', 'day', 'seq']);
  });
  await db.schema.createTable('version_snapshots', (t) => {
    t.string('project_id', 40).notNullable();
    t.string('version_id', 20).notNullable();
    t.text('body', 'longtext').notNullable();
    t.primary(['project_id', 'version_id']);
  });
  await db.schema.alterTable('projects', (t) => {
    t.string('current_version', 20).nullable();
  });
  await db.schema.createTable('publish_days', (t) => {
    t.string('project_id', 40).notNullable();
    t.string('day', 10).notNullable();
    t.integer('count').notNullable();
    t.primary(['project_id', 'day']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const t of ['publish_days', 'version_snapshots', 'versions']) await db.schema.dropTableIfExists(t);
  await db.schema.alterTable('projects', (t) => {
    t.dropColumn('current_version');
  });
}
