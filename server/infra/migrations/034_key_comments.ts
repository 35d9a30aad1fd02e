import type { Knex } from 'knex';

// Comments on a key (server/domain/catalog/comments.ts, spec/internal.yaml `internalListKeyComments`): people discuss
// a key beside its translations. `parent_id` makes a reply to a thread's first comment (threads are one level deep);
// `author` is the dashboard user's id (`admin` for the admin token); `mentions` the ids of the people the body names
// (`@email`), as JSON text. A deleted comment keeps its row with `deleted_at` set and its body emptied, so a thread
// of replies stays readable.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('key_comments', (t) => {
    t.increments('id').primary();
    t.string('project_id', 40).notNullable();
    t.bigInteger('key_id').notNullable();
    t.integer('parent_id').nullable();
    t.string('author', 40).notNullable();
    t.text('body').notNullable();
    t.text('mentions').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('deleted_at').nullable();
    t.index(['key_id', 'id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('key_comments');
}
