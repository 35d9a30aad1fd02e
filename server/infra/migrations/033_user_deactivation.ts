import type { Knex } from 'knex';

// A dashboard user can be deactivated (server/domain/users/users.ts, spec/internal.yaml `internalUpdateUser`):
// `deactivated_at` is when, null while active. A deactivated person's sessions are deleted and neither sign-in nor a
// session read admits them; the row stays, so the decisions recorded under their id still name an account and
// reactivating gives back the same one.
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('dashboard_users', (t) => {
    t.bigInteger('deactivated_at').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('dashboard_users', (t) => {
    t.dropColumn('deactivated_at');
  });
}
