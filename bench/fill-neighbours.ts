// The fill's read of neighbouring keys (server/domain/fill/context.ts keyContexts): for a read of 500 keys spread over
// 100 name prefixes of a project of 10,000 keys (bench/lib/seed.ts BENCH_SEED_KEYS: `screen_<n>.label_<i>`, 100 a
// prefix), every key's neighbours in one statement, a UNION ALL of one limited range of the key index per prefix.
// Baseline: one such range read per prefix (what the fill did before). Beside them, Knex's own union of the same
// parts (`unionAll` of derived tables), which MariaDB materialises one by one: why the MySQL statement is written
// with parenthesised parts (docs/decisions/0031-chosen-cells-and-term-rechecks.md). On SQLite, and on MySQL/MariaDB
// when MYSQL_URL is set. Target: ours at most the baseline's time (ratio <= 1) on each.
import type { Knex } from 'knex';
import { keyContexts } from '../server/domain/fill/context.js';
import { getProject } from '../server/domain/project/projects.js';
import { openDb } from '../server/infra/db.js';
import { alternate, list, median, type Scenario } from './lib/compare.js';
import { scenarioDatabase, seedProjects } from './lib/memory.js';

const KEYS = 10_000;
const READ = 500;
const ROUNDS = 9;

interface Outcome {
  ours: number[];
  perPrefix: number[];
  derived: number[];
}

async function measure(kind: 'sqlite' | 'mysql'): Promise<Outcome> {
  const database = await scenarioDatabase(kind, 'neighbours');
  const before = process.env.BENCH_SEED_KEYS;
  process.env.BENCH_SEED_KEYS = String(KEYS);
  let db: Knex | undefined;
  try {
    const { projects } = seedProjects(database.url, database.dataDir, { langs: ['de'], projects: 1 });
    db = openDb(database.url);
    const project = await getProject(db, projects[0].projectId);
    const all = await db('keys')
      .where({ project_id: project.id })
      .orderBy('id')
      .select('id', 'name', 'namespace', 'source', 'ctx', 'comment', 'meta');
    const step = Math.floor(all.length / READ);
    const keys = all
      .filter((_, i) => i % step === 0)
      .slice(0, READ)
      .map((k) => ({ ...k, id: Number(k.id), namespace: k.namespace ?? '' }));
    const prefixes = [...new Set(keys.map((k) => k.name.slice(0, k.name.lastIndexOf('.'))))];
    const part = (k: Knex, prefix: string, i: number) =>
      k('keys')
        .where({ project_id: project.id, namespace: '' })
        .andWhere('name', '>', `${prefix}.`)
        .andWhere('name', '<', `${prefix}/`)
        .andWhere('enabled', true)
        .orderBy('name')
        .limit(20)
        .select(k.raw('? as grp', [i]), 'name', 'source');
    const timed = async (fn: () => Promise<unknown>) => {
      const t0 = performance.now();
      await fn();
      return performance.now() - t0;
    };
    const d = db;
    const rounds = await alternate(
      {
        ours: () => timed(() => keyContexts(d, project, keys)),
        perPrefix: () =>
          timed(async () => {
            for (const [i, prefix] of prefixes.entries()) await part(d, prefix, i);
          }),
        derived: () =>
          timed(async () => {
            const parts = prefixes.map((prefix, i) => d.select('*').from(part(d, prefix, i).as(`g${i}`)));
            await parts[0].unionAll(parts.slice(1));
          }),
      },
      { rounds: ROUNDS, warmup: 2, abba: true },
    );
    return rounds;
  } finally {
    if (before === undefined) delete process.env.BENCH_SEED_KEYS;
    else process.env.BENCH_SEED_KEYS = before;
    await db?.destroy();
    await database.drop();
  }
}

export const scenario: Scenario = {
  name: `Fill: neighbouring keys of a read of ${READ} keys over 100 name prefixes (${KEYS.toLocaleString('en')} keys), one statement vs one per prefix (ms, median)`,
  async run() {
    const kinds: Array<'sqlite' | 'mysql'> = process.env.MYSQL_URL ? ['sqlite', 'mysql'] : ['sqlite'];
    const figures: string[] = [];
    const baselines: string[] = [];
    let ratio = 0;
    for (const kind of kinds) {
      const r = await measure(kind);
      const ours = median(r.ours);
      const base = median(r.perPrefix);
      ratio = Math.max(ratio, ours / base);
      figures.push(
        `${kind}: ${ours.toFixed(1)} ms (rounds ${list(r.ours, 1)}); Knex's unionAll of derived tables ${median(r.derived).toFixed(1)} ms`,
      );
      baselines.push(`${kind}: ${base.toFixed(1)} ms (rounds ${list(r.perPrefix, 1)})`);
    }
    return { figure: figures.join('; '), baseline: baselines.join('; '), ratio, target: '<= 1' };
  },
};
