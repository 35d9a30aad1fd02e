// Pre-translation from the translation memory at scale: 100,000 keys x 10 languages pushed (POST /translate, 500
// units a push) into projects of a workspace whose memory already holds every one of those sources in the 10
// languages (seeded by bulk inserts: an imported memory), so that every pair is filled from the memory at no charge
// and nothing is queued. The pushes go to two projects, 50,000 keys each, to stay within the API's 120 requests a
// minute per project. Baseline: the same pushes into two projects whose memory is off (every pair queued for the
// AI fill, which is not run). SQLite, and MySQL/MariaDB when MYSQL_URL is set. Target: at most 60 s in all.
// It also reports what the entries the pushes wrote (server/domain/memory/entries.ts, the production path) added
// to the memory's tables, against the text of those values. BENCH_MEMORY_KEYS changes the 100,000.
import type { Scenario } from './lib/compare.js';
import { stop } from './lib/servers.js';
import { TARGETS_10 } from './lib/languages.js';
import { corpus, memoryBytes, scenarioDatabase, seedMemory, seedProjects, startApi } from './lib/memory.js';
import { openDb } from '../server/infra/db.js';

const KEYS = Number(process.env.BENCH_MEMORY_KEYS ?? 100_000);
const PUSH = 500;
const LIMIT_S = 60;

interface Outcome {
  seconds: number;
  baselineSeconds: number;
  filled: number;
  charged: number;
  addedBytes: number;
  addedText: number;
}

type Project = { projectId: string; apiKey: string };

/** Pushes `sources` into `targets` in turn, 500 units a push; seconds, and the pairs answered translated. */
async function pushAll(
  base: string,
  targets: Project[],
  sources: string[],
): Promise<{ seconds: number; translated: number }> {
  let translated = 0;
  const t0 = performance.now();
  for (let from = 0, n = 0; from < sources.length; from += PUSH, n++) {
    const p = targets[n % targets.length];
    const units = sources.slice(from, from + PUSH).map((source) => ({ source }));
    const res = await fetch(`${base}/projects/${p.projectId}/translate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ units }),
    });
    const body = (await res.json()) as { units?: Array<{ translated: string[] }> };
    if (res.status !== 200) throw new Error(`push answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    for (const u of body.units!) translated += u.translated.length;
  }
  return { seconds: (performance.now() - t0) / 1000, translated };
}

async function measure(kind: 'sqlite' | 'mysql'): Promise<Outcome> {
  const database = await scenarioDatabase(kind, 'mempre');
  try {
    const { projects } = seedProjects(database.url, database.dataDir, { langs: TARGETS_10, projects: 4 });
    const db = openDb(database.url);
    const { workspace_id: scope } = (await db('projects').where({ id: projects[0].projectId }).first('workspace_id'))!;
    // The baseline's projects read and write no memory.
    await db('projects')
      .whereIn('id', [projects[2].projectId, projects[3].projectId])
      .update({ memory_sharing: 'off' });
    const c = corpus(11);
    const seen = new Set<string>();
    const sources: string[] = [];
    while (sources.length < KEYS) {
      const s = c.sentence();
      if (!seen.has(s)) sources.push(s);
      seen.add(s);
    }
    await seedMemory(db, database.url, {
      scope,
      projectId: null,
      sources,
      langs: TARGETS_10,
      origin: 'import',
      status: 'translated',
    });
    const before = await memoryBytes(database.url);
    const api = await startApi(database.url, database.dataDir);
    try {
      const ours = await pushAll(api.info.base, projects.slice(0, 2), sources);
      const after = await memoryBytes(database.url);
      const base = await pushAll(api.info.base, projects.slice(2), sources);
      const check = openDb(database.url);
      try {
        const ids = [projects[0].projectId, projects[1].projectId];
        const { n } = await check('translations')
          .whereIn('project_id', ids)
          .where({ origin: 'memory', status: 'translated' })
          .first<{ n: number | string }>(check.raw('COUNT(*) AS n'));
        const { text } = await check('translations')
          .whereIn('project_id', ids)
          .first<{ text: number | string }>(check.raw('SUM(LENGTH(value)) AS text'));
        const { mc } = await check('fill_jobs')
          .whereIn('project_id', ids)
          .first<{ mc: number | string | null }>(check.raw('SUM(estimated_mc) AS mc'));
        if (ours.translated !== KEYS * TARGETS_10.length || Number(n) !== KEYS * TARGETS_10.length)
          throw new Error(`pre-translation incomplete: ${ours.translated} answered, ${n} stored`);
        return {
          seconds: ours.seconds,
          baselineSeconds: base.seconds,
          filled: Number(n),
          charged: Number(mc ?? 0),
          addedBytes: after - before,
          addedText: Number(text),
        };
      } finally {
        await check.destroy();
      }
    } finally {
      await stop(api);
    }
  } finally {
    await database.drop();
  }
}

const describe = (kind: string, o: Outcome) =>
  `${kind}: ${o.seconds.toFixed(1)} s for ${o.filled.toLocaleString('en')} pairs filled from the memory ` +
  `(${(o.filled / o.seconds).toFixed(0)} pairs/s), ${o.charged} mc held; their entries added ` +
  `${(o.addedBytes / 1e6).toFixed(0)} MB to the memory for ${(o.addedText / 1e6).toFixed(0)} MB of values ` +
  `(${(o.addedBytes / o.addedText).toFixed(2)}x)`;

export const scenario: Scenario = {
  name: `Translation memory: pre-translating ${KEYS.toLocaleString('en')} keys x 10 languages from the memory, 500-unit pushes (s)`,
  async run() {
    // BENCH_MEMORY_DB=mysql (or sqlite) measures one database only.
    const only = process.env.BENCH_MEMORY_DB;
    const results: Array<[string, Outcome]> = [];
    if (only !== 'mysql') results.push(['SQLite', await measure('sqlite')]);
    if (process.env.MYSQL_URL && only !== 'sqlite') results.push(['MySQL', await measure('mysql')]);
    const worst = Math.max(...results.map(([, o]) => o.seconds));
    return {
      figure: results.map(([k, o]) => describe(k, o)).join('; '),
      baseline: results
        .map(([k, o]) => `${k}: ${o.baselineSeconds.toFixed(1)} s for the same pushes with the memory off (all queued)`)
        .join('; '),
      ratio: worst / Math.max(...results.map(([, o]) => o.baselineSeconds)),
      target: `<= ${LIMIT_S} s on each database${process.env.MYSQL_URL ? '' : ' (MySQL not measured: MYSQL_URL unset)'}`,
      met: worst <= LIMIT_S && results.every(([, o]) => o.charged === 0),
    };
  },
};
