// A cold publish (straight after a change, as CI does: push, wait, publish) of a seeded
// project, measured from outside through the public API. While it runs, another client asks `GET /pricing` in a
// loop (its latency is what every other tenant of the process sees); after it, the run-due sweep prepares the same
// content. The server's peak resident memory (VmHWM, worker threads included) covers both. The baseline is the
// physical floor of the same work: a raw SELECT of each language's cells, serialized as JSON and written, once per
// output format. One measurement per size serves the three scenarios (bench/publish-*.ts).
//
// Sizes: 10,000 keys x 20 languages by default; with BENCH_SCALE=1, 5,000, 20,000 and 50,000 keys x 40 languages.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { components as internal } from '../../generated/internal.js';
import type { components } from '../../generated/openapi.js';
import { percentile } from './compare.js';
import { json } from './http.js';
import { TARGETS_39 } from './languages.js';
import { startService, stop } from './servers.js';

/** The parts of better-sqlite3 the floor uses (the package ships no types). */
type Sqlite = new (
  file: string,
  opts: { readonly: boolean },
) => { prepare(sql: string): { all(...params: unknown[]): unknown[] }; close(): void };
const Database = createRequire(import.meta.url)('better-sqlite3') as Sqlite;

const SCALE = process.env.BENCH_SCALE === '1';
/** [keys, languages including the base] */
const SIZES: Array<[number, number]> = SCALE
  ? [
      [5_000, 40],
      [20_000, 40],
      [50_000, 40],
    ]
  : [[10_000, 20]];

interface PublishRun {
  keys: number;
  langs: number;
  coldMs: number;
  floorMs: number;
  /** GET /pricing while the publish ran: p99 and max (ms), and how many were answered. */
  pricingP99: number;
  pricingMax: number;
  pricingCount: number;
  /**
   * The server's own event-loop delay while the publish ran (internal GET /debug/metrics): p99 and max (ms). Beside
   * the probe's latencies it tells a stall of the loop from a core taken by the publish's thread or another process.
   */
  loopP99: number;
  loopMax: number;
  /** GET /pricing on the idle server, p99 (ms). */
  idleP99: number;
  /** Peak resident memory of the server process after the publish and the prepare (MiB). */
  peakMiB: number;
  /** Resident memory once started, before any publish (MiB). */
  startMiB: number;
}

function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** Probe requests that found their keep-alive socket closed by the server (not counted as latencies). */
export let resets = 0;

/**
 * GET /pricing every 10 ms until `stop` resolves, each sent on time whether or not the last one was answered (an
 * open loop: a stall of the server delays every request sent during it, as it would real clients'); the latencies
 * in ms.
 */
async function probe(url: string, stop: Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  const inFlight: Array<Promise<void>> = [];
  let done = false;
  void stop.finally(() => (done = true));
  const one = async () => {
    const t0 = performance.now();
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      out.push(performance.now() - t0);
    } catch (err) {
      // A reset keep-alive socket is the client's to retry; anything else would fail the publish too.
      if ((err as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw err;
      resets++;
    }
  };
  while (!done) {
    inFlight.push(one());
    await new Promise((r) => setTimeout(r, 10));
  }
  await Promise.all(inFlight);
  return out;
}

/** The server's event-loop delay since the last call (which resets it). */
async function loopDelay(adminUrl: string) {
  const res = await fetch(`${adminUrl}/debug/metrics?reset=true`, { headers: { authorization: 'Bearer bench' } });
  if (res.status !== 200) throw new Error(`metrics answered ${res.status}`);
  return (await json<internal['schemas']['DebugMetrics']>(res)).eventLoopDelay;
}

/** The floor: each language's cells (the base's sources) read with one raw SELECT, serialized, written once per format. */
async function floorOf(dbFile: string, projectId: string, langs: string[], formats: number): Promise<number> {
  const out = mkdtempSync(path.join(os.tmpdir(), 'glossa-floor-'));
  const db = new Database(dbFile, { readonly: true });
  try {
    const t0 = performance.now();
    const stmt = db.prepare(
      'SELECT k.name AS name, t.value AS value FROM translations t JOIN keys k ON k.id = t.key_id WHERE t.project_id = ? AND t.lang = ?',
    );
    const base = db.prepare('SELECT name, source AS value FROM keys WHERE project_id = ?');
    for (const lang of [null, ...langs]) {
      const rows = (lang === null ? base.all(projectId) : stmt.all(projectId, lang)) as Array<{
        name: string;
        value: string;
      }>;
      const file: Record<string, string> = {};
      for (const r of rows) file[r.name] = r.value;
      const body = JSON.stringify(file);
      for (let f = 0; f < formats; f++) await writeFile(path.join(out, `${lang}.${f}.json`), body);
    }
    return performance.now() - t0;
  } finally {
    db.close();
    rmSync(out, { recursive: true, force: true });
  }
}

async function measure(keys: number, langCount: number): Promise<PublishRun> {
  const langs = TARGETS_39.slice(0, langCount - 1);
  const svc = await startService({
    BENCH_LANGS: langs.join(','),
    BENCH_SCOPES: 'admin',
    BENCH_SEED_KEYS: String(keys),
    BENCH_FORMATS: 'json,android_xml',
  });
  const pid = svc.child.pid!;
  const { projectId, apiKey } = svc.info.projects[0];
  const pricing = `${svc.info.base}/pricing`;
  try {
    const idle = await probe(pricing, new Promise((r) => setTimeout(r, 1_000)));
    const startMiB = memoryOf(pid).rss;
    await loopDelay(svc.info.adminUrl);
    const t0 = performance.now();
    const publishing = fetch(`${svc.info.base}/projects/${projectId}/publish`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const during = probe(pricing, publishing);
    const res = await publishing;
    const coldMs = performance.now() - t0;
    const body = await json<components['schemas']['PublishResult']>(res);
    if (res.status !== 201 || body.keyCount !== keys)
      throw new Error(`publish failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    const latencies = await during;
    const loop = await loopDelay(svc.info.adminUrl);
    // The prepare of the same content (run-due told the quiet delay has passed), within the same peak.
    const due = await fetch(`${svc.info.adminUrl}/jobs/run-due`, {
      method: 'POST',
      headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
      body: JSON.stringify({ now: new Date(Date.now() + 60_000).toISOString() }),
    });
    if (due.status !== 200) throw new Error(`run-due failed: ${due.status} ${await due.text()}`);
    const peakMiB = memoryOf(pid).hwm;
    const floorMs = await floorOf(svc.info.databaseUrl.replace('sqlite://', ''), projectId, langs, 2);
    return {
      keys,
      langs: langCount,
      coldMs,
      floorMs,
      pricingP99: percentile(latencies, 99),
      pricingMax: Math.max(...latencies),
      pricingCount: latencies.length,
      loopP99: loop.p99Ms,
      loopMax: loop.maxMs,
      idleP99: percentile(idle, 99),
      peakMiB,
      startMiB,
    };
  } finally {
    await stop(svc);
  }
}

let runs: Promise<PublishRun[]> | null = null;

/** Every size, measured once for all three scenarios. */
export function publishRuns(): Promise<PublishRun[]> {
  runs ??= (async () => {
    const out: PublishRun[] = [];
    for (const [keys, langs] of SIZES) out.push(await measure(keys, langs));
    return out;
  })();
  return runs;
}

export const sizeLabel = (r: PublishRun) => `${r.keys.toLocaleString('en')} x ${r.langs}`;
