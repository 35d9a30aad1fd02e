// Requests per second for one published bundle from the delivery origin, against nginx (one
// worker, Debian's package, installed on first use) serving the same object folder, with the same client and
// concurrency. The two are measured in alternating rounds and the median round's ratio is reported, so a slow
// patch of the shared machine weighs on both sides. Target: at least 0.8.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { components } from '../generated/openapi.js';
import { alternate, list, medianRound, type BenchResult, type Scenario } from './lib/compare.js';
import { json, requestsPerSecond } from './lib/http.js';
import { startService, stop } from './lib/servers.js';

const NGINX = '/usr/sbin/nginx';
const ROUNDS = 5;
const TARGET = '>= 0.8';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** nginx's path, installing Debian's package on first use; null (with the reason) when there is none. */
function ensureNginx(): { nginx: string } | { missing: string } {
  if (existsSync(NGINX)) return { nginx: NGINX };
  try {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'nginx-light'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch (err) {
    return { missing: `apt-get install nginx-light failed: ${(err as Error).message.split('\n')[0]}` };
  }
  return existsSync(NGINX) ? { nginx: NGINX } : { missing: `${NGINX} is still absent after apt-get install` };
}

function nginxConf(dir: string, port: number, root: string) {
  return `
user root;
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location / { default_type application/json; add_header Cache-Control "public, max-age=31536000, immutable"; }
  }
}`;
}

export const scenario: Scenario = {
  name: 'Bundle requests per second, delivery origin vs nginx (1 worker) on the same folder',
  async run(): Promise<BenchResult> {
    const found = ensureNginx();
    if ('missing' in found) {
      // Not a pass: the comparison could not be made, and the output says why.
      return {
        figure: 'not measured',
        baseline: `nginx unavailable (${found.missing})`,
        ratio: NaN,
        target: TARGET,
        met: false,
      };
    }
    const svc = await startService({
      BENCH_LANGS: 'de',
      BENCH_SCOPES: 'admin',
      BENCH_SEED_KEYS: '200',
    });
    const { projectId, apiKey } = svc.info.projects[0];
    let rounds: { ours: number[]; nginx: number[] } | undefined;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'glossa-nginx-'));
    let bytes = 0;
    try {
      const res = await fetch(`${svc.info.base}/projects/${projectId}/publish`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
      });
      if (res.status !== 201) throw new Error(`publish failed: ${res.status}`);
      const manifest = await json<components['schemas']['Manifest']>(
        await fetch(`${svc.info.delivery}/projects/${projectId}/manifest`),
      );
      const bundlePath = `/v1/projects/${projectId}/${manifest.bundles.de.url}`;
      const ours = { url: svc.info.delivery.replace(/\/v1$/, ''), requests: [{ path: bundlePath }] };

      const port = await freePort();
      writeFileSync(path.join(dir, 'nginx.conf'), nginxConf(dir, port, svc.info.objectsDir));
      const proc = spawn(found.nginx, ['-c', path.join(dir, 'nginx.conf')], { stdio: 'inherit' });
      const theirs = { url: `http://127.0.0.1:${port}`, requests: [{ path: bundlePath }] };
      try {
        let ready = false;
        for (let i = 0; i < 50 && !ready; i++) {
          const r = await fetch(`${theirs.url}${bundlePath}`).catch(() => null);
          if (r?.status === 200) {
            ready = true;
            const mine = Buffer.from(await (await fetch(`${ours.url}${bundlePath}`)).arrayBuffer());
            const same = Buffer.from(await r.arrayBuffer());
            if (!mine.equals(same)) throw new Error('nginx and the delivery origin answer different bytes');
            bytes = mine.length;
          } else await new Promise((res) => setTimeout(res, 100));
        }
        if (!ready) throw new Error(`nginx did not answer on port ${port} (see ${dir}/error.log)`);
        // Steady state first: JIT-compiled, the bundle in memory, page cache warm.
        await requestsPerSecond(ours, 2);
        await requestsPerSecond(theirs, 2);
        rounds = await alternate(
          { ours: () => requestsPerSecond(ours, 3), nginx: () => requestsPerSecond(theirs, 3) },
          { rounds: ROUNDS },
        );
      } finally {
        proc.kill('SIGQUIT');
      }
    } finally {
      await stop(svc);
      rmSync(dir, { recursive: true, force: true });
    }
    const m = medianRound(rounds.ours, rounds.nginx);
    return {
      figure: `${m.ours.toFixed(0)} req/s for a ${bytes}-byte bundle (rounds: ${list(rounds.ours)})`,
      baseline: `${m.base.toFixed(0)} req/s from nginx, 1 worker (rounds: ${list(rounds.nginx)})`,
      ratio: m.ratio,
      target: TARGET,
    };
  },
};
