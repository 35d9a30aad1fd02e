import type { Knex } from 'knex';

// Screenshots of where a key is shown (server/domain/catalog/screenshots.ts, spec/internal.yaml
// `internalAddKeyScreenshot`): the image lives in the object store under `object_key`, its type and size read from
// its bytes; `region_*` mark the key's text in the image's pixels (all null when none was marked). `added_by` is the
// dashboard user's id (`admin` for the admin token).
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('key_screenshots', (t) => {
    t.increments('id').primary();
    t.string('project_id', 40).notNullable();
    t.bigInteger('key_id').notNullable();
    t.string('object_key', 200).notNullable();
    t.string('content_type', 20).notNullable();
    t.integer('width').notNullable();
    t.integer('height').notNullable();
    t.integer('bytes').notNullable();
    t.integer('region_x').nullable();
    t.integer('region_y').nullable();
    t.integer('region_w').nullable();
    t.integer('region_h').nullable();
    t.string('added_by', 40).notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['key_id', 'id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('key_screenshots');
}
