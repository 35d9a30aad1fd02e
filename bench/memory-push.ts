// What the translation memory costs a push: 500 new units x 10 languages pushed (POST /translate) and filled by the
// pseudo engine (run-due until the job is done), into a project whose memory is on (shared, in a workspace memory
// of 100,000 sources x 10 languages: the push looks every pair up, the fill asks the memory for references and
// writes every value as an entry) against the same into a project of the same workspace whose memory is off.
// Rounds alternate (on, off, off, on, ...), medians compared. The figure is the push's (POST /translate, what the
// caller waits for; target: at most 1.2x); the push and its fill together are reported beside it: with the pseudo
// engine, which costs next to nothing, the memory's lookups and writes are most of a fill (an LLM's answers take
// seconds per batch). SQLite.
import { alternate, list, median, type Scenario } from './lib/compare.js';
import { stop } from './lib/servers.js';
import { TARGETS_10 } from './lib/languages.js';
import { corpus, scenarioDatabase, seedMemory, seedProjects, startApi } from './lib/memory.js';
import { openDb } from '../server/infra/db.js';

const UNITS = 500;
const ROUNDS = 8;
const MEMORY_SOURCES = Number(process.env.BENCH_MEMORY_SOURCES ?? 100_000);

export const scenario: Scenario = {
  name: `Translation memory: a push of ${UNITS} units x 10 languages (and its fill), memory on vs off (ms)`,
  async run() {
    const database = await scenarioDatabase('sqlite', 'mempush');
    try {
      const { projects } = seedProjects(database.url, database.dataDir, { langs: TARGETS_10, projects: 2 });
      const [on, off] = projects;
      const db = openDb(database.url);
      const { workspace_id: scope } = (await db('projects').where({ id: on.projectId }).first('workspace_id'))!;
      await db('projects').where({ id: off.projectId }).update({ memory_sharing: 'off' });
      const c = corpus(5);
      await seedMemory(db, database.url, {
        scope,
        projectId: null,
        sources: Array.from({ length: MEMORY_SOURCES }, () => c.sentence()),
        langs: TARGETS_10,
        origin: 'import',
        status: 'translated',
      });
      const api = await startApi(database.url, database.dataDir);
      const pushes: Record<string, number[]> = { on: [], off: [] };
      try {
        const admin = { authorization: 'Bearer bench', 'content-type': 'application/json' };
        // Each round's units are new strings (not in the memory), of the corpus's kind.
        const side = (name: 'on' | 'off', p: { projectId: string; apiKey: string }) => async () => {
          const units = Array.from({ length: UNITS }, () => ({ source: c.sentence() }));
          const t0 = performance.now();
          const res = await fetch(`${api.info.base}/projects/${p.projectId}/translate`, {
            method: 'POST',
            headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ units }),
          });
          const body = (await res.json()) as { trackingToken?: string | null };
          if (res.status !== 200 || !body.trackingToken)
            throw new Error(`push answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
          pushes[name].push(performance.now() - t0);
          for (;;) {
            const run = await fetch(`${api.info.adminUrl}/jobs/run-due`, {
              method: 'POST',
              headers: admin,
              body: JSON.stringify({ projectId: p.projectId }),
            });
            await run.arrayBuffer();
            const poll = await fetch(
              `${api.info.base}/projects/${p.projectId}/translations?trackingToken=${body.trackingToken}`,
              { headers: { authorization: `Bearer ${p.apiKey}` } },
            );
            const job = (await poll.json()) as { status: string; summary: { total: number; translated: number } };
            if (job.status === 'done') {
              // A unit drawn twice, or one the memory held already, is not in the job.
              if (job.summary.translated !== job.summary.total || job.summary.total < UNITS * TARGETS_10.length * 0.9)
                throw new Error(`fill: ${JSON.stringify(job)}`);
              break;
            }
          }
          return performance.now() - t0;
        };
        const rounds = await alternate(
          { on: side('on', on), off: side('off', off) },
          { rounds: ROUNDS, warmup: 1, abba: true },
        );
        const a = median(rounds.on);
        const b = median(rounds.off);
        // The warm-up's pushes are not counted.
        const pushOn = pushes.on.slice(1);
        const pushOff = pushes.off.slice(1);
        return {
          figure: `memory on: push ${median(pushOn).toFixed(0)} ms (rounds: ${list(pushOn)}); push and fill ${a.toFixed(0)} ms (rounds: ${list(rounds.on)})`,
          baseline: `memory off: push ${median(pushOff).toFixed(0)} ms (rounds: ${list(pushOff)}); push and fill ${b.toFixed(0)} ms (rounds: ${list(rounds.off)}), ${(a / b).toFixed(1)}x`,
          ratio: median(pushOn) / median(pushOff),
          target: '<= 1.2',
        };
      } finally {
        await stop(api);
      }
    } finally {
      await database.drop();
    }
  },
};
