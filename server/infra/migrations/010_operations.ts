import type { Knex } from 'knex';

// Operations (spec: `Operation`): a person's approval an agent key acts under.
//
// `operations.reuse_key` is the hash of (key, action, resolved scope, requested budget) while the operation may
// still be reused by an equivalent create, and null once a create found it unusable: the unique index makes
// concurrent equivalent creates, in any process, end on one row (server/domain/operations/store.ts).
// `operation_seats` holds every request seated on a batch; `live` is 1 for the one non-failed request a
// (attempt, batch) may have and null for the failed ones it replaced (a unique index allows many nulls on both
// databases). `batch_previews` keeps a few source strings of each previewed batch for the approval page: the
// only thing a dry run stores. `fill_jobs.operation_id` ties a fill to the operation whose budget it reserved.
// `request_records.expired_at`: when the sweep stored a record's replay window as over, so a simulated clock
// (`POST /internal/v1/jobs/run-due` with `now`) moves records as time would.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('operations', (t) => {
    t.string('id', 40).primary();
    t.string('project_id', 40).notNullable();
    t.string('api_key_id', 40).notNullable();
    t.string('action', 12).notNullable();
    t.string('state', 20).notNullable();
    t.text('scope').notNullable();
    t.string('reuse_key', 64).nullable().unique();
    t.string('equivalence', 64).notNullable();
    t.bigInteger('requested_mc').notNullable();
    t.bigInteger('authorized_mc').notNullable().defaultTo(0);
    t.bigInteger('reserved_mc').notNullable().defaultTo(0);
    t.bigInteger('charged_mc').notNullable().defaultTo(0);
    t.bigInteger('absorbed_mc').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable();
    // Pending: creation + 30 minutes. Approved publish/rollback: approval + 30 minutes. Approved translate:
    // last use + 30 minutes (and no live job of its own).
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('approved_at').nullable();
    t.bigInteger('last_used_at').nullable();
    t.string('decided_by', 200).nullable();
    t.bigInteger('decided_at').nullable();
    t.index(['project_id', 'state']);
    t.index(['state', 'expires_at']);
    t.index(['api_key_id', 'equivalence']);
  });
  await db.schema.createTable('operation_seats', (t) => {
    t.bigIncrements('id').primary();
    t.string('operation_id', 40).notNullable();
    t.string('attempt_id', 128).notNullable();
    // Null for a publish or rollback use.
    t.integer('batch_index').nullable();
    t.string('api_key_id', 40).notNullable();
    t.string('request_id', 128).nullable();
    t.integer('live').nullable();
    // A publish or rollback use (no request record): done, or failed when the use was given back.
    t.string('outcome', 12).nullable();
    t.bigInteger('created_at').notNullable();
    t.unique(['operation_id', 'attempt_id', 'batch_index', 'live'], { indexName: 'operation_seats_live_unique' });
  });
  await db.schema.createTable('batch_previews', (t) => {
    t.string('project_id', 40).notNullable();
    t.string('batch_sha256', 64).notNullable();
    t.text('sample').notNullable();
    t.integer('unit_count').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.primary(['project_id', 'batch_sha256']);
    t.index(['expires_at']);
  });
  await db.schema.alterTable('fill_jobs', (t) => {
    t.string('operation_id', 40).nullable();
    t.index(['operation_id']);
  });
  await db.schema.alterTable('request_records', (t) => {
    t.bigInteger('expired_at').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('request_records', (t) => {
    t.dropColumn('expired_at');
  });
  await db.schema.alterTable('fill_jobs', (t) => {
    t.dropIndex(['operation_id']);
    t.dropColumn('operation_id');
  });
  for (const t of ['batch_previews', 'operation_seats', 'operations']) await db.schema.dropTableIfExists(t);
}
