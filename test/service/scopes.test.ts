// The scope matrix: every authenticated route of the spec, called through the SDK with a key holding every
// scope but the ones that route accepts, answers 403 forbidden; `*` routes accept any single scope.
import test from 'ava';
import { SCOPES } from '../../server/http/apikeys.js';
import { authedRoutes, pathParams } from '../helpers/routes.js';
import { createTestKey, createTestProject, startTestService, type TestService } from '../helpers/service.js';
import { errorOf } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

test('every route refuses a key lacking its scope with 403 forbidden', async (t) => {
  const p = await createTestProject(svc);
  const restricted = authedRoutes.filter((r) => !r.scopes.includes('*'));
  t.true(restricted.length >= 20, `expected the whole API, found ${restricted.length} routes`);
  for (const route of restricted) {
    const others = SCOPES.filter((s) => s !== 'admin' && !route.scopes.includes(s));
    const key = await createTestKey(svc, p.projectId, others);
    // A route of the table, chosen at run time: request() types one literal method and path at a time.
    const r = await svc.client(key).request(
      route.method.toLowerCase() as never,
      route.path as never,
      {
        params: { path: pathParams(route, p.projectId) },
        ...(route.hasBody ? { body: {} } : {}),
      } as never,
    );
    t.is(r.response.status, 403, `${route.method} ${route.path} with [${others.join(',')}]`);
    t.is(errorOf(r)?.error, 'forbidden', `${route.method} ${route.path}`);
  }
});

test('the scope each route needs is the one x-scopes names in the spec', (t) => {
  const need = (method: string, path: string) =>
    authedRoutes
      .find((r) => r.method === method && r.path === path)
      ?.scopes.slice()
      .sort();
  t.deepEqual(need('POST', '/projects/{projectId}/translate'), ['translate']);
  t.deepEqual(need('POST', '/projects/{projectId}/sync'), ['translate']);
  t.deepEqual(need('GET', '/projects/{projectId}/translations'), ['read', 'translate']);
  t.deepEqual(need('POST', '/projects/{projectId}/capture'), ['capture']);
  t.deepEqual(need('POST', '/projects/{projectId}/languages'), ['write']);
  t.deepEqual(need('POST', '/projects/{projectId}/output-formats'), ['write']);
  t.deepEqual(need('POST', '/projects/{projectId}/publish'), ['publish']);
  t.deepEqual(need('POST', '/projects/{projectId}/versions/{versionId}/restore'), ['publish']);
  t.deepEqual(need('PUT', '/projects/{projectId}/content/{docId}'), ['write']);
  t.deepEqual(need('POST', '/projects/{projectId}/content'), ['write']);
  t.deepEqual(need('POST', '/projects/{projectId}/content/{docId}/run'), ['translate']);
  t.deepEqual(need('GET', '/projects/{projectId}/content'), ['read']);
  t.deepEqual(need('GET', '/projects/{projectId}/requests/{requestId}'), ['*']);
  t.deepEqual(need('GET', '/projects/{projectId}/credential'), ['*']);
  for (const r of authedRoutes.filter((x) => x.path.includes('/webhooks'))) t.deepEqual(r.scopes, ['publish'], r.path);
  const ops = authedRoutes.find((r) => r.method === 'POST' && r.path === '/operations')!;
  t.deepEqual(ops.scopesByAction, { translate: ['translate'], publish: ['publish'], rollback: ['publish'] });
});

test('routes open to any key accept a key with any single scope; admin opens everything', async (t) => {
  const p = await createTestProject(svc);
  for (const scope of SCOPES) {
    const key = await createTestKey(svc, p.projectId, [scope]);
    const r = await svc
      .client(key)
      .GET('/projects/{projectId}/credential', { params: { path: { projectId: p.projectId } } });
    t.is(r.response.status, 200, scope);
    t.deepEqual(r.data, { scopes: [scope], requires_operation_approval: false });
    const meta = await svc
      .client(key)
      .GET('/projects/{projectId}/meta', { params: { path: { projectId: p.projectId } } });
    t.is(meta.response.status, 200, scope);
  }
  const admin = await createTestKey(svc, p.projectId, ['admin']);
  const r = await svc
    .client(admin)
    .POST('/projects/{projectId}/languages', { params: { path: { projectId: p.projectId } }, body: { code: 'es' } });
  t.is(r.response.status, 201);
});

test('credential describes the calling key, including the agent flag', async (t) => {
  const p = await createTestProject(svc);
  const agent = await createTestKey(svc, p.projectId, ['translate', 'read'], true);
  const r = await svc
    .client(agent)
    .GET('/projects/{projectId}/credential', { params: { path: { projectId: p.projectId } } });
  t.deepEqual(r.data, { scopes: ['translate', 'read'], requires_operation_approval: true });
});
