import type { Knex } from 'knex';

// Sign-in throttling and sliding dashboard sessions (server/domain/users/throttle.ts, sessions.ts).
// - `dashboard_signin_throttle` replaces the fixed window of failures per email, which locked the right password
//   out too: one row per subject (`client:<address>`, `account:<sha256 of the email>`, `device:<sha256 of the
//   known-device token>`) with its count of attempts and the time before which the next one is refused.
// - `dashboard_devices` holds the browsers that signed in before (their cookie token's SHA-256 and the user), which
//   the per-account throttle an attacker builds up does not hold back.
// - `dashboard_sessions.idle_expires_at`: a session also ends after a while without activity, refreshed as the
//   person works; `expires_at` stays the absolute limit. Existing sessions keep their absolute expiry as idle one.
export async function up(db: Knex): Promise<void> {
  await db.schema.dropTable('dashboard_signin_failures');
  await db.schema.createTable('dashboard_signin_throttle', (t) => {
    t.string('subject', 80).primary();
    t.integer('attempts').notNullable();
    t.bigInteger('blocked_until').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['updated_at']);
  });
  await db.schema.createTable('dashboard_devices', (t) => {
    t.string('token_hash', 64).primary();
    t.string('user_id', 40).notNullable().references('id').inTable('dashboard_users').onDelete('CASCADE');
    t.bigInteger('expires_at').notNullable();
    t.index(['user_id']);
    t.index(['expires_at']);
  });
  await db.schema.alterTable('dashboard_sessions', (t) => {
    t.bigInteger('idle_expires_at').notNullable().defaultTo(0);
  });
  await db('dashboard_sessions').update({ idle_expires_at: db.ref('expires_at') });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('dashboard_sessions', (t) => {
    t.dropColumn('idle_expires_at');
  });
  await db.schema.dropTable('dashboard_devices');
  await db.schema.dropTable('dashboard_signin_throttle');
  await db.schema.createTable('dashboard_signin_failures', (t) => {
    t.string('subject', 64).notNullable();
    t.bigInteger('window_start').notNullable();
    t.integer('count').notNullable();
    t.primary(['subject', 'window_start']);
  });
}
