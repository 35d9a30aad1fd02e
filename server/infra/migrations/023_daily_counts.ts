import type { Knex } from 'knex';

// One table of daily counts (server/domain/billing/quotas.ts): the day's captured keys (`capture_days`) and
// publishes (`publish_days`, whose days were written `YYYY.MM.DD`) move into `daily_counts` under their kinds.
const MOVED = [
  { table: 'capture_days', kind: 'capture', sep: '-' },
  { table: 'publish_days', kind: 'publish', sep: '.' },
] as const;

export async function up(db: Knex): Promise<void> {
  for (const { table, kind, sep } of MOVED) {
    await db.raw(
      `INSERT INTO daily_counts (project_id, kind, day, n) SELECT project_id, ?, REPLACE(day, ?, '-'), count FROM ${table}`,
      [kind, sep],
    );
    await db.schema.dropTable(table);
  }
}

export async function down(db: Knex): Promise<void> {
  for (const { table, kind, sep } of MOVED) {
    await db.schema.createTable(table, (t) => {
      t.string('project_id', 40).notNullable();
      t.string('day', 10).notNullable();
      t.integer('count').notNullable();
      t.primary(['project_id', 'day']);
    });
    await db.raw(
      `INSERT INTO ${table} (project_id, day, count) SELECT project_id, REPLACE(day, '-', ?), n FROM daily_counts WHERE kind = ?`,
      [sep, kind],
    );
    await db('daily_counts').where({ kind }).delete();
  }
}
