// Issue 5: requests per second for one published bundle from the delivery origin, against nginx (Debian
// package, installed on first use) serving the same object folder, with the same client and concurrency.
// Target: at least 0.5.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../bench.js';
import type { components } from '../../generated/openapi.js';
import { json, requestsPerSecond, spawnServer, type ServiceInfo } from './_http.js';

const here = path.dirname(fileURLToPath(import.meta.url));

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

function ensureNginx(): string {
  if (!existsSync('/usr/sbin/nginx')) {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'nginx-light'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  }
  return '/usr/sbin/nginx';
}

export const scenario: Scenario = {
  name: 'Bundle requests per second, delivery origin vs nginx on the same folder',
  async run() {
    const nginx = ensureNginx();
    const svc = await spawnServer<ServiceInfo>(path.join(here, '_service-server.ts'), {
      BENCH_LANGS: 'de',
      BENCH_SCOPES: 'admin',
      BENCH_SEED_KEYS: '200',
    });
    const { projectId, apiKey } = svc.info.projects[0];
    let ours = 0;
    let theirs = 0;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'glossa-nginx-'));
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
      const origin = svc.info.delivery.replace(/\/v1$/, '');
      ours = await requestsPerSecond({ url: origin, requests: [{ path: bundlePath }] });

      const port = await freePort();
      writeFileSync(
        path.join(dir, 'nginx.conf'),
        `
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
    root ${svc.info.objectsDir};
    location / { default_type application/json; add_header Cache-Control "public, max-age=31536000, immutable"; }
  }
}`,
      );
      const proc = spawn(nginx, ['-c', path.join(dir, 'nginx.conf')], { stdio: 'inherit' });
      try {
        for (let i = 0; i < 50; i++) {
          if ((await fetch(`http://127.0.0.1:${port}${bundlePath}`).catch(() => null))?.status === 200) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        theirs = await requestsPerSecond({ url: `http://127.0.0.1:${port}`, requests: [{ path: bundlePath }] });
      } finally {
        proc.kill('SIGQUIT');
      }
    } finally {
      svc.child.kill('SIGINT');
    }
    return {
      figure: `${ours.toFixed(0)} req/s`,
      baseline: `${theirs.toFixed(0)} req/s from nginx (1 worker)`,
      ratio: ours / theirs,
      target: '>= 0.5',
    };
  },
};
