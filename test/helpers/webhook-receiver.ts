// A real HTTPS webhook receiver on loopback for the webhook tests and bench: a certificate authority made for the
// run with openssl (its PEM file is what the service trusts through WEBHOOK_CA_FILE), a server certificate for
// `localhost`, `hooks.test`, `*.hooks.test` and 127.0.0.1 signed by it, and a server that records every request's
// raw bytes and answers as the test says per path.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

export interface TestCa {
  dir: string;
  caFile: string;
  key: string;
  cert: string;
  remove(): void;
}

export function makeTestCa(): TestCa {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'glossa-webhook-ca-'));
  const f = (n: string) => path.join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=Glossa test CA',
  );
  ssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    f('server.key'),
    '-out',
    f('server.csr'),
    '-subj',
    '/CN=hooks.test',
  );
  writeFileSync(f('ext.cnf'), 'subjectAltName=DNS:localhost,DNS:hooks.test,DNS:*.hooks.test,IP:127.0.0.1\n');
  ssl(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-out',
    f('server.pem'),
    '-days',
    '2',
    '-extfile',
    f('ext.cnf'),
  );
  return {
    dir,
    caFile: f('ca.pem'),
    key: readFileSync(f('server.key'), 'utf8'),
    cert: readFileSync(f('server.pem'), 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  at: number;
}

/**
 * How the receiver answers a path: a status, after `delayMs` or once `hold` settles (a receiver that hangs until the
 * test lets it go), with optional headers and body.
 */
export interface Answer {
  status: number;
  delayMs?: number;
  hold?: Promise<unknown>;
  headers?: Record<string, string>;
  body?: string;
}

export interface Receiver {
  port: number;
  received: Received[];
  /** Requests to one path. */
  at(p: string): Received[];
  answer(p: string, a: Answer | ((n: number) => Answer)): void;
  close(): Promise<void>;
}

/** `at`: where to listen (127.0.0.1 on a free port unless said). */
export async function startReceiver(
  ca: Pick<TestCa, 'key' | 'cert'>,
  at: { host?: string; port?: number } = {},
): Promise<Receiver> {
  const received: Received[] = [];
  const answers = new Map<string, Answer | ((n: number) => Answer)>();
  const server = https.createServer({ key: ca.key, cert: ca.cert, keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const p = req.url ?? '/';
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
      received.push({ path: p, headers, body: Buffer.concat(chunks), at: Date.now() });
      const a = answers.get(p) ?? { status: 204 };
      const answer = typeof a === 'function' ? a(received.filter((r) => r.path === p).length) : a;
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      };
      if (answer.hold) void answer.hold.then(send);
      else if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(at.port ?? 0, at.host ?? '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    at: (p) => received.filter((r) => r.path === p),
    answer: (p, a) => answers.set(p, a),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A TCP server that accepts and never speaks TLS: a connection that never finishes opening. */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
