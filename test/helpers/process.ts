// The service as a process of its own (`scripts/start.ts`), for tests that kill it with SIGKILL and start it again
// on the same database: crash.test.ts (publishes), content-crash.test.ts (content runs).
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { entryArgs } from './entry.js';
import { ADMIN_TOKEN, TEST_SCRYPT_N } from './service.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface Proc {
  child: ChildProcess;
  base: string;
  internal: string;
  delivery: string;
}

/** A port found free can be taken by another process before the service listens on it. */
class PortTaken extends Error {}

/** Starts the service on free ports, again on others when one was taken meanwhile (EADDRINUSE). */
export async function startProcess(env: Record<string, string>): Promise<Proc> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePorts(env);
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt === 3) throw err;
    }
  }
}

async function startOnFreePorts(env: Record<string, string>): Promise<Proc> {
  const [port, deliveryPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, entryArgs(path.join(ROOT, 'scripts/start.ts')), {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      DELIVERY_PORT: String(deliveryPort),
      ADMIN_TOKEN,
      WORKERS: 'off',
      PASSWORD_SCRYPT_N: String(TEST_SCRYPT_N),
      LOG_LEVEL: 'silent',
    },
  });
  child.stdout.resume();
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const base = `http://127.0.0.1:${port}/v1`;
  // Generous: on a loaded CI machine a cold start of the whole service has taken over 30 s.
  for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
    if (child.exitCode !== null) {
      const message = `the service exited: ${stderr}`;
      throw stderr.includes('EADDRINUSE') ? new PortTaken(message) : new Error(message);
    }
    if (
      await fetch(`http://127.0.0.1:${deliveryPort}/v1/health`).then(
        (r) => r.ok,
        () => false,
      )
    ) {
      return {
        child,
        base,
        internal: `http://127.0.0.1:${port}/internal/v1`,
        delivery: `http://127.0.0.1:${deliveryPort}/v1`,
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`the service did not start: ${stderr}`);
}

export function kill9(p: Proc): Promise<void> {
  return new Promise((resolve) => {
    if (p.child.exitCode !== null || p.child.signalCode !== null) return resolve();
    p.child.once('exit', () => resolve());
    p.child.kill('SIGKILL');
  });
}
