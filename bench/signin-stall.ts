// Delivery manifest reads while anonymous sign-ins flood the dashboard: forty concurrent attempts with random
// emails, each from its own loopback address so that no per-client throttle holds them back and every one is a
// password check, in three waves. A manifest read is file I/O on libuv's pool, where scrypt runs too
// (server/domain/users/users.ts keeps hashes to one thread). Figure: the reads' p99 during the waves; baseline:
// their p99 on the idle server. Target: p99 under 250 ms (it was seconds when forty hashes held every thread).
import http from 'node:http';
import { percentile, type Scenario } from './lib/compare.js';
import { startService, stop } from './lib/servers.js';

const WAVES = 3;
const ATTEMPTS = 40;

function post(url: URL, localAddress: string, cookie: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: '/signin',
        method: 'POST',
        localAddress,
        headers: { cookie, origin: url.origin, 'content-type': 'application/x-www-form-urlencoded' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const p99 = (ms: number[]) => percentile(ms, 99);

export const scenario: Scenario = {
  name: 'Delivery manifest p99 while 40 concurrent anonymous sign-ins run, vs the idle server (ms)',
  async run() {
    const svc = await startService({
      BENCH_SCOPES: 'admin',
      BENCH_SEED_KEYS: '50',
    });
    const { projectId, apiKey } = svc.info.projects[0];
    const main = new URL(svc.info.base.replace(/\/v1$/, ''));
    const idle: number[] = [];
    const during: number[] = [];
    const statuses = new Map<number, number>();
    try {
      const res = await fetch(`${svc.info.base}/projects/${projectId}/publish`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
      });
      if (res.status !== 201) throw new Error(`publish failed: ${res.status}`);
      const manifest = `${svc.info.delivery}/projects/${projectId}/manifest`;
      const read = async () => {
        const start = performance.now();
        const r = await fetch(manifest);
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`manifest: ${r.status}`);
        return performance.now() - start;
      };
      for (let i = 0; i < 10; i++) await read();
      for (let i = 0; i < 100; i++) idle.push(await read());

      const form = await fetch(`${main.origin}/signin`);
      const cookie = form.headers.getSetCookie()[0].split(';')[0];
      const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1];
      let host = 0;
      for (let w = 0; w < WAVES; w++) {
        let done = false;
        const wave = Promise.all(
          Array.from({ length: ATTEMPTS }, () => {
            host++;
            const address = `127.0.${100 + Math.floor(host / 250)}.${(host % 250) + 1}`;
            const email = `bench-${w}-${host}-${Math.random().toString(36).slice(2)}@example.test`;
            const body = new URLSearchParams({ csrf, email, password: 'a guess at a password', next: '/' });
            return post(main, address, cookie, body.toString());
          }),
        ).finally(() => (done = true));
        while (!done) during.push(await read());
        for (const s of await wave) statuses.set(s, (statuses.get(s) ?? 0) + 1);
      }
    } finally {
      await stop(svc);
    }
    const answers = [...statuses].map(([s, n]) => `${n}× ${s}`).join(', ');
    return {
      figure: `p99 ${p99(during).toFixed(1)} ms, max ${Math.max(...during).toFixed(1)} ms over ${during.length} reads (sign-ins answered ${answers})`,
      baseline: `idle p99 ${p99(idle).toFixed(1)} ms over ${idle.length} reads`,
      ratio: p99(during) / p99(idle),
      target: 'p99 < 250 ms',
      met: p99(during) < 250,
    };
  },
};
