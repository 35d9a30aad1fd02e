// A push (POST /translate) of 500 new units x 10 languages into a project that already holds
// keys, against the floor of the same writes: the same rows (500 keys, 5,000 pending cells, the fill job, its
// 5,000 pairs and the queue entry) inserted by better-sqlite3 directly, prepared statements, one transaction,
// into the same database file. Rounds alternate (push, raw insert, push, ...) and medians are compared.
// Target: at most 5x. BENCH_SCALE=1 seeds 25,000 keys instead of 5,000.
import { createRequire } from 'node:module';
import { alternate, list, median, type Scenario } from './lib/compare.js';
import type { components } from '../generated/openapi.js';
import { json } from './lib/http.js';
import { TARGETS_10 } from './lib/languages.js';
import { startService, stop } from './lib/servers.js';

/** The parts of better-sqlite3 used here (the package ships no types). */
interface RawDb {
  prepare(sql: string): {
    run(...params: unknown[]): { lastInsertRowid: number | bigint };
    get(...p: unknown[]): unknown;
  };
  pragma(text: string): unknown;
  transaction(fn: () => void): { immediate(): void };
  close(): void;
}
const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => RawDb;

const LANGS = TARGETS_10;
const UNITS = 500;
const ROUNDS = 5;
const SEED_KEYS = process.env.BENCH_SCALE === '1' ? 25_000 : 5_000;

const source = (tag: string, i: number) => `${tag} string ${i}: open the {item} settings`;

/** The rows a push of `UNITS` new units writes, written as plainly as SQLite allows. */
function rawInsert(db: RawDb, projectId: string, workspaceId: string, tag: string): void {
  const now = Date.now();
  const key = db.prepare(
    `INSERT INTO keys (project_id, name, token, source, forms, ctx, enabled, source_verified, captured, created_by,
       source_updated_at, created_at, updated_at) VALUES (?, ?, ?, ?, NULL, NULL, 1, 0, 0, 'bench', ?, ?, ?)`,
  );
  const cell = db.prepare(
    `INSERT INTO translations (key_id, lang, project_id, value, status, origin, job_id, updated_at)
       VALUES (?, ?, ?, NULL, 'pending', NULL, ?, ?)`,
  );
  const job = db.prepare(
    `INSERT INTO fill_jobs (tracking_token, project_id, workspace_id, status, estimated_mc, held_mc, charged_mc, total,
       translated, failed, created_at, updated_at) VALUES (?, ?, ?, 'queued', ?, ?, 0, ?, 0, 0, ?, ?)`,
  );
  const pair = db.prepare(
    `INSERT INTO fill_pairs (job_id, key_id, lang, state, cost_mc) VALUES (?, ?, ?, 'pending', ?)`,
  );
  const queue = db.prepare(
    `INSERT INTO jobs (kind, payload, state, run_at, attempts, max_attempts, unique_key, created_at, updated_at)
       VALUES ('fill', ?, 'queued', ?, 0, 5, NULL, ?, ?)`,
  );
  db.transaction(() => {
    const total = UNITS * LANGS.length;
    const jobId = Number(
      job.run(`trk_raw_${tag}`, projectId, workspaceId, total * 40, total * 40, total, now, now).lastInsertRowid,
    );
    for (let i = 0; i < UNITS; i++) {
      const keyId = Number(
        key.run(projectId, `raw_${tag}_${i}`, `r${tag}x${i}`.padEnd(32, 'x'), source(tag, i), now, now, now)
          .lastInsertRowid,
      );
      for (const lang of LANGS) {
        cell.run(keyId, lang, projectId, jobId, now);
        pair.run(jobId, keyId, lang, 40);
      }
    }
    queue.run(JSON.stringify({ jobId }), now, now, now);
  }).immediate();
}

export const scenario: Scenario = {
  name: `POST /translate, ${UNITS} new units x ${LANGS.length} languages into ${SEED_KEYS} keys, vs raw better-sqlite3 insert of the same rows (ms)`,
  async run() {
    const svc = await startService({
      BENCH_LANGS: LANGS.join(','),
      BENCH_SCOPES: 'admin',
      BENCH_SEED_KEYS: String(SEED_KEYS),
    });
    const { projectId, apiKey } = svc.info.projects[0];
    const db = new Database(svc.info.databaseUrl.replace(/^sqlite:\/\//, ''));
    db.pragma('busy_timeout = 5000');
    db.pragma('synchronous = NORMAL');
    const { workspace_id: workspaceId } = db
      .prepare('SELECT workspace_id FROM projects WHERE id = ?')
      .get(projectId) as {
      workspace_id: string;
    };
    const push = async (round: number) => {
      const units = Array.from({ length: UNITS }, (_, i) => ({ source: source(`Round ${round}`, i) }));
      const t0 = performance.now();
      const res = await fetch(`${svc.info.base}/projects/${projectId}/translate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ units }),
      });
      const body = await json<components['schemas']['TranslateResult']>(res);
      const ms = performance.now() - t0;
      if (
        res.status !== 200 ||
        body.units.length !== UNITS ||
        body.units.some((u) => u.pending.length !== LANGS.length)
      )
        throw new Error(`push failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      return ms;
    };
    const insert = (round: number) => {
      const t0 = performance.now();
      rawInsert(db, projectId, workspaceId, round < 0 ? 'warm' : String(round));
      return Promise.resolve(performance.now() - t0);
    };
    let rounds;
    try {
      // A warm-up round of both (JIT, page cache), not counted.
      rounds = await alternate({ ours: push, raw: insert }, { rounds: ROUNDS, warmup: 1 });
    } finally {
      db.close();
      await stop(svc);
    }
    const { ours, raw } = rounds;
    const a = median(ours);
    const b = median(raw);

    return {
      figure: `${a.toFixed(1)} ms per push (rounds: ${list(ours)})`,
      baseline: `${b.toFixed(1)} ms per raw insert (rounds: ${list(raw)})`,
      ratio: a / b,
      target: '<= 5',
    };
  },
};
