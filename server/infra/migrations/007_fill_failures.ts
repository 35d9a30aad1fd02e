import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('translations', (t) => {
    // Why the last fill of a pending marker failed (the single-key read reports it); cleared when a job claims it.
    t.string('fail_reason', 500).nullable();
    // The key's content token when the engine refused the pair itself (its answer failed the gate after its
    // retries, or it cannot take the source): while the key still has this token, no push or sync queues the pair
    // again. Null for failures of the engine as a whole, which the next push retries.
    t.string('fail_token', 64).nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('translations', (t) => {
    t.dropColumn('fail_token');
    t.dropColumn('fail_reason');
  });
}
