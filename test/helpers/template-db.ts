// Databases built once per run from a migrated template (scripts/test.ts makes it and names it in TEST_TEMPLATE_DB):
// every test file used to run all migrations on its own new database, some hundred statements of DDL each, which on
// MySQL cost the server more than most test files' own queries. A copy gives each file the same schema and rows.
import { copyFileSync } from 'node:fs';
import knexFactory, { type Knex } from 'knex';
import { migrate, openDb } from '../../server/infra/db.js';

/** Creates the template: a migrated SQLite file at `file`, or a migrated MySQL database `name` on `mysqlUrl`. */
export async function createTemplate(target: { file: string } | { mysqlUrl: string; name: string }): Promise<void> {
  let url: string;
  if ('file' in target) url = `sqlite://${target.file}`;
  else {
    await withMysql(target.mysqlUrl, async (admin) => {
      await admin.raw(`DROP DATABASE IF EXISTS \`${target.name}\``);
      await admin.raw(`CREATE DATABASE \`${target.name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    });
    const u = new URL(target.mysqlUrl);
    u.pathname = `/${target.name}`;
    url = u.toString();
  }
  const db = openDb(url);
  try {
    await migrate(db);
    // Everything in the main file, so that copying the file alone copies the database.
    if ('file' in target) await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    await db.destroy();
  }
}

export async function dropMysqlTemplate(mysqlUrl: string, name: string): Promise<void> {
  await withMysql(mysqlUrl, (admin) => admin.raw(`DROP DATABASE IF EXISTS \`${name}\``));
}

/**
 * The MySQL lane's server writes its redo log at each commit and flushes it to disk once a second
 * (`innodb_flush_log_at_trx_commit = 2`) while the lane runs, instead of an fsync per commit: the tests check what
 * the service does, which a crash of the database server's machine is not part of (a killed service process loses
 * nothing either way). Three DB-heavy files took 49 s instead of 62 to 68 s (docs/decisions/0020-tests-run-compiled.md).
 * Returns what restores the value found; without the privilege to set it, nothing changes.
 */
export async function relaxMysqlFlush(mysqlUrl: string): Promise<() => Promise<void>> {
  let before: unknown;
  try {
    await withMysql(mysqlUrl, async (admin) => {
      const [rows] = (await admin.raw('SELECT @@GLOBAL.innodb_flush_log_at_trx_commit AS v')) as [
        Array<{ v: unknown }>,
      ];
      before = rows[0]?.v;
      await admin.raw('SET GLOBAL innodb_flush_log_at_trx_commit = 2');
    });
  } catch {
    return () => Promise.resolve();
  }
  const value = Number(before);
  if (!Number.isInteger(value) || value === 2) return () => Promise.resolve();
  return () => withMysql(mysqlUrl, (admin) => admin.raw(`SET GLOBAL innodb_flush_log_at_trx_commit = ${value}`));
}

/** A copy of the SQLite template at `file` (the template is closed, so the file alone holds it). */
export function copySqliteTemplate(template: string, file: string): void {
  copyFileSync(template, file);
}

/** Per template: each table's `SHOW CREATE TABLE` statement, and the tables that hold rows (read once a process). */
const layouts = new Map<string, Promise<{ creates: string[]; filled: string[] }>>();

function layoutOf(mysqlUrl: string, template: string) {
  let layout = layouts.get(template);
  if (!layout) {
    layout = withMysql(mysqlUrl, async (db) => {
      const [tables] = (await db.raw(
        'SELECT table_name AS t FROM information_schema.tables WHERE table_schema = ? ORDER BY table_name',
        [template],
      )) as [Array<{ t: string }>];
      const creates: string[] = [];
      const filled: string[] = [];
      for (const { t } of tables) {
        const [[row]] = (await db.raw(`SHOW CREATE TABLE \`${template}\`.\`${t}\``)) as [Array<Record<string, string>>];
        creates.push(row['Create Table']);
        const [[any]] = (await db.raw(`SELECT EXISTS (SELECT 1 FROM \`${template}\`.\`${t}\`) AS n`)) as [
          Array<{ n: number }>,
        ];
        if (Number(any.n)) filled.push(t);
      }
      return { creates, filled };
    });
    layouts.set(template, layout);
  }
  return layout;
}

/**
 * A copy of the MySQL template into the empty database `name`: each table as the template's own `SHOW CREATE TABLE`
 * states it (foreign keys included, which `CREATE TABLE ... LIKE` would drop), then the rows of the few tables that
 * hold any, all in one round trip. The template's layout is read once per test process: the copies were some
 * hundred statements each, for what is the same schema every time.
 */
export async function copyMysqlTemplate(mysqlUrl: string, template: string, name: string): Promise<void> {
  const { creates, filled } = await layoutOf(mysqlUrl, template);
  const u = new URL(mysqlUrl);
  u.pathname = `/${name}`;
  const statements = [
    'SET FOREIGN_KEY_CHECKS = 0',
    ...creates,
    ...filled.map((t) => `INSERT INTO \`${t}\` SELECT * FROM \`${template}\`.\`${t}\``),
    'SET FOREIGN_KEY_CHECKS = 1',
  ];
  await withMysql(u.toString(), (db) => db.raw(statements.join(';\n')), true);
}

async function withMysql<T>(url: string, f: (admin: Knex) => Promise<T>, multipleStatements = false): Promise<T> {
  const admin = knexFactory({
    client: 'mysql2',
    connection: multipleStatements ? { uri: url, multipleStatements } : url,
    pool: { min: 1, max: 1 },
  });
  try {
    return await f(admin);
  } finally {
    await admin.destroy();
  }
}
