// Body limits (`x-body-limit`, spec/README.md) (413 payload_too_large before any work) and the per-project rate limit,
// shared by every server process on one database.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { migrate, openDb, WAL_CHECKPOINT_PAGES, type Db } from '../../server/infra/db.js';
import { countRequest, RATE_LIMIT, WINDOW_MS, windowStart } from '../../server/infra/ratelimit.js';
import { awayFromWindowEdge } from '../helpers/rate-window.js';
import { createTestProject, startTestService, type TestService } from '../helpers/service.js';
import { json, type ApiError } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

async function post(url: string, key: string, body: string, method = 'POST') {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, body: await json<ApiError>(res) };
}

/** A JSON body of exactly `size` bytes. */
const bodyOf = (size: number, field = 'pad') => {
  const shell = JSON.stringify({ [field]: '' });
  return JSON.stringify({ [field]: 'x'.repeat(size - shell.length) });
};

test('each route answers 413 payload_too_large just over its body limit, and reads a body at the limit', async (t) => {
  const p = await createTestProject(svc);
  const cases: Array<[string, string, number]> = [
    ['POST', '/translate', 1024 * 1024],
    ['POST', '/sync', 4 * 1024 * 1024],
    ['PUT', '/content/doc-1', 256 * 1024],
    ['POST', '/content', 256 * 1024],
  ];
  for (const [method, path, limit] of cases) {
    const url = `${svc.baseUrl}/projects/${p.projectId}${path}`;
    const over = await post(url, p.apiKey, bodyOf(limit + 1), method);
    t.is(over.status, 413, `${path} over`);
    t.deepEqual(over.body.error, 'payload_too_large');
    t.is(typeof over.body.message, 'string');
    const at = await post(url, p.apiKey, bodyOf(limit), method);
    t.not(at.status, 413, `${path} at the limit is read (${at.status} ${at.body.error})`);
    t.is(at.body.error, 'invalid_argument', `${path}: the body at the limit reached validation`);
  }
});

test('unknown routes and methods answer 404 not_found in the error format', async (t) => {
  for (const [method, path] of [
    ['GET', '/v1/nope'],
    ['DELETE', '/v1/pricing'],
    ['GET', '/v2/pricing'],
  ]) {
    const res = await fetch(`${svc.baseUrl.replace('/v1', '')}${path}`, { method });
    t.is(res.status, 404, path);
    t.deepEqual(Object.keys(await json<ApiError>(res)).sort(), ['error', 'message']);
  }
});

test('the rate limit is one window per project across two server instances on one database', async (t) => {
  const second = await startTestService({}, svc.service.app.config.databaseUrl);
  try {
    const p = await createTestProject(svc, { scopes: ['read'] });
    const other = await createTestProject(svc, { scopes: ['read'] });
    await awayFromWindowEdge();
    const urls = [svc.baseUrl, second.baseUrl];
    const total = RATE_LIMIT + 30;
    const results = await Promise.all(
      Array.from({ length: total }, (_, i) =>
        fetch(`${urls[i % 2]}/projects/${p.projectId}/credential`, {
          headers: { authorization: `Bearer ${p.apiKey}` },
        }).then(async (r) => ({
          status: r.status,
          retry: r.headers.get('retry-after'),
          body: await json<ApiError>(r),
        })),
      ),
    );
    const ok = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.status === 429);
    t.is(ok, RATE_LIMIT);
    t.is(limited.length, total - RATE_LIMIT);
    for (const r of limited) {
      t.is(r.retry, '60');
      t.is(r.body.error, 'rate_limited');
    }
    // Other routes of the same project share the window; another project has its own.
    const meta = await fetch(`${second.baseUrl}/projects/${p.projectId}/meta`, {
      headers: { authorization: `Bearer ${p.apiKey}` },
    });
    t.is(meta.status, 429);
    const fresh = await other.client.GET('/projects/{projectId}/credential', {
      params: { path: { projectId: other.projectId } },
    });
    t.is(fresh.response.status, 200);
    // /pricing has no application rate limit.
    const pricing = await Promise.all(
      Array.from({ length: RATE_LIMIT + 10 }, () => fetch(`${svc.baseUrl}/pricing`).then((r) => r.status)),
    );
    t.true(pricing.every((s) => s === 200));
  } finally {
    await second.service.stop();
  }
});

// Serial (AVA runs serial tests before the others): its run-due, at a simulated now past every real window, sweeps
// the windows of every project, and the window counts of a test running beside it would vanish.
test.serial('a new window opens after 60 seconds, and the sweep drops old windows', async (t) => {
  const db = svc.service.app.db;
  const start = 1_800_000_000_000 - (1_800_000_000_000 % WINDOW_MS);
  t.is(await countRequest(db, 'p_window', start), 1);
  t.is(await countRequest(db, 'p_window', start + WINDOW_MS - 1), 2);
  t.is(await countRequest(db, 'p_window', start + WINDOW_MS), 1);
  const run = await svc.admin.POST('/jobs/run-due', { body: { now: new Date(start + 3 * WINDOW_MS).toISOString() } });
  t.is(run.response.status, 200);
  t.is((await db('rate_windows').where({ project_id: 'p_window' })).length, 0);
});

test('only a live key acting on its own project is counted, and /operations shares its project window', async (t) => {
  const db = svc.service.app.db;
  const p = await createTestProject(svc, { scopes: ['admin'] });
  const other = await createTestProject(svc, { scopes: ['admin'] });
  await awayFromWindowEdge();
  const count = async () =>
    Number(
      (
        await db('rate_windows')
          .where({ project_id: p.projectId, window_start: windowStart(Date.now()) })
          .first()
      )?.count ?? 0,
    );
  const get = (path: string, key: string) =>
    fetch(`${svc.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  // A forged secret under a real key id, and a real key aimed at another project, never touch the window.
  const forged = p.apiKey.slice(0, -4) + (p.apiKey.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  t.is((await get(`/projects/${p.projectId}/credential`, forged)).status, 401);
  t.is((await get(`/projects/${other.projectId}/credential`, p.apiKey)).status, 404);
  t.is(await count(), 0);
  t.is((await get(`/projects/${p.projectId}/credential`, p.apiKey)).status, 200);
  // Admitted (whatever the operations group then answers): neither 401 nor 429.
  t.false([401, 429].includes((await get('/operations/op_unknown', p.apiKey)).status));
  t.is(await count(), 2, 'a project route and an authenticated /operations call count in one window');
  // With the window spent, /operations is refused too; another project's key is not.
  await db('rate_windows')
    .where({ project_id: p.projectId, window_start: windowStart(Date.now()) })
    .update({ count: RATE_LIMIT });
  const refused = await get('/operations/op_unknown', p.apiKey);
  t.is(refused.status, 429);
  t.is(refused.headers.get('retry-after'), '60');
  t.is((await json<ApiError>(refused)).error, 'rate_limited');
  t.false([401, 429].includes((await get('/operations/op_unknown', other.apiKey)).status));
});

/** A migrated SQLite database on a file of its own (whatever TEST_DB says: SQLite is the embedded default). */
async function withSqliteFile(run: (db: Db, file: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'glossa-sqlite-'));
  const file = path.join(dir, 'service.db');
  const db = openDb(`sqlite://${file}`);
  try {
    await migrate(db);
    await run(db, file);
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the SQLite write-ahead log is checkpointed under a stream of rate-window writes', (t) =>
  withSqliteFile(async (db, file) => {
    // A RETURNING statement stepped only to its first row commits on reset, where SQLite never runs its
    // auto-checkpoint: the WAL then grows by a page per request, forever.
    // About a page per write: two and a half checkpoints' worth, so a WAL never checkpointed would hold them all.
    const writes = Math.round(2.5 * WAL_CHECKPOINT_PAGES);
    const start = Date.now();
    for (let i = 0; i < writes; i++) await countRequest(db, `p_${i % 50}`, start);
    t.is(await countRequest(db, 'p_0', start), writes / 50 + 1);
    // A WAL that is checkpointed and restarted stays near WAL_CHECKPOINT_PAGES pages of 4 KiB (plus frame headers).
    const walPages = statSync(`${file}-wal`).size / 4120;
    t.true(walPages < 1.5 * WAL_CHECKPOINT_PAGES, `the WAL holds ${walPages.toFixed(0)} pages after ${writes} writes`);
  }));

test('a WAL grown past a few MB is checkpointed by a thread, with no statement on the event loop', (t) =>
  withSqliteFile(async (db, file) => {
    await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
    await db.schema.createTable('wal_probe', (table) => table.binary('b'));
    const before = statSync(file).size;
    // 6 MB in one commit: past the thread's 4 MB, under the writer's own auto-checkpoint (WAL_CHECKPOINT_PAGES).
    await db.transaction(async (trx) => {
      for (let i = 0; i < 60; i++) await trx('wal_probe').insert({ b: randomBytes(100_000) });
    });
    t.true(statSync(`${file}-wal`).size < WAL_CHECKPOINT_PAGES * 4096, 'the writer did not checkpoint');
    t.is(statSync(file).size, before, 'the pages are in the WAL only');
    // Nothing runs on this connection meanwhile: only a checkpoint elsewhere copies the pages into the file.
    const deadline = Date.now() + 10_000;
    while (statSync(file).size < before + 6_000_000 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    t.true(statSync(file).size >= before + 6_000_000, `the file holds ${statSync(file).size - before} bytes more`);
  }));

test('a transaction that reads and then writes is not broken by a hot write committing in between', (t) =>
  withSqliteFile(async (db) => {
    // A deferred transaction would fail its first write with SQLITE_BUSY_SNAPSHOT once another connection had
    // committed after its first read.
    const start = Date.now();
    t.is(await countRequest(db, 'p_hot', start), 1, 'the hot connection is open');
    let hot: Promise<number> | undefined;
    await db.transaction(async (trx) => {
      t.is((await trx('rate_windows').select('*')).length, 1);
      hot = countRequest(db, 'p_hot', start);
      await new Promise((r) => setTimeout(r, 30));
      await trx('rate_windows').insert({ project_id: 'p_trx', window_start: start, count: 1 });
    });
    t.is(await hot, 2, 'the hot write waited for the transaction and then counted');
    t.is((await db('rate_windows').where({ project_id: 'p_trx' })).length, 1);
  }));
