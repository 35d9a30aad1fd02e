// Requests per second of GET /credential (auth, project, rate-limit window and scope all in
// the database) against a bare Node `http` server answering the same JSON, same client and concurrency.
// Target >= 0.6.
// The two servers are measured in alternating rounds and the median round's ratio is reported, so a
// slow patch of the machine weighs on both sides instead of on one.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../scripts/bench.js';
import { requestsPerSecond, spawnServer, type ServiceInfo } from './_http.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROUNDS = 5;

export const scenario: Scenario = {
  name: 'GET /credential vs a bare Node http server answering the same JSON (req/s)',
  async run() {
    // Load is spread round-robin over enough projects that none reaches its 120 requests a minute: the real
    // limit stays in force and no round is refused.
    const svc = await spawnServer<ServiceInfo>(path.join(here, '_service-server.ts'), { BENCH_PROJECTS: '6000' });
    const bare = await spawnServer<{ url: string }>(path.join(here, '_bare-server.ts'));
    const projects = svc.info.projects;
    let next = 0;
    // The same requests go to both servers: one shared cursor over the projects, not one per connection (each
    // connection starting from the top would send every early project sixteen times).
    const prebuilt = projects.map((p) => ({
      method: 'GET',
      path: `/v1/projects/${p.projectId}/credential`,
      headers: { authorization: `Bearer ${p.apiKey}` },
    }));
    const requests = [{ method: 'GET', path: '/', setupRequest: () => prebuilt[next++ % prebuilt.length] }];
    const rounds: Array<{ ours: number; bare: number }> = [];
    try {
      // Steady state: both servers JIT-compiled and our database pages cached before any round counts.
      await requestsPerSecond({ url: svc.info.base.replace(/\/v1$/, ''), requests }, 3);
      await requestsPerSecond({ url: bare.info.url, requests }, 3);
      for (let i = 0; i < ROUNDS; i++) {
        const ours = await requestsPerSecond({ url: svc.info.base.replace(/\/v1$/, ''), requests }, 3);
        rounds.push({ ours, bare: await requestsPerSecond({ url: bare.info.url, requests }, 3) });
      }
    } finally {
      svc.child.kill();
      bare.child.kill();
    }
    const median = [...rounds].sort((a, b) => a.ours / a.bare - b.ours / b.bare)[Math.floor(ROUNDS / 2)];
    const show = (pick: (r: { ours: number; bare: number }) => number) =>
      rounds.map((r) => pick(r).toFixed(0)).join(', ');
    return {
      figure: `${median.ours.toFixed(0)} req/s (rounds: ${show((r) => r.ours)})`,
      baseline: `${median.bare.toFixed(0)} req/s (rounds: ${show((r) => r.bare)})`,
      ratio: median.ours / median.bare,
      target: '>= 0.6',
    };
  },
};
