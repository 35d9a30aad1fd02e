// Body-less GETs run their pipeline before Hapi builds a request (server/http/pipeline.ts, leanGet) and
// write small JSON answers themselves. Every answer must be the one Hapi gives: compared over HTTP, route by
// route, for every GET of the public and internal APIs, with no key, a malformed key, keys of each kind, another
// project's id, Range and query strings, against a second service on the same database whose debug logging keeps
// every request in Hapi.
import http from 'node:http';
import test from 'ava';
import { routes } from '../../../generated/routes.js';
import { pathParams } from '../../helpers/routes.js';
import {
  ADMIN_TOKEN,
  createTestKey,
  createTestProject,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

let lean: TestService;
let hapi: TestService;

test.before(async () => {
  lean = await startTestService();
  const { config } = lean.service.app;
  hapi = await startTestService({ LOG_LEVEL: 'debug', OBJECT_STORE: config.objectStore }, config.databaseUrl, {
    logDestination: { write: () => undefined },
  });
});
test.after.always(async () => {
  await hapi?.service.stop();
  await lean?.stop();
});

interface Seen {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function get(base: string, path: string, headers: Record<string, string>): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const h: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (k !== 'date') h[k] = String(v);
        resolve({ status: res.statusCode!, headers: h, body: Buffer.concat(parts).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const origin = (svc: TestService) => svc.baseUrl.replace(/\/v1$/, '');
const PREFIX = { main: '/v1', internal: '/internal/v1' } as const;
// Their bodies move between two requests: the metrics' figures (uptime, event-loop delay), and the list of every
// project, which the other tests of this file add to at the same time. Compared by status and headers' names.
const LIVE = new Set(['internalDebugMetrics', 'internalListProjects']);

const gets = routes.filter((r) => r.method === 'GET' && (r.origin === 'main' || r.origin === 'internal'));

for (const route of gets) {
  test(`${route.operationId}: the early answer is Hapi's`, async (t) => {
    // A project of its own per route: the comparisons stay far under its rate window.
    const p = await createTestProject(lean, { scopes: ['admin'] });
    const readKey = await createTestKey(lean, p.projectId, ['read']);
    const captureKey = await createTestKey(lean, p.projectId, ['capture']);
    const other = await createTestProject(lean, { scopes: ['admin'] });
    const params = pathParams(route, p.projectId);
    const path = (values: Record<string, string>) =>
      PREFIX[route.origin as 'main' | 'internal'] +
      route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name]));
    const paths = [path(params)];
    if (params.projectId) paths.push(path({ ...params, projectId: other.projectId }));
    if (params.projectId) paths.push(path({ ...params, projectId: 'p_doesnotexist' }));
    paths.push(`${paths[0]}?x=1`, `${paths[0]}/`);
    const auths: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer glk_nope' },
      { authorization: `Bearer ${p.apiKey}` },
      { authorization: `Bearer ${readKey}` },
      { authorization: `Bearer ${captureKey}` },
      { authorization: `Bearer ${other.apiKey}` },
      { authorization: `Bearer ${ADMIN_TOKEN}` },
      { authorization: `Bearer ${p.apiKey}`, range: 'bytes=0-9' },
      { authorization: `Bearer ${ADMIN_TOKEN}`, range: 'bytes=0-9' },
      { authorization: `Bearer ${p.apiKey}`, 'accept-encoding': 'gzip' },
    ];
    const statuses = new Set<number>();
    for (const pth of paths) {
      for (const headers of auths) {
        const ours = await get(origin(lean), pth, headers);
        const theirs = await get(origin(hapi), pth, headers);
        const what = `${pth} ${JSON.stringify(headers)}`;
        if (LIVE.has(route.operationId)) {
          t.is(ours.status, theirs.status, what);
          t.deepEqual(Object.keys(ours.headers).sort(), Object.keys(theirs.headers).sort(), what);
        } else t.deepEqual(ours, theirs, what);
        statuses.add(ours.status);
      }
    }
    // A keyed route's refusals were compared beside its answers.
    if (!route.public) t.true([...statuses].some((s) => s >= 400));
    t.true(statuses.size > 0);
  });
}
