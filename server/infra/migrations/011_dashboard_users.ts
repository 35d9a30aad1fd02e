import type { Knex } from 'knex';

// The dashboard's people (server/domain/users/, server/web/): users who sign in with an email and a password, their sessions and
// a fixed window of failed sign-ins per email.
// - `password_hash` is `scrypt$N$r$p$salt$hash` (base64url): the parameters travel with the hash, so they can be
//   raised later without invalidating stored passwords.
// - A session is stored only as the SHA-256 of its cookie token: a read of the table signs nobody in.
// - `signin_failures.subject` is the SHA-256 of the lowercased email, so unknown emails are counted too without
//   storing what was typed.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('dashboard_users', (t) => {
    t.string('id', 40).primary();
    t.string('name', 200).notNullable();
    t.string('email', 254).notNullable().unique();
    t.string('role', 16).notNullable();
    t.string('password_hash', 200).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
  });
  await db.schema.createTable('dashboard_sessions', (t) => {
    t.string('token_hash', 64).primary();
    t.string('user_id', 40).notNullable().references('id').inTable('dashboard_users');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at']);
    t.index(['user_id']);
  });
  await db.schema.createTable('dashboard_signin_failures', (t) => {
    t.string('subject', 64).notNullable();
    t.bigInteger('window_start').notNullable();
    t.integer('count').notNullable();
    t.primary(['subject', 'window_start']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('dashboard_signin_failures');
  await db.schema.dropTable('dashboard_sessions');
  await db.schema.dropTable('dashboard_users');
}
