// Requests per second of GET /credential (auth, project, rate-limit window and scope all in
// the database) against a bare Node `http` server answering the same JSON, same client and concurrency.
// Target >= 0.6.
// The two servers are measured in alternating rounds and the median round's ratio is reported, so a
// slow patch of the machine weighs on both sides instead of on one.
import { alternate, list, medianRound, type Scenario } from './lib/compare.js';
import { requestsPerSecond } from './lib/http.js';
import { SERVERS, spawnServer, startService, stop } from './lib/servers.js';

const ROUNDS = 5;

export const scenario: Scenario = {
  name: 'GET /credential vs a bare Node http server answering the same JSON (req/s)',
  async run() {
    // Load is spread round-robin over enough projects that none reaches its 120 requests a minute: the real
    // limit stays in force and no round is refused.
    const svc = await startService({ BENCH_PROJECTS: '6000' });
    const bare = await spawnServer<{ url: string }>(SERVERS.bare);
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
    let rounds;
    try {
      // Steady state: both servers JIT-compiled and our database pages cached before any round counts.
      rounds = await alternate(
        {
          ours: () => requestsPerSecond({ url: svc.info.base.replace(/\/v1$/, ''), requests }, 3),
          bare: () => requestsPerSecond({ url: bare.info.url, requests }, 3),
        },
        { rounds: ROUNDS, warmup: 1 },
      );
    } finally {
      await Promise.all([stop(svc), stop(bare)]);
    }
    const m = medianRound(rounds.ours, rounds.bare);
    return {
      figure: `${m.ours.toFixed(0)} req/s (rounds: ${list(rounds.ours)})`,
      baseline: `${m.base.toFixed(0)} req/s (rounds: ${list(rounds.bare)})`,
      ratio: m.ratio,
      target: '>= 0.6',
    };
  },
};
