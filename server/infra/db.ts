// The database: SQLite (better-sqlite3) by default, MySQL 8 / MariaDB 10.6+ (mysql2) when DATABASE_URL says so.
// Timestamps are stored as epoch milliseconds (BIGINT) and JSON as text, so both dialects read back the same values.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pRetry from 'p-retry';
import { LRUCache } from 'lru-cache';
import { checkpointOffLoop } from './checkpoint.js';
import { ApiError } from './errors.js';
import { migrationSource } from './migrations/index.js';
// The row type of every table, declared to Knex (tables.ts).
import type {} from './tables.js';

export type Db = Knex;
type Dialect = 'sqlite' | 'mysql';

/** The parts of better-sqlite3 used here (the package ships no types). */
interface SqliteStatement {
  /** True for a statement that returns rows (a SELECT, or a write with RETURNING). */
  readonly reader: boolean;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): unknown;
}
/** `fn` wrapped in BEGIN/COMMIT (ROLLBACK on a throw); `immediate` begins IMMEDIATE. */
type SqliteTransaction<F> = F & { immediate: F };
interface SqliteConnection {
  pragma(source: string): unknown;
  prepare(sql: string): SqliteStatement;
  transaction<F extends (...args: never[]) => unknown>(fn: F): SqliteTransaction<F>;
  close(): void;
}

/** A mysql2 connection, as the pool hands it to afterCreate. */
interface MysqlConnection {
  query(sql: string, callback: (err: Error | null) => void): void;
}

/** The parts of Knex's client (typed `any` by Knex) used here. */
interface KnexClient {
  config: Knex.Config;
  driver: new (file: string) => SqliteConnection;
  transaction: (...args: unknown[]) => {
    begin: (conn: unknown) => unknown;
    query(conn: unknown, sql: string): unknown;
  };
  acquireConnection(): Promise<SqliteConnection>;
  releaseConnection(conn: SqliteConnection): Promise<void>;
  destroy(callback?: unknown): Promise<void>;
}

const clientOf = (db: Knex) => db.client as KnexClient;

export function dialectOf(db: Knex): Dialect {
  return clientOf(db).config.client === 'mysql2' ? 'mysql' : 'sqlite';
}

/**
 * WAL frames (pages) after which a commit checkpoints: 4,000 pages is a WAL of up to 16 MB, four times SQLite's
 * default. Small transactions (a job's claim, a webhook attempt's outcome) rewrite the same few pages, and a
 * checkpoint copies each page once, with two fsyncs on the event loop's thread: checkpointing less often copied
 * fewer pages per commit and blocked less (bench/webhooks.ts).
 */
export const WAL_CHECKPOINT_PAGES = 4_000;

export function openDb(url: string): Knex {
  if (url.startsWith('sqlite://')) {
    const file = url.slice('sqlite://'.length);
    if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    return immediateTransactions(
      knexFactory({
        client: 'better-sqlite3',
        connection: { filename: file },
        useNullAsDefault: true,
        pool: {
          min: 1,
          max: 1,
          afterCreate(conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) {
            // WAL lets readers of another process run beside the writer; busy_timeout makes a second
            // process wait for the write lock instead of failing at once.
            conn.pragma('journal_mode = WAL');
            conn.pragma('synchronous = NORMAL');
            conn.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
            conn.pragma('busy_timeout = 5000');
            conn.pragma('foreign_keys = ON');
            cacheStatements(conn);
            if (file !== ':memory:') checkpointOffLoop(conn, path.resolve(file));
            done(null, conn);
          },
        },
      }),
    );
  }
  if (url.startsWith('mysql://')) {
    return knexFactory({
      client: 'mysql2',
      connection: { uri: url, supportBigNumbers: true, bigNumberStrings: false, charset: 'utf8mb4' },
      pool: {
        min: 0,
        max: 10,
        afterCreate(conn: MysqlConnection, done: (err: Error | null, conn: unknown) => void) {
          // Strict on every connection, whatever the server's default: a value longer than its column is an error
          // (ER_DATA_TOO_LONG), never a silent truncation, in and outside transactions.
          conn.query(`SET SESSION sql_mode = '${STRICT_SQL_MODE}'`, (err: Error | null) => done(err, conn));
        },
      },
    });
  }
  throw new Error(`DATABASE_URL must start with sqlite:// or mysql://, got ${url}`);
}

/**
 * Knex prepares every statement it runs, so a statement run a thousand times (a fill's batch writes) was compiled
 * a thousand times: a bounded cache by SQL text hands back the prepared one. Knex only ever runs a statement to
 * its end (all/run), never leaves one iterating, so reusing it is safe.
 */
function cacheStatements(conn: SqliteConnection): void {
  const prepare = conn.prepare.bind(conn);
  const cache = new LRUCache<string, SqliteStatement>({ max: 256 });
  conn.prepare = (sql: string) => {
    let stmt = cache.get(sql);
    if (!stmt) cache.set(sql, (stmt = prepare(sql)));
    return stmt;
  };
}

/**
 * SQLite transactions take the write lock at BEGIN. A deferred transaction reads a snapshot and must upgrade it
 * to write; if another connection (a worker process) committed in between, SQLite refuses the upgrade with
 * SQLITE_BUSY_SNAPSHOT, whatever the busy timeout. Begun IMMEDIATE, it waits for the lock once, up front, and never
 * fails half-way.
 */
function immediateTransactions(db: Knex): Knex {
  const client = clientOf(db);
  const transaction = client.transaction.bind(client);
  client.transaction = (...args: unknown[]) => {
    const trx = transaction(...args);
    trx.begin = (conn: unknown) => trx.query(conn, 'BEGIN IMMEDIATE;');
    return trx;
  };
  return db;
}

export async function migrate(db: Knex): Promise<void> {
  await db.migrate.latest({ migrationSource });
}

/** Ids are opaque, URL-safe and unguessable; the prefix tells a reader what kind of thing it names. */
export function newId(prefix: string, bytes = 9): string {
  return `${prefix}_${randomToken(bytes)}`;
}

export function randomToken(bytes: number): string {
  return randomBytes(bytes)
    .toString('base64url')
    .replace(/[-_]/g, (c) => (c === '-' ? 'x' : 'z'));
}

export const bool = (v: unknown): boolean => v === true || v === 1 || v === '1';

export function parseJson<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string' || text === '') return fallback;
  return JSON.parse(text) as T;
}

/** Valid on MySQL 8 and MariaDB 10.6+ alike. */
const STRICT_SQL_MODE =
  'STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';

/**
 * Inserts `rows`, leaving alone any row that already holds one of their unique keys. Never MySQL's INSERT IGNORE:
 * that also downgrades a too-long value to a warning and stores it cut (the audit's 300-character key stored as
 * 255). `touch` is any column of the table: MySQL's no-op `ON DUPLICATE KEY UPDATE touch = touch` stands in.
 */
export function insertOrKeep(db: Knex, table: string, rows: object | object[], conflict: string[], touch: string) {
  const q = db(table).insert(rows);
  if (dialectOf(db) === 'mysql') return q.onConflict(conflict).merge({ [touch]: db.raw('??', [touch]) });
  return conflict.length ? q.onConflict(conflict).ignore() : q.onConflict().ignore();
}

const codeOf = (err: unknown) => String((err as { code?: string })?.code ?? '');

/** A transaction lost to another one (deadlock, lock wait timeout, SQLite busy) and was rolled back whole. */
export function isContention(err: unknown): boolean {
  const code = codeOf(err);
  return (
    code === 'ER_LOCK_DEADLOCK' ||
    code === 'ER_LOCK_WAIT_TIMEOUT' ||
    // InnoDB's answer to a deadlock met while waiting for a table's AUTO-INC lock (an insert waiting on another
    // transaction's INSERT ... SELECT into the same table, such as the fill's history rows): rolled back the same.
    code === 'ER_AUTOINC_READ_FAILED' ||
    code.startsWith('SQLITE_BUSY') ||
    code.startsWith('SQLITE_LOCKED')
  );
}

/** The database or the object store refused a write: disk full, read-only, or failing storage. */
export function isStoreRefusal(err: unknown): boolean {
  const code = codeOf(err);
  return (
    ['SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_CANTOPEN'].some((c) => code.startsWith(c)) ||
    [
      'ER_RECORD_FILE_FULL',
      'ER_DISK_FULL',
      'ER_OPTION_PREVENTS_STATEMENT',
      'ER_READ_ONLY_MODE',
      'ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION',
      'ER_OUT_OF_RESOURCES',
    ].includes(code) ||
    ['ENOSPC', 'EROFS', 'EDQUOT', 'EIO'].includes(code)
  );
}

/** A value longer or larger than its column (MySQL strict mode): only reachable past a limit the spec forgot. */
export const isTooLong = (err: unknown) => ['ER_DATA_TOO_LONG', 'ER_WARN_DATA_OUT_OF_RANGE'].includes(codeOf(err));

/**
 * Serializes the transactions that name the same project and `purpose` (version numbering, whole-catalog sync,
 * the webhook count), until the caller's transaction ends. MySQL: the upsert takes the row's exclusive lock directly
 * (never a shared one to upgrade, which two waiters would deadlock on). SQLite: transactions begin IMMEDIATE, so
 * they are serial already.
 */
export async function lockProject(
  trx: Knex,
  projectId: string,
  purpose: 'publish' | 'sync' | 'webhooks' | 'content',
): Promise<void> {
  if (dialectOf(trx) !== 'mysql') return;
  await trx.raw(
    'INSERT INTO project_locks (project_id, purpose) VALUES (?, ?) ON DUPLICATE KEY UPDATE purpose = purpose',
    [projectId, purpose],
  );
}

/**
 * Runs `work` (a whole transaction) again when it lost to a concurrent one, up to `attempts` times; `retryOn`
 * adds errors worth another try (a duplicate key a concurrent writer took first). What still loses throws
 * `contended`, which the spec documents as "transient contention; retry".
 */
export async function retryContended<T>(
  work: () => Promise<T>,
  opts: { attempts?: number; retryOn?: (err: unknown) => boolean } = {},
): Promise<T> {
  const worthRetrying = (err: unknown) => isContention(err) || Boolean(opts.retryOn?.(err));
  try {
    // Jittered exponential backoff from 10 ms (up to about 0.6 s over six attempts): the losers of one race do
    // not meet again at once, and on a loaded server they give the winner time to commit.
    return await pRetry(() => work(), {
      retries: (opts.attempts ?? 6) - 1,
      minTimeout: 10,
      factor: 2,
      randomize: true,
      shouldRetry: worthRetrying,
    });
  } catch (err) {
    if (worthRetrying(err)) throw contended();
    throw err;
  }
}

export const contended = () =>
  new ApiError(
    503,
    'contended',
    'Concurrent requests kept changing the same state; nothing was written. Retry the identical request.',
  );

/** A duplicate-key insert, in either dialect: the row a concurrent writer got in first. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string })?.code ?? '';
  return (
    code === 'ER_DUP_ENTRY' ||
    code.startsWith('SQLITE_CONSTRAINT_PRIMARYKEY') ||
    code.startsWith('SQLITE_CONSTRAINT_UNIQUE')
  );
}

// Hot-path statements (every authenticated request runs them, and every job claim). On SQLite they run as
// prepared statements (reused by cacheStatements) on Knex's own connection, skipping Knex's builder; MySQL always
// goes through knex.raw. A second SQLite connection of their own, beside Knex's pool, was measured against this
// and bought nothing worth its code (docs/decisions/0010-one-sqlite-connection.md).
export type Prepare = (sql: string) => SqliteStatement;

async function onSqlite<T>(db: Knex, work: (prepare: Prepare) => T, transaction = false): Promise<T> {
  const client = clientOf(db);
  const conn = await client.acquireConnection();
  try {
    const prepare: Prepare = (sql) => conn.prepare(sql);
    return transaction ? conn.transaction(() => work(prepare)).immediate() : work(prepare);
  } finally {
    await client.releaseConnection(conn);
  }
}

/**
 * SQLite only: runs `work` (synchronous, statements from `prepare`) as one IMMEDIATE transaction on the pool's
 * connection, once it is free. A throw rolls it all back.
 */
export function hotTransaction<T>(db: Knex, work: (prepare: Prepare) => T): Promise<T> {
  return onSqlite(db, work, true);
}

/** A part of a group write, waiting for its turn's commit. */
interface GroupPart {
  work: (prepare: Prepare) => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Per database: the parts to commit together at the end of this turn of the event loop. */
const writeGroups = new WeakMap<Knex, GroupPart[]>();

/**
 * SQLite only: runs `work` (synchronous, statements from `prepare`) in a transaction shared with the other parts
 * queued in the same turn of the event loop: one commit for all, as hotTransaction would run it. Each part runs
 * in a savepoint of its own, so a part that throws rolls back alone and rejects with its error while the others'
 * writes stand. For small writes on a hot path (a job's claim, a webhook attempt's outcome), where the commit
 * costs more than the statements: each commit writes every page it dirtied to the WAL, and parts that touch the
 * same pages (the jobs table and its index) write them once.
 */
export function groupWrite<T>(db: Knex, work: (prepare: Prepare) => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let group = writeGroups.get(db);
    if (!group) {
      writeGroups.set(db, (group = []));
      setImmediate(() => {
        writeGroups.delete(db);
        void commitWriteGroup(db, group!);
      });
    }
    group.push({ work, resolve: resolve as (value: unknown) => void, reject });
  });
}

async function commitWriteGroup(db: Knex, group: GroupPart[]): Promise<void> {
  let outcomes: Array<{ ok: true; value: unknown } | { ok: false; err: unknown }>;
  try {
    outcomes = await retryContended(() =>
      hotTransaction(db, (prepare) =>
        group.map((part) => {
          // Alone in its group, a part that throws rolls back the whole transaction: no savepoint needed.
          if (group.length === 1) return { ok: true as const, value: part.work(prepare) };
          prepare('SAVEPOINT part').run();
          try {
            const value = part.work(prepare);
            prepare('RELEASE part').run();
            return { ok: true as const, value };
          } catch (err) {
            prepare('ROLLBACK TO part').run();
            prepare('RELEASE part').run();
            return { ok: false as const, err };
          }
        }),
      ),
    );
  } catch (err) {
    // The transaction itself failed (the database refused the commit): nothing was written. Alone, each part
    // meets its own fate.
    if (group.length === 1) group[0].reject(err);
    else for (const part of group) void commitWriteGroup(db, [part]);
    return;
  }
  outcomes.forEach((o, i) => (o.ok ? group[i].resolve(o.value) : group[i].reject(o.err)));
}

/** SQLite only: runs `work` (synchronous reads) outside any transaction, as hotTransaction would. */
export function hotRead<T>(db: Knex, work: (prepare: Prepare) => T): Promise<T> {
  return onSqlite(db, work);
}

/** First row of a hot query (`?` placeholders), of the shape `T` its SELECT gives, or undefined. */
export async function hotRow<T>(db: Knex, sql: string, params: unknown[]): Promise<T | undefined> {
  if (dialectOf(db) === 'sqlite') return onSqlite(db, (prepare) => prepare(sql).get(...params) as T | undefined);
  // mysql2 answers a SELECT with [rows, fields].
  const [rows] = (await db.raw<unknown>(sql, params as Knex.RawBinding[])) as [T[], unknown];
  return rows[0];
}

/** A hot write; resolves to MySQL's result header (insertId), or SQLite's RETURNING row: `T`, as the caller's SQL gives. */
export async function hotWrite<T>(db: Knex, sql: string, params: unknown[]): Promise<T> {
  // all(), not get(): get() resets a RETURNING statement before it reaches SQLITE_DONE, and SQLite runs its WAL
  // auto-checkpoint only on DONE, so the WAL would grow without end (and every write would extend the file).
  if (dialectOf(db) === 'sqlite') {
    return onSqlite(db, (prepare) => {
      const stmt = prepare(sql);
      return (stmt.reader ? stmt.all(...params)[0] : stmt.run(...params)) as T;
    });
  }
  // mysql2 answers a write with [ResultSetHeader, undefined].
  const [res] = (await db.raw<unknown>(sql, params as Knex.RawBinding[])) as [T, unknown];
  return res;
}

/**
 * Cells (key, language) grouped so that each group is exactly its keys times its languages: one statement per group
 * (`key_id IN keys AND lang IN langs`, on a primary key of key and language) instead of one per language. Keys with
 * the same languages go together: a run of whole keys in every language, as writers store them, is one group. At
 * most `size` keys a group; `oneLanguage`: a language a group (each cell a point of such a key).
 */
export function* cellGroups(
  cells: Iterable<{ keyId: number; lang: string }>,
  size = 400,
  oneLanguage = false,
): Generator<{ keyIds: number[]; langs: string[] }> {
  const langsOf = new Map<number, Set<string>>();
  for (const c of cells) {
    const set = langsOf.get(c.keyId);
    if (set) set.add(c.lang);
    else langsOf.set(c.keyId, new Set([c.lang]));
  }
  const groups = new Map<string, { keyIds: number[]; langs: string[] }>();
  for (const [keyId, set] of langsOf) {
    const sorted = [...set].sort();
    for (const langs of oneLanguage ? sorted.map((l) => [l]) : [sorted]) {
      const id = langs.join('\n');
      const group = groups.get(id);
      if (group) group.keyIds.push(keyId);
      else groups.set(id, { keyIds: [keyId], langs });
    }
  }
  for (const { keyIds, langs } of groups.values())
    for (const part of chunks(keyIds, size)) yield { keyIds: part, langs };
}

/**
 * Slices of at most `size` items: bulk statements stay under SQLite's bound-variable limit and MySQL's packet
 * size whatever the number of rows.
 */
export function* chunks<T>(items: T[], size = 400): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
