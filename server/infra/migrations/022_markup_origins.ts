import type { Knex } from 'knex';

// The origins a translated link may point to besides its source's own URL (packages/core/src/markup.ts; the internal API's
// project settings, `markupOrigins`): a JSON array of `scheme://host[:port]`, null for none.
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('projects', (t) => {
    t.text('markup_origins').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('projects', (t) => {
    t.dropColumn('markup_origins');
  });
}
