import type { Knex } from 'knex';

// Whose share of a worker's window a job runs in (server/infra/jobs.ts runsConcurrently): a webhook attempt
// carries its project, so one project's hanging receivers cannot hold every lane while another's deliveries wait.
// Null for every job of a kind without shares. The index serves the claim's questions about one kind's queued or
// running jobs per share (which shares have jobs queued, a share's oldest due jobs, how many a share has running);
// it leads with state, like (state, run_at), so the plain claim keeps to (state, run_at).
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('jobs', (t) => {
    t.string('share_key', 64).nullable();
    t.index(['state', 'share_key', 'kind', 'run_at'], 'jobs_state_share_kind_run_at');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('jobs', (t) => {
    t.dropIndex(['state', 'share_key', 'kind', 'run_at'], 'jobs_state_share_kind_run_at');
    t.dropColumn('share_key');
  });
}
