// Issue 2: requests per second of GET /credential (auth, project, rate-limit window and scope all in the
// database) against a bare Hapi route with a constant body, same client and concurrency. Target >= 0.5.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../bench.js';
import { requestsPerSecond, spawnServer } from './_http.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export const scenario: Scenario = {
  name: 'GET /credential vs bare Hapi route (req/s)',
  async run() {
    const svc = await spawnServer(path.join(here, '_service-server.ts'), { BENCH_PROJECTS: '4000' });
    // The same request list (paths and headers) goes to both servers.
    const requests = svc.info.projects.map((p: { projectId: string; apiKey: string }) => ({
      method: 'GET', path: `/v1/projects/${p.projectId}/credential`, headers: { authorization: `Bearer ${p.apiKey}` },
    }));
    const rps = await requestsPerSecond({ url: svc.info.base.replace(/\/v1$/, ''), requests });
    svc.child.kill();
    const bare = await spawnServer(path.join(here, '_bare-server.ts'));
    const bareRps = await requestsPerSecond({ url: bare.info.url, requests });
    bare.child.kill();
    return { figure: `${rps.toFixed(0)} req/s`, baseline: `${bareRps.toFixed(0)} req/s`, ratio: rps / bareRps, target: '>= 0.5' };
  },
};
