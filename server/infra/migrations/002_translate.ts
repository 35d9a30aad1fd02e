import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('workspaces', (t) => {
    // Credits reserved by queued fills; available = balance_mc - held_mc.
    t.bigInteger('held_mc').notNullable().defaultTo(0);
    // Spend of the current UTC month, for the spending cap.
    t.string('spent_month', 7).nullable();
    t.bigInteger('spent_mc').notNullable().defaultTo(0);
  });
  await db.schema.createTable('keys', (t) => {
    t.bigIncrements('id').primary();
    t.string('project_id', 40).notNullable().references('id').inTable('projects');
    t.string('name', 255).notNullable();
    // Content token: hash of (ctx, source or forms). Pushes are deduplicated by it.
    t.string('token', 64).notNullable();
    t.text('source').notNullable();
    t.text('forms').nullable();
    t.text('ctx').nullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.boolean('source_verified').notNullable().defaultTo(false);
    t.boolean('captured').notNullable().defaultTo(false);
    // The push that inserted the row: tells a winner of a concurrent insert from a loser.
    t.string('created_by', 40).nullable();
    t.bigInteger('source_updated_at').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['project_id', 'name']);
    t.unique(['project_id', 'token']);
  });
  await db.schema.createTable('key_history', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('key_id').notNullable();
    t.string('project_id', 40).notNullable();
    t.string('token', 64).notNullable();
    t.text('source').notNullable();
    t.text('forms').nullable();
    t.text('ctx').nullable();
    t.bigInteger('replaced_at').notNullable();
    t.index(['project_id', 'token']);
  });
  await db.schema.createTable('translations', (t) => {
    t.bigInteger('key_id').notNullable();
    t.string('lang', 35).notNullable();
    t.string('project_id', 40).notNullable();
    t.text('value').nullable();
    // pending (marker, no value yet), translated, reviewed, approved
    t.string('status', 12).notNullable();
    // ai, import, edit, memory
    t.string('origin', 10).nullable();
    // The fill job a pending marker is queued on (null: not queued; the next push queues it).
    t.bigInteger('job_id').nullable();
    t.bigInteger('updated_at').notNullable();
    t.primary(['key_id', 'lang']);
    t.index(['project_id', 'lang']);
  });
  await db.schema.createTable('fill_jobs', (t) => {
    t.bigIncrements('id').primary();
    t.string('tracking_token', 40).notNullable().unique();
    t.string('project_id', 40).notNullable();
    t.string('workspace_id', 40).notNullable();
    t.string('status', 20).notNullable();
    t.bigInteger('estimated_mc').notNullable();
    t.bigInteger('held_mc').notNullable();
    t.bigInteger('charged_mc').notNullable().defaultTo(0);
    t.integer('total').notNullable();
    t.integer('translated').notNullable().defaultTo(0);
    t.integer('failed').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.bigInteger('finished_at').nullable();
  });
  await db.schema.createTable('fill_pairs', (t) => {
    t.bigInteger('job_id').notNullable();
    t.bigInteger('key_id').notNullable();
    t.string('lang', 35).notNullable();
    t.string('state', 12).notNullable();
    t.integer('cost_mc').notNullable();
    t.primary(['job_id', 'key_id', 'lang']);
    t.index(['job_id', 'state']);
  });
  await db.schema.createTable('request_records', (t) => {
    t.string('api_key_id', 40).notNullable();
    t.string('request_id', 128).notNullable();
    t.string('project_id', 40).notNullable();
    t.string('action', 20).notNullable();
    t.string('body_hash', 64).notNullable();
    t.string('state', 12).notNullable();
    t.bigInteger('lease_until').nullable();
    t.integer('recovery_version').nullable();
    t.integer('status').nullable();
    // The exact bytes of the first answer, replayed as they were.
    t.text('response', 'mediumtext').nullable();
    // Written with the job in one transaction: a crashed request that enqueued work recovers this answer.
    t.text('captured_response', 'mediumtext').nullable();
    t.string('tracking_token', 40).nullable();
    t.boolean('orphaned').notNullable().defaultTo(false);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('closed_at').nullable();
    t.primary(['api_key_id', 'request_id']);
    t.index(['state', 'lease_until']);
    t.index(['closed_at']);
  });
  await db.schema.createTable('capture_days', (t) => {
    t.string('project_id', 40).notNullable();
    t.string('day', 10).notNullable();
    t.integer('count').notNullable();
    t.primary(['project_id', 'day']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const t of ['capture_days', 'request_records', 'fill_pairs', 'fill_jobs', 'translations', 'key_history', 'keys'])
    await db.schema.dropTableIfExists(t);
  await db.schema.alterTable('workspaces', (t) => {
    t.dropColumn('held_mc');
    t.dropColumn('spent_month');
    t.dropColumn('spent_mc');
  });
}
