// Scale-out stays honest. On MySQL/MariaDB (MYSQL_URL; each setup creates and drops a database of
// its own), a project of BENCH_SCALEOUT_KEYS keys (default 50,000) x 40 languages, every pair pending and queued
// as pushes of 500 keys would queue them (lib/seed.ts), is filled and then published through the public API by:
//   one:   one API process with inline workers (the default service);
//   fleet: two API processes with WORKERS=off and two `npm run worker` processes (scripts/worker.ts).
// Both must end with the same results (translated cells and their values, credits charged, the version's key
// count); the figure is the fleet's fill throughput against the single process's. Only with BENCH_SCALE=1.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory from 'knex';
import type { Scenario } from './lib/compare.js';
import { openDb } from '../server/infra/db.js';
import type { components } from '../generated/openapi.js';
import { json } from './lib/http.js';
import { SEED, SERVERS, spawnServer, stop } from './lib/servers.js';
import { fillState } from './lib/fill.js';
import { FILL_TARGETS_40 } from './lib/languages.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const KEYS = Number(process.env.BENCH_SCALEOUT_KEYS ?? 50_000);
const NAME = `Scale-out on MySQL: fill and publish of ${KEYS.toLocaleString('en')} keys x 40 languages, 2 API + 2 worker processes vs 1 process (pairs/s)`;

interface ApiInfo {
  base: string;
  adminUrl: string;
}

interface Outcome {
  fillSeconds: number;
  publishSeconds: number;
  translated: number;
  /** Sum of CRC32(key name | lang | value) over the translated cells: the same values, not only as many. */
  digest: string;
  chargedMc: number;
  keyCount: number;
}

async function createDatabase(name: string): Promise<string> {
  const base = process.env.MYSQL_URL!;
  const admin = knexFactory({ client: 'mysql2', connection: base });
  await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
  await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await admin.destroy();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

async function dropDatabase(name: string): Promise<void> {
  const admin = knexFactory({ client: 'mysql2', connection: process.env.MYSQL_URL! });
  await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
  await admin.destroy();
}

/** A `npm run worker` process, once it polls (it prints so after opening the database). */
async function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/worker.ts')], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes(' polling ')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
  });
  return child;
}

/** Seeds, starts the processes, fills, publishes, reads the results back. */
async function runSetup(fleet: boolean): Promise<Outcome> {
  const dbName = `glossa_bench_scaleout_${fleet ? 'fleet' : 'one'}_${process.pid}`;
  const databaseUrl = await createDatabase(dbName);
  // One data folder per setup: its processes share the object store, as a fleet shares a bucket.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'glossa-bench-scaleout-'));
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ADMIN_TOKEN: 'bench',
  };
  const children: ChildProcess[] = [];
  try {
    const seedOut = path.join(dataDir, 'seed.json');
    execFileSync(process.execPath, ['--import', 'tsx', SEED], {
      env: {
        ...env,
        SEED_OUT: seedOut,
        BENCH_LANGS: FILL_TARGETS_40.join(','),
        BENCH_SCOPES: 'admin',
        BENCH_PENDING_KEYS: String(KEYS),
        BENCH_PENDING_HOLD: '1',
      },
      stdio: 'inherit',
    });
    const { projects } = JSON.parse(readFileSync(seedOut, 'utf8')) as {
      projects: Array<{ projectId: string; apiKey: string }>;
    };
    const { projectId, apiKey } = projects[0];
    const apis: ApiInfo[] = [];
    for (let i = 0; i < (fleet ? 2 : 1); i++) {
      const api = await spawnServer<ApiInfo>(SERVERS.api, {
        ...env,
        WORKERS: fleet ? 'off' : 'inline',
      });
      children.push(api.child);
      apis.push(api.info);
    }
    if (fleet) for (let i = 0; i < 2; i++) children.push(await startWorker({ ...env, WORKERS: 'off' }));
    const db = openDb(databaseUrl);
    try {
      const t0 = performance.now();
      await db('jobs').where({ kind: 'fill' }).update({ run_at: 0 });
      // Every API process answers while the workers fill: each is asked for the project's state in turn.
      for (let n = 0; (await fillState(databaseUrl)).open; n++) {
        const api = apis[n % apis.length];
        const meta = await fetch(`${api.base}/projects/${projectId}/meta`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        if (meta.status !== 200) throw new Error(`meta answered ${meta.status}`);
        await meta.arrayBuffer();
        await new Promise((r) => setTimeout(r, 250));
      }
      const fillSeconds = (performance.now() - t0) / 1000;
      // The publish through the public API, on the last API process.
      const p0 = performance.now();
      const res = await fetch(`${apis[apis.length - 1].base}/projects/${projectId}/publish`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: '{}',
      });
      const published = await json<components['schemas']['PublishResult'] & { error?: string }>(res);
      if (res.status !== 201)
        throw new Error(`publish answered ${res.status}: ${JSON.stringify(published).slice(0, 300)}`);
      const publishSeconds = (performance.now() - p0) / 1000;
      const [row] = (await db.raw(
        "SELECT COUNT(*) AS n, CAST(COALESCE(SUM(CRC32(CONCAT(k.name, '|', t.lang, '|', t.value))), 0) AS CHAR) AS digest FROM translations t JOIN `keys` k ON k.id = t.key_id WHERE t.status = 'translated' AND t.origin = 'ai'",
      )) as unknown as [Array<{ n: number; digest: string }>];
      const charged = await db('fill_jobs').sum({ mc: 'charged_mc' });
      return {
        fillSeconds,
        publishSeconds,
        translated: Number(row[0].n),
        digest: String(row[0].digest),
        chargedMc: Number(charged[0].mc),
        keyCount: published.keyCount,
      };
    } finally {
      await db.destroy();
    }
  } finally {
    await Promise.all(children.map((child) => stop({ child })));
    await dropDatabase(dbName);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const scenario: Scenario = {
  name: NAME,
  async run() {
    const target = '>= 1 (the fleet at least as fast as one process, same results)';
    if (process.env.BENCH_SCALE !== '1' || !process.env.MYSQL_URL)
      // Not a pass: nothing was measured, and the output says why.
      return {
        figure: 'not measured',
        baseline: 'runs only with BENCH_SCALE=1 and MYSQL_URL (a MySQL/MariaDB server to create databases on)',
        ratio: NaN,
        target,
        met: false,
      };
    const one = await runSetup(false);
    const fleet = await runSetup(true);
    const pairs = KEYS * FILL_TARGETS_40.length;
    const same =
      one.translated === pairs &&
      fleet.translated === one.translated &&
      fleet.digest === one.digest &&
      fleet.chargedMc === one.chargedMc &&
      fleet.keyCount === one.keyCount &&
      one.keyCount === KEYS;
    const describe = (o: Outcome) =>
      `fill ${(pairs / o.fillSeconds).toFixed(0)} pairs/s (${o.fillSeconds.toFixed(1)} s), publish ${o.publishSeconds.toFixed(1)} s; ` +
      `${o.translated} cells translated (digest ${o.digest}), ${o.chargedMc} mc charged, version of ${o.keyCount} keys`;
    const ratio = one.fillSeconds / fleet.fillSeconds;
    return {
      figure: `2 API + 2 workers: ${describe(fleet)}${same ? '' : ' -- RESULTS DIFFER from one process'}`,
      baseline: `1 process, inline workers: ${describe(one)}`,
      ratio,
      target,
      met: same && ratio >= 1,
    };
  },
};
