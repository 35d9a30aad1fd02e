// What the translation-memory scenarios (bench/memory-*.ts) share: a corpus of user-interface strings drawn from a
// Zipf-distributed vocabulary (a few words in most strings, most words rare, as in a real product's catalog), and a
// seeder that writes a memory's rows (segments, their index, entries) with direct bulk inserts, as migration 027
// lays them out and server/domain/memory/segments.ts would write them, without going through the API.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { openDb } from '../../server/infra/db.js';
import { SEED, SERVERS, spawnServer } from './servers.js';
import { indexTokens, normKey, normalize } from '../../server/domain/memory/normalize.js';
import { tokenSalt } from '../../server/domain/memory/segments.js';

/** mulberry32: the same corpus on every run. */
function rng(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = 'ka,lo,mi,ne,ta,ri,so,de,fa,gu,pe,ba,ve,zo,chi,lu,re,sa,to,mo,na,li,ko,da,el,an,or,is,un,ex'.split(
  ',',
);

/** A vocabulary of `size` distinct words, and a sampler of word indexes with Zipf's law (exponent 1). */
function vocabulary(size: number, random: () => number) {
  const words: string[] = [];
  const seen = new Set<string>();
  while (words.length < size) {
    const n = 1 + Math.floor(random() * 4);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  const cumulative: number[] = [];
  let sum = 0;
  for (let r = 1; r <= size; r++) cumulative.push((sum += 1 / r));
  const pick = () => {
    const x = random() * sum;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return { words, pick };
}

/** A corpus: `sentence(i)` is the i-th source (3 to 12 words, a placeholder in one of five), always the same. */
export function corpus(seed = 7, size = 20_000) {
  const random = rng(seed);
  const vocab = vocabulary(size, random);
  const sentence = (): string => {
    const n = 3 + Math.floor(random() * 10);
    const words = Array.from({ length: n }, () => vocab.words[vocab.pick()]);
    words[0] = words[0][0].toUpperCase() + words[0].slice(1);
    if (random() < 0.2) words.splice(1 + Math.floor(random() * (n - 1)), 0, '{name}');
    return words.join(' ');
  };
  /** A copy edit: one word of `s` replaced by another. */
  const edit = (s: string): string => {
    const words = s.split(' ');
    const at = Math.floor(random() * words.length);
    if (words[at] !== '{name}') words[at] = vocab.words[vocab.pick()];
    else words.push(vocab.words[vocab.pick()]);
    return words.join(' ');
  };
  return { sentence, edit, random };
}

/** A fake translation of a source into `lang`: the words reversed, prefixed; placeholders kept. */
const fakeTarget = (source: string, lang: string) => `${lang}: ${source.split(' ').reverse().join(' ')}`;

interface RawSqlite {
  prepare(sql: string): { run(...params: unknown[]): unknown };
  pragma(s: string): unknown;
  transaction(fn: () => void): { immediate(): void };
  close(): void;
}
const Sqlite = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => RawSqlite;

interface MemorySeed {
  /** The memory's scope: the workspace id of shared projects. */
  scope: string;
  /** The project the entries came from; null for entries imported into the workspace's memory. */
  projectId: string | null;
  sources: string[];
  langs: string[];
  origin: 'edit' | 'ai' | 'import';
  status: 'translated' | 'reviewed' | 'approved';
}

/**
 * Writes one segment per source and one entry per source and language (no key behind them), by bulk inserts.
 * Returns the bytes of source and target text written (the values the memory indexes).
 */
export async function seedMemory(db: Knex, databaseUrl: string, seed: MemorySeed): Promise<number> {
  const now = Date.now();
  const salt = tokenSalt(seed.scope, 'en');
  const max = await db('memory_segments').first<{ n: number | null }>(db.raw('MAX(id) AS n'));
  const emax = await db('memory_entries').first<{ n: number | null }>(db.raw('MAX(id) AS n'));
  let segId = Number(max?.n ?? 0);
  let entryId = Number(emax?.n ?? 0);
  let textBytes = 0;
  const rows = seed.sources.map((source) => {
    const read = normalize(source);
    textBytes += Buffer.byteLength(source);
    return { id: ++segId, source, key: normKey(read.norm), tokens: indexTokens(read.norm, salt) };
  });
  const entries = rows.flatMap((r) =>
    seed.langs.map((lang) => {
      const target = fakeTarget(r.source, lang);
      textBytes += Buffer.byteLength(target);
      return { id: ++entryId, seg: r.id, lang, target };
    }),
  );
  if (databaseUrl.startsWith('sqlite://')) {
    await db.destroy();
    const raw = new Sqlite(databaseUrl.slice('sqlite://'.length));
    raw.pragma('journal_mode = WAL');
    const seg = raw.prepare(
      'INSERT INTO memory_segments (id, scope_id, source_lang, source, ctx, norm_key, created_at) VALUES (?, ?, ?, ?, NULL, ?, ?)',
    );
    const posting = raw.prepare('INSERT OR IGNORE INTO memory_tokens (token, segment_id) VALUES (?, ?)');
    const entry = raw.prepare(
      'INSERT INTO memory_entries (id, segment_id, target_lang, project_id, key_id, target, origin, status, updated_at) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?)',
    );
    const step = 50_000;
    for (let from = 0; from < rows.length; from += step)
      raw
        .transaction(() => {
          for (const r of rows.slice(from, from + step)) {
            seg.run(r.id, seed.scope, 'en', r.source, r.key, now);
            for (const t of r.tokens) posting.run(t, r.id);
          }
        })
        .immediate();
    for (let from = 0; from < entries.length; from += step)
      raw
        .transaction(() => {
          for (const e of entries.slice(from, from + step))
            entry.run(e.id, e.seg, e.lang, seed.projectId, e.target, seed.origin, seed.status, now);
        })
        .immediate();
    raw.pragma('wal_checkpoint(TRUNCATE)');
    raw.close();
    return textBytes;
  }
  const step = 2_000;
  for (let from = 0; from < rows.length; from += step) {
    const part = rows.slice(from, from + step);
    await db.raw(
      `INSERT INTO memory_segments (id, scope_id, source_lang, source, ctx, norm_key, created_at) VALUES ${part.map(() => '(?, ?, ?, ?, NULL, ?, ?)').join(', ')}`,
      part.flatMap((r) => [r.id, seed.scope, 'en', r.source, r.key, now]),
    );
    const postings = part.flatMap((r) => r.tokens.map((t) => [t, r.id]));
    await db.raw(
      `INSERT IGNORE INTO memory_tokens (token, segment_id) VALUES ${postings.map(() => '(?, ?)').join(', ')}`,
      postings.flat(),
    );
  }
  for (let from = 0; from < entries.length; from += step) {
    const part = entries.slice(from, from + step);
    await db.raw(
      `INSERT INTO memory_entries (id, segment_id, target_lang, project_id, key_id, target, origin, status, updated_at) VALUES ${part.map(() => '(?, ?, ?, ?, NULL, ?, ?, ?, ?)').join(', ')}`,
      part.flatMap((e) => [e.id, e.seg, e.lang, seed.projectId, e.target, seed.origin, seed.status, now]),
    );
  }
  await db.destroy();
  return textBytes;
}

/** A database of its own for a scenario: a SQLite file in a temporary folder, or a database on MYSQL_URL. */
export async function scenarioDatabase(
  kind: 'sqlite' | 'mysql',
  name: string,
): Promise<{ url: string; dataDir: string; drop(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `glossa-bench-${name}-`));
  if (kind === 'sqlite')
    return {
      url: `sqlite://${path.join(dataDir, 'service.db')}`,
      dataDir,
      drop: () => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })),
    };
  const base = process.env.MYSQL_URL!;
  const db = `glossa_bench_${name.replace(/\W/g, '_')}_${process.pid}`;
  const admin = knexFactory({ client: 'mysql2', connection: base });
  await admin.raw(`DROP DATABASE IF EXISTS \`${db}\``);
  await admin.raw(`CREATE DATABASE \`${db}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await admin.destroy();
  const u = new URL(base);
  u.pathname = `/${db}`;
  return {
    url: u.toString(),
    dataDir,
    async drop() {
      const a = knexFactory({ client: 'mysql2', connection: base });
      await a.raw(`DROP DATABASE IF EXISTS \`${db}\``);
      await a.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The workspace, projects and keys of a scenario (bench/lib/seed.ts in a process of its own), on `url`: the
 * projects (each with an admin key) and their workspace's id.
 */
export function seedProjects(
  url: string,
  dataDir: string,
  opts: { langs: string[]; projects: number },
): { projects: Array<{ projectId: string; apiKey: string }> } {
  const out = path.join(dataDir, 'seed.json');
  execFileSync(process.execPath, ['--import', 'tsx', SEED], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      DATA_DIR: dataDir,
      SEED_OUT: out,
      BENCH_LANGS: opts.langs.join(','),
      BENCH_PROJECTS: String(opts.projects),
      BENCH_SCOPES: 'admin',
    },
    stdio: 'inherit',
  });
  return JSON.parse(readFileSync(out, 'utf8')) as { projects: Array<{ projectId: string; apiKey: string }> };
}

/** One API process on `url` (bench/lib/servers/api.ts), workers off: jobs run by run-due only. */
export const startApi = (url: string, dataDir: string) =>
  spawnServer<{ base: string; adminUrl: string }>(SERVERS.api, {
    DATABASE_URL: url,
    DATA_DIR: dataDir,
    WORKERS: 'off',
  });

/** Bytes the memory's tables take: SQLite's pages (dbstat), MySQL's data and index lengths after ANALYZE. */
export async function memoryBytes(url: string): Promise<number> {
  const db = openDb(url);
  try {
    if (url.startsWith('sqlite://')) {
      const rows = await db.raw<Array<{ n: number }>>("SELECT SUM(pgsize) AS n FROM dbstat WHERE name LIKE 'memory%'");
      return Number(rows[0].n);
    }
    for (const t of ['memory_segments', 'memory_tokens', 'memory_entries']) await db.raw(`ANALYZE TABLE ${t}`);
    const [rows] = (await db.raw(
      "SELECT SUM(data_length + index_length) AS n FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 'memory%'",
    )) as [Array<{ n: number | string }>];
    return Number(rows[0].n);
  } finally {
    await db.destroy();
  }
}
