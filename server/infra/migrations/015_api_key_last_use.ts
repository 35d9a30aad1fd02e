import type { Knex } from 'knex';

// When an API key was last admitted by the public API (the dashboard's API keys page). Written at most
// once a minute per key and process (server/http/apikeys.ts noteKeyUse), never on every request.
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('api_keys', (t) => {
    t.bigInteger('last_used_at').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('api_keys', (t) => {
    t.dropColumn('last_used_at');
  });
}
