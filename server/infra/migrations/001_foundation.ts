import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('workspaces', (t) => {
    t.string('id', 40).primary();
    t.string('name', 200).notNullable();
    t.bigInteger('balance_mc').notNullable().defaultTo(0);
    t.boolean('require_approval').notNullable().defaultTo(false);
    t.bigInteger('spending_cap_mc').nullable();
    t.integer('key_limit').nullable();
    t.integer('document_limit').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
  });
  await db.schema.createTable('projects', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable().references('id').inTable('workspaces');
    t.string('name', 200).notNullable();
    t.string('handle', 80).notNullable().unique();
    t.string('slug', 80).notNullable();
    t.string('base_lang', 35).notNullable();
    t.string('mode', 1).notNullable().defaultTo('b');
    t.boolean('auto_verify').notNullable().defaultTo(false);
    t.boolean('content_enabled').notNullable().defaultTo(false);
    t.bigInteger('cost_warning_mc').nullable();
    t.string('delivery_host', 253).nullable();
    // Ordered list of configured output format ids (JSON array); config_version is the compare-and-set token.
    t.text('output_formats').notNullable();
    t.integer('config_version').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.bigInteger('deleted_at').nullable();
  });
  await db.schema.createTable('project_languages', (t) => {
    t.string('project_id', 40).notNullable().references('id').inTable('projects');
    t.string('code', 35).notNullable();
    t.string('fill_mode', 10).notNullable().defaultTo('ai');
    t.bigInteger('removed_at').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.primary(['project_id', 'code']);
  });
  await db.schema.createTable('api_keys', (t) => {
    t.string('id', 40).primary();
    t.string('project_id', 40).notNullable().references('id').inTable('projects');
    t.string('name', 100).nullable();
    // SHA-256 of the whole key (hex). Keys carry 256 bits of entropy, so a fast hash is enough.
    t.string('secret_hash', 64).notNullable();
    t.text('scopes').notNullable();
    t.boolean('requires_operation_approval').notNullable().defaultTo(false);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('revoked_at').nullable();
  });
  await db.schema.createTable('events', (t) => {
    t.string('id', 40).primary();
    t.string('project_id', 40).notNullable();
    t.string('type', 60).notNullable();
    t.text('payload').notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['project_id', 'created_at']);
  });
  await db.schema.createTable('rate_windows', (t) => {
    t.string('project_id', 40).notNullable();
    t.bigInteger('window_start').notNullable();
    t.integer('count').notNullable();
    t.primary(['project_id', 'window_start']);
  });
  await db.schema.createTable('jobs', (t) => {
    t.bigIncrements('id').primary();
    t.string('kind', 60).notNullable();
    t.text('payload').notNullable();
    t.string('state', 12).notNullable();
    t.bigInteger('run_at').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('max_attempts').notNullable().defaultTo(5);
    t.string('locked_by', 64).nullable();
    t.bigInteger('locked_until').nullable();
    t.text('last_error').nullable();
    // Set for jobs that must exist at most once while unfinished (periodic sweeps).
    t.string('unique_key', 120).nullable().unique();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.bigInteger('finished_at').nullable();
    t.index(['state', 'run_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const t of ['jobs', 'rate_windows', 'events', 'api_keys', 'project_languages', 'projects', 'workspaces']) {
    await db.schema.dropTableIfExists(t);
  }
}
