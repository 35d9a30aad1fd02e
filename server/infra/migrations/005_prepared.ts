import type { Knex } from 'knex';

const chunkIds = (ids: string[]) =>
  Array.from({ length: Math.ceil(ids.length / 500) }, (_, i) => ids.slice(i * 500, i * 500 + 500));

export async function up(db: Knex): Promise<void> {
  // A table of its own, not columns of `projects`: inserting a key or a cell takes a shared lock on its project
  // row (the foreign key check) on MySQL, and two writers upgrading those to bump a counter there deadlock.
  await db.schema.createTable('project_content', (t) => {
    t.string('project_id', 40).primary();
    // Bumped by every transaction that writes what a publish reads (keys, cells, languages, synced catalogs).
    t.bigInteger('content_rev').notNullable().defaultTo(0);
    // When that content last changed and no prepared publish covers it yet (null once one does).
    t.bigInteger('changed_at').nullable();
    t.index(['changed_at']);
  });
  for (const part of chunkIds(await db('projects').pluck('id')))
    await db('project_content').insert(part.map((id) => ({ project_id: id, content_rev: 0 })));
  // Snapshots stored once per project and digest: versions name theirs by `versions.digest`, so a restore or a
  // republish of the same content stores nothing again, and a prepared publish stores its own ahead of the mint.
  await db.schema.createTable('snapshot_bodies', (t) => {
    t.string('project_id', 40).notNullable();
    t.string('digest', 64).notNullable();
    t.text('body', 'longtext').notNullable();
    t.primary(['project_id', 'digest']);
  });
  const rows = await db('version_snapshots as s')
    .join('versions as v', (j) => j.on('v.project_id', 's.project_id').andOn('v.id', 's.version_id'))
    .select<Array<{ project_id: string; digest: string; body: string }>>('s.project_id', 'v.digest', 's.body');
  for (const r of rows) await db('snapshot_bodies').insert(r).onConflict(['project_id', 'digest']).ignore();
  await db.schema.dropTable('version_snapshots');
  // The publish of a project's current content with the default flags, computed ahead (publish/prepare.ts).
  await db.schema.createTable('prepared_publishes', (t) => {
    t.string('project_id', 40).primary();
    t.bigInteger('content_rev').notNullable();
    // The flags and output formats it was computed for (JSON).
    t.text('params').notNullable();
    // Its objects live under prepared/{project}/{token}/ in the object store; its snapshot in snapshot_bodies.
    t.string('token', 40).notNullable();
    t.string('digest', 64).notNullable();
    t.text('summary', 'longtext').notNullable();
    t.bigInteger('created_at').notNullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('prepared_publishes');
  await db.schema.createTable('version_snapshots', (t) => {
    t.string('project_id', 40).notNullable();
    t.string('version_id', 20).notNullable();
    t.text('body', 'longtext').notNullable();
    t.primary(['project_id', 'version_id']);
  });
  const rows = await db('versions as v')
    .join('snapshot_bodies as b', (j) => j.on('b.project_id', 'v.project_id').andOn('b.digest', 'v.digest'))
    .select('v.project_id', { version_id: 'v.id' }, 'b.body');
  for (const r of rows) await db('version_snapshots').insert(r);
  await db.schema.dropTable('snapshot_bodies');
  await db.schema.dropTable('project_content');
}
