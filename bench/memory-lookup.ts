// A translation-memory suggestion lookup (GET /projects/{id}/memory) at 1,000,000 entries: a workspace memory of
// 100,000 sources x 10 languages imported into the workspace (bench/lib/memory.ts: Zipf-distributed UI strings, seeded by bulk inserts), asked
// 300 times in a row over HTTP, half for a copy edit of a stored source (one word changed), half for a new string.
// Baseline: GET /meta on the same server (the floor of an authenticated read). On SQLite, and on MySQL/MariaDB
// when MYSQL_URL is set. Target: p95 at most 50 ms on each. It also reports what the memory's tables take against
// the text they hold (the source and target strings), the size figure of docs/decisions/0021-translation-memory.md.
// BENCH_MEMORY_SOURCES changes the 100,000.
import { percentile, type Scenario } from './lib/compare.js';
import { stop } from './lib/servers.js';
import { TARGETS_10 } from './lib/languages.js';
import { corpus, memoryBytes, scenarioDatabase, seedMemory, seedProjects, startApi } from './lib/memory.js';
import { openDb } from '../server/infra/db.js';

const SOURCES = Number(process.env.BENCH_MEMORY_SOURCES ?? 100_000);
const QUERIES = 300;
const LIMIT_MS = 50;
const PROJECTS = 8;

interface Outcome {
  p50: number;
  p95: number;
  metaP95: number;
  found: number;
  seedSeconds: number;
  memoryBytes: number;
  textBytes: number;
}

async function measure(kind: 'sqlite' | 'mysql'): Promise<Outcome> {
  const database = await scenarioDatabase(kind, 'memlookup');
  try {
    // Projects of one workspace share its memory; the requests are spread over them, each within its 120 a minute.
    const { projects } = seedProjects(database.url, database.dataDir, { langs: TARGETS_10, projects: PROJECTS });
    const { projectId } = projects[0];
    const db = openDb(database.url);
    const { workspace_id: scope } = (await db('projects').where({ id: projectId }).first('workspace_id'))!;
    const c = corpus();
    const sources = Array.from({ length: SOURCES }, () => c.sentence());
    const t0 = performance.now();
    const textBytes = await seedMemory(db, database.url, {
      scope,
      // Entries imported into the workspace's memory (a TMX file): no project, no key.
      projectId: null,
      sources,
      langs: TARGETS_10,
      origin: 'import',
      status: 'translated',
    });
    const seedSeconds = (performance.now() - t0) / 1000;
    const bytes = await memoryBytes(database.url);
    const api = await startApi(database.url, database.dataDir);
    try {
      let turn = 0;
      const next = () => projects[turn++ % PROJECTS];
      const queries = Array.from({ length: QUERIES }, (_, i) =>
        i % 2 ? c.edit(sources[Math.floor(c.random() * SOURCES)]) : c.sentence(),
      );
      const ask = async (q: string) => {
        const p = next();
        const t = performance.now();
        const res = await fetch(
          `${api.info.base}/projects/${p.projectId}/memory?${new URLSearchParams({ lang: 'de', source: q })}`,
          { headers: { authorization: `Bearer ${p.apiKey}` } },
        );
        const body = (await res.json()) as { matches?: Array<{ score: number }> };
        if (res.status !== 200) throw new Error(`lookup answered ${res.status}: ${JSON.stringify(body)}`);
        return { ms: performance.now() - t, found: (body.matches?.length ?? 0) > 0 };
      };
      // A warm-up (JIT, caches), not counted.
      for (const q of queries.slice(0, 20)) await ask(q);
      const times: number[] = [];
      let found = 0;
      for (const q of queries) {
        const r = await ask(q);
        times.push(r.ms);
        if (r.found) found++;
      }
      const meta: number[] = [];
      for (let i = 0; i < QUERIES; i++) {
        const p = next();
        const t = performance.now();
        const res = await fetch(`${api.info.base}/projects/${p.projectId}/meta`, {
          headers: { authorization: `Bearer ${p.apiKey}` },
        });
        await res.arrayBuffer();
        meta.push(performance.now() - t);
      }
      return {
        p50: percentile(times, 50),
        p95: percentile(times, 95),
        metaP95: percentile(meta, 95),
        found,
        seedSeconds,
        memoryBytes: bytes,
        textBytes,
      };
    } finally {
      await stop(api);
    }
  } finally {
    await database.drop();
  }
}

const describe = (kind: string, o: Outcome) =>
  `${kind}: p95 ${o.p95.toFixed(1)} ms, p50 ${o.p50.toFixed(1)} ms (${o.found}/${QUERIES} with a match); ` +
  `memory tables ${(o.memoryBytes / 1e6).toFixed(0)} MB for ${(o.textBytes / 1e6).toFixed(0)} MB of text ` +
  `(${(o.memoryBytes / o.textBytes).toFixed(2)}x), seeded in ${o.seedSeconds.toFixed(0)} s`;

export const scenario: Scenario = {
  name: `Translation memory: GET /memory at ${(SOURCES * TARGETS_10.length).toLocaleString('en')} entries (${SOURCES.toLocaleString('en')} sources x 10 languages), p95 (ms)`,
  async run() {
    // BENCH_MEMORY_DB=mysql (or sqlite) measures one database only.
    const only = process.env.BENCH_MEMORY_DB;
    const results: Array<[string, Outcome]> = [];
    if (only !== 'mysql') results.push(['SQLite', await measure('sqlite')]);
    if (process.env.MYSQL_URL && only !== 'sqlite') results.push(['MySQL', await measure('mysql')]);
    const worst = Math.max(...results.map(([, o]) => o.p95));
    return {
      figure: results.map(([k, o]) => describe(k, o)).join('; '),
      baseline: results.map(([k, o]) => `${k}: GET /meta p95 ${o.metaP95.toFixed(1)} ms`).join('; '),
      ratio: worst / Math.max(...results.map(([, o]) => o.metaP95)),
      target: `p95 <= ${LIMIT_MS} ms on each database${process.env.MYSQL_URL ? '' : ' (MySQL not measured: MYSQL_URL unset)'}`,
      met: worst <= LIMIT_MS,
    };
  },
};
