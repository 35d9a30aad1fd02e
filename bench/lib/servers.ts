// The processes a scenario measures against. Each runs in a child process of its own (bench/lib/servers/), so the
// load generator in this process and the server each get a core, and prints `READY <json>` once it listens.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'servers');

/** The seeding script (bench/lib/seed.ts), run in a process of its own before a server starts. */
export const SEED = path.join(dir, '..', 'seed.ts');

/** The child process scripts, by name. */
export const SERVERS = {
  /** The real service on SQLite, seeded by bench/lib/seed.ts first: prints ServiceInfo. */
  service: path.join(dir, 'service.ts'),
  /** One API process on DATABASE_URL, nothing seeded (scaleout.ts): prints {base, adminUrl}. */
  api: path.join(dir, 'api.ts'),
  /** A bare Node http server answering GET /credential: prints {url}. */
  bare: path.join(dir, 'bare.ts'),
  /** A bare Node http server answering every GET with the bytes of FILE: prints {url}. */
  file: path.join(dir, 'file.ts'),
  /** An HTTPS receiver answering 204 to every POST, with a CA made for the run: prints {port, caFile}. */
  webhookReceiver: path.join(dir, 'webhook-receiver.ts'),
};

/** What bench/lib/servers/service.ts prints after READY. */
export interface ServiceInfo {
  /** The public API, `.../v1`. */
  base: string;
  projects: Array<{ projectId: string; apiKey: string }>;
  adminUrl: string;
  databaseUrl: string;
  objectsDir: string;
  /** The delivery origin, `.../v1`. */
  delivery: string;
}

export interface Spawned<Info> {
  child: ChildProcess;
  info: Info;
}

/**
 * Starts `script` in a child process; resolves once it prints `READY <json>`, with that JSON read as `Info`.
 * BENCH_NODE_ARGS: more flags for that Node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, which NODE_OPTIONS refuses).
 */
export async function spawnServer<Info>(script: string, env: Record<string, string> = {}): Promise<Spawned<Info>> {
  const extra = process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...extra, '--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = await new Promise<Info>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      // Only a complete line: the READY payload can span several chunks.
      const m = /^READY (.*)\n/m.exec(buf);
      if (m) resolve(JSON.parse(m[1]) as Info);
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, info };
}

/** The real service, seeded as `env` asks (bench/lib/seed.ts lists the BENCH_* options). */
export const startService = (env: Record<string, string> = {}) => spawnServer<ServiceInfo>(SERVERS.service, env);

/** Stops a server (or any child process) with SIGINT; resolves once it has exited. */
export function stop(server: { child: ChildProcess }): Promise<void> {
  const { child } = server;
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}
