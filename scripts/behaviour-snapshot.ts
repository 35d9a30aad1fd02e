// A behaviour snapshot of a checkout, taken from outside: the checkout's own `scripts/start.ts` runs as a child
// process on a fresh SQLite file and object folder (configured by README "Configuration"'s variables only), is seeded
// over HTTP, and then every operationId of spec/openapi.yaml and spec/internal.yaml is called (valid, and refused:
// no credentials, an unknown id, a malformed body, a key without the scope), every delivery manifest and bundle is
// read, every dashboard page is fetched as the signed-in owner, and every rendered file of the shared fixtures is
// hashed. What legitimately differs between two runs (ids, keys, secrets, timestamps, ports, cookies, CSRF tokens)
// is replaced by placeholders numbered in order of first appearance; everything else is kept byte for byte. Nothing
// of the server is imported, so the same script compares two layouts of the code.
//   npx tsx scripts/behaviour-snapshot.ts --checkout DIR --out FILE.json
//   npx tsx scripts/behaviour-snapshot.ts --diff A.json B.json      (exit 1 when they differ)
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  ADMIN_TOKEN,
  admin,
  call,
  internal,
  norm,
  ports,
  records,
  send,
  str,
  volatile,
  type Json,
  type Rec,
} from './behaviour/http.js';
import { calls, fixtures, ops, project, readOps, refusals, type Op } from './behaviour/ops.js';
import { seedAndSweep } from './behaviour/seed.js';

interface Snapshot {
  operations: { covered: string[]; uncovered: string[] };
  files: number;
  records: Rec[];
  webhooks: string[];
}

const OWNER = { email: 'owner@snapshot.test', password: 'snapshot-owner-password' };
// ---------------------------------------------------------------------------------------------------------------
// The service and a webhook receiver

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

const webhookBodies: string[] = [];

function receiver(tmp: string): Promise<{ port: number; server: https.Server }> {
  const f = (n: string) => path.join(tmp, n);
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost'],
      ...['-keyout', f('key.pem'), '-out', f('cert.pem'), '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
    ],
    { stdio: 'pipe' },
  );
  const server = https.createServer(
    { key: readFileSync(f('key.pem')), cert: readFileSync(f('cert.pem')) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        webhookBodies.push(`${req.method} ${req.url} ${Buffer.concat(chunks).toString('utf8')}`);
        res.writeHead(req.url?.includes('fail') ? 500 : 200).end('ok');
      });
    },
  );
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as net.AddressInfo).port, server })),
  );
}

async function dashboard() {
  const origin = `http://127.0.0.1:${ports.main}`;
  const g = await call('dashboard GET /signin', { url: `${origin}/signin`, cookies: true });
  const csrf = /name="csrf" value="([^"]+)"/.exec(g.bytes.toString())?.[1] ?? '';
  const form = new URLSearchParams({ csrf, next: '/', email: OWNER.email, password: OWNER.password });
  await call('dashboard POST /signin', {
    method: 'POST',
    url: `${origin}/signin`,
    cookies: true,
    raw: Buffer.from(form.toString()),
    type: 'application/x-www-form-urlencoded',
    headers: { origin },
  });
  const queue = ['/'];
  const seen = new Set(queue);
  const shapes = new Map<string, number>();
  const ID_AFTER = /^(projects|keys|versions|content|api-keys|webhooks|approve|operations|users|langs|assets|revoke)$/;
  while (queue.length && seen.size < 400) {
    const page = queue.shift()!;
    const r = await call(`dashboard GET`, { url: origin + page, cookies: true });
    for (const m of r.bytes.toString('utf8').matchAll(/(?:href|src)="(\/[^"#]*)"/g)) {
      const link = m[1].replace(/&amp;/g, '&');
      if (link.startsWith('//') || /^\/(v1|internal)\//.test(link) || seen.has(link)) continue;
      const u = new URL(link, origin);
      const segs = u.pathname.split('/');
      const shape =
        segs.map((s, i) => (i > 0 && ID_AFTER.test(segs[i - 1]) ? '*' : s)).join('/') +
        [...u.searchParams.keys()].sort().join(',');
      const n = shapes.get(shape) ?? 0;
      if (n >= 3) continue;
      shapes.set(shape, n + 1);
      seen.add(link);
      queue.push(link);
    }
  }
}

async function snapshot(dir: string): Promise<Snapshot> {
  readOps(dir);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'glossa-snapshot-'));
  const hooks = await receiver(tmp);
  ports.main = await freePort();
  ports.delivery = await freePort();
  const child = spawn(path.join(dir, 'node_modules', '.bin', 'tsx'), ['scripts/start.ts'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(ports.main),
      DELIVERY_PORT: String(ports.delivery),
      HOST: '127.0.0.1',
      DATA_DIR: path.join(tmp, 'data'),
      DATABASE_URL: `sqlite://${path.join(tmp, 'service.db')}`,
      OBJECT_STORE: `file://${path.join(tmp, 'objects')}`,
      ADMIN_TOKEN,
      TRANSLATION_ENGINE: 'pseudo',
      WORKERS: 'off',
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_CA_FILE: path.join(tmp, 'cert.pem'),
      LOG_LEVEL: 'silent',
      PREPARE_DELAY_MS: '3600000',
      PUBLISH_THREADS: '0',
      DASHBOARD_EMAIL: OWNER.email,
      DASHBOARD_PASSWORD: OWNER.password,
    },
  });
  let log = '';
  child.stdout.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr.on('data', (c: Buffer) => (log += c.toString()));
  try {
    for (let i = 0; ; i++) {
      if (/Dashboard owner/.test(log)) {
        // The demo key start.ts prints: its id shows in the dashboard.
        for (const m of log.matchAll(/glk_([A-Za-z0-9]+)_/g)) volatile(m[1]);
        break;
      }
      if (i > 600 || child.exitCode !== null) throw new Error(`the service did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    let files = await seedAndSweep(dir, hooks.port);
    const neg = await project('Refusals', { baseLang: 'en', languages: [{ code: 'de' }], contentEnabled: true });
    const scopeKeys: Record<string, string> = {};
    for (const s of ['read', 'write', 'capture', 'translate', 'publish']) {
      const k = await send({
        method: 'POST',
        url: internal(`/projects/${neg.id}/api-keys`),
        auth: admin,
        body: { scopes: [s] },
      });
      volatile(str(k.json.keyId));
      scopeKeys[s] = `Bearer ${str(k.json.apiKey)}`;
    }
    await refusals(neg, scopeKeys);
    files += await fixtures(dir);
    await dashboard();
    const done = (o: Op) =>
      calls.has(o.id) || (o.surface === 'callback' && webhookBodies.some((b) => b.includes(`"type":"${o.path}"`)));
    return {
      operations: {
        covered: ops.filter(done).map((o) => o.id),
        uncovered: ops.filter((o) => !done(o)).map((o) => o.id),
      },
      files,
      records,
      webhooks: webhookBodies.map(norm).sort(),
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    hooks.server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Each fixture file synced into a project of its own, filled, published, and every file of it rendered. */
function diff(a: Snapshot, b: Snapshot): string[] {
  const out: string[] = [];
  const show = (v: Json) => JSON.stringify(v)?.slice(0, 400);
  for (const k of ['operations', 'files', 'webhooks'] as const)
    if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) out.push(`${k}: ${show(a[k])}\n   vs ${show(b[k])}`);
  const n = Math.max(a.records.length, b.records.length);
  for (let i = 0; i < n; i++) {
    const x = a.records[i];
    const y = b.records[i];
    if (JSON.stringify(x) === JSON.stringify(y)) continue;
    if (!x || !y) {
      out.push(`record ${i}: only in ${x ? 'A' : 'B'}: ${show(x ?? y)}`);
      continue;
    }
    for (const f of Object.keys({ ...x, ...y }) as Array<keyof Rec>)
      if (JSON.stringify(x[f]) !== JSON.stringify(y[f])) {
        const [s, t] = [JSON.stringify(x[f]) ?? '', JSON.stringify(y[f]) ?? ''];
        let at = 0;
        while (s[at] === t[at]) at++;
        out.push(
          `record ${i} ${x.label} ${x.method} ${x.path}: ${f} differs at ${at}:\n   A …${s.slice(Math.max(0, at - 80), at + 120)}\n   B …${t.slice(Math.max(0, at - 80), at + 120)}`,
        );
      }
  }
  return out;
}

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
if (args[0] === '--diff') {
  const [a, b] = [args[1], args[2]].map((f) => JSON.parse(readFileSync(f, 'utf8')) as Snapshot);
  const d = diff(a, b);
  for (const line of d.slice(0, 200)) console.log(line);
  console.log(
    `${d.length} difference(s) between ${args[1]} (${a.records.length} records) and ${args[2]} (${b.records.length} records)`,
  );
  process.exitCode = d.length ? 1 : 0;
} else {
  const dir = path.resolve(arg('--checkout') ?? '.');
  const out = arg('--out');
  if (!out || !existsSync(path.join(dir, 'spec'))) {
    console.error('usage: behaviour-snapshot.ts --checkout DIR --out FILE.json | --diff A.json B.json');
    process.exit(2);
  }
  const snap = await snapshot(dir);
  writeFileSync(out, JSON.stringify(snap, null, 1) + '\n');
  console.log(
    `${snap.records.length} records; operations covered ${snap.operations.covered.length}, not covered: ${snap.operations.uncovered.join(', ') || 'none'}; files ${snap.files}`,
  );
}
