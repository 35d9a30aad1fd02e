// The internal dashboard API: workspaces, credits, projects, languages and API keys.
import test from 'ava';
import { translate } from '../../packages/client/src/index.js';
import { ADMIN_TOKEN, createTestProject, startTestService, type TestService } from '../helpers/service.js';
import { hostile, json, type ApiError } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

test('workspaces are created with a balance and settings, and patched', async (t) => {
  const c = await svc.admin.POST('/workspaces', {
    body: { name: 'Acme', creditsMc: 5000, requireApproval: true, keyLimit: 100 },
  });
  t.is(c.response.status, 201);
  t.is(c.data!.balance, 5000);
  const u = await svc.admin.PATCH('/workspaces/{workspaceId}', {
    params: { path: { workspaceId: c.data!.workspaceId } },
    body: { spendingCapMc: 2000, requireApproval: false },
  });
  t.is(u.response.status, 200);
  t.like(u.data, {
    name: 'Acme',
    balance: 5000,
    requireApproval: false,
    spendingCapMc: 2000,
    keyLimit: 100,
    documentLimit: null,
  });
  const missing = await svc.admin.PATCH('/workspaces/{workspaceId}', {
    params: { path: { workspaceId: 'ws_nope' } },
    body: { keyLimit: 1 },
  });
  t.is(missing.response.status, 404);
  const bad = await svc.admin.POST('/workspaces', { body: { name: '', creditsMc: -1 } });
  t.is(bad.response.status, 400);
});

test('credits move by signed amounts and never below zero, even concurrently', async (t) => {
  const ws = (await svc.admin.POST('/workspaces', { body: { name: 'W', creditsMc: 1000 } })).data!;
  const path = { workspaceId: ws.workspaceId };
  t.deepEqual(
    (await svc.admin.POST('/workspaces/{workspaceId}/credits', { params: { path }, body: { mc: 500 } })).data,
    { balance: 1500 },
  );
  const under = await svc.admin.POST('/workspaces/{workspaceId}/credits', { params: { path }, body: { mc: -2000 } });
  t.is(under.response.status, 409);
  const results = await Promise.all(
    Array.from({ length: 20 }, () =>
      svc.admin.POST('/workspaces/{workspaceId}/credits', { params: { path }, body: { mc: -100 } }),
    ),
  );
  t.is(results.filter((r) => r.response.status === 200).length, 15);
  const w = await svc.admin.PATCH('/workspaces/{workspaceId}', { params: { path }, body: { keyLimit: null } });
  t.is(w.data!.balance, 0);
});

test('numbers the store cannot hold are refused with 400 and nothing is written; a leap-second now runs jobs', async (t) => {
  const ws = (await svc.admin.POST('/workspaces', { body: { name: 'Bounds', creditsMc: 10 } })).data!;
  const path = { workspaceId: ws.workspaceId };
  const raw = (method: string, route: string, body: string) =>
    fetch(`${svc.internalUrl}${route}`, {
      method,
      body,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    });
  for (const [method, route, body] of [
    ['PATCH', `/workspaces/${ws.workspaceId}`, '{"keyLimit": 2147483648}'],
    ['PATCH', `/workspaces/${ws.workspaceId}`, '{"spendingCapMc": 9007199254740992}'],
    ['PATCH', `/workspaces/${ws.workspaceId}`, '{"creditsMc": 1e400}'],
    ['POST', `/workspaces/${ws.workspaceId}/credits`, '{"mc": 1e400}'],
    ['POST', `/workspaces/${ws.workspaceId}/credits`, '{"mc": -1E+999}'],
    ['POST', '/workspaces', '{"name": "Huge", "documentLimit": 99999999999}'],
  ]) {
    const r = await raw(method, route, body);
    t.is(r.status, 400, `${method} ${route} ${body}`);
    t.is((await json<ApiError>(r)).error, 'invalid_argument');
  }
  // The largest exact integer is accepted; one more millicredit on top of it is a conflict, not an overflow.
  t.is(
    (
      await svc.admin.PATCH('/workspaces/{workspaceId}', {
        params: { path },
        body: { creditsMc: Number.MAX_SAFE_INTEGER - 5 },
      })
    ).response.status,
    200,
  );
  const over = await svc.admin.POST('/workspaces/{workspaceId}/credits', { params: { path }, body: { mc: 6 } });
  t.is(over.response.status, 409);
  t.like(
    (await svc.admin.PATCH('/workspaces/{workspaceId}', { params: { path }, body: { keyLimit: 2147483647 } })).data,
    { balance: Number.MAX_SAFE_INTEGER - 5, keyLimit: 2147483647, spendingCapMc: null, documentLimit: null },
  );
  // A text field that merely contains a long exponent-looking run is ordinary JSON.
  t.is((await raw('PATCH', `/workspaces/${ws.workspaceId}`, '{"keyLimit": 1, "requireApproval": false}')).status, 200);
  const named = await raw('POST', '/workspaces', '{"name": "case e1234 and 1e400"}');
  t.is(named.status, 201);
  const leap = await svc.admin.POST('/jobs/run-due', { body: { now: '2016-12-31T23:59:60Z' } });
  t.is(leap.response.status, 200);
});

test('projects are created with a normalized base language and targets, and read back', async (t) => {
  const ws = (await svc.admin.POST('/workspaces', { body: { name: 'W' } })).data!;
  const c = await svc.admin.POST('/projects', {
    body: {
      workspaceId: ws.workspaceId,
      name: 'Mobile App!',
      baseLang: 'EN_us',
      languages: [{ code: 'de_DE' }, { code: 'ja', fillMode: 'manual' }],
      mode: 'a',
    },
  });
  t.is(c.response.status, 201);
  t.is(c.data!.slug, 'mobile-app');
  t.true(c.data!.handle.startsWith('mobile-app-'));
  const g = await svc.admin.GET('/projects/{projectId}', { params: { path: { projectId: c.data!.projectId } } });
  t.like(g.data, { baseLang: 'en-us', mode: 'a', autoVerify: false, contentEnabled: false });
  t.deepEqual(g.data!.languages, [
    { code: 'en-us', isBase: true, fillMode: 'ai', removed: false },
    { code: 'de-de', isBase: false, fillMode: 'ai', removed: false },
    { code: 'ja', isBase: false, fillMode: 'manual', removed: false },
  ]);
  const clash = await svc.admin.POST('/projects', {
    body: { workspaceId: ws.workspaceId, name: 'X', baseLang: 'en', languages: [{ code: 'EN' }] },
  });
  t.is(clash.response.status, 400);
  const noWs = await svc.admin.POST('/projects', { body: { workspaceId: 'ws_nope', name: 'X', baseLang: 'en' } });
  t.is(noWs.response.status, 404);
});

test('removing a language: the base is refused, an unknown code is 404, removal is idempotent', async (t) => {
  const p = await createTestProject(svc);
  const path = (code: string) => ({ params: { path: { projectId: p.projectId, code } } });
  t.is((await svc.admin.DELETE('/projects/{projectId}/languages/{code}', path('en'))).response.status, 400);
  t.is((await svc.admin.DELETE('/projects/{projectId}/languages/{code}', path('it'))).response.status, 404);
  t.is((await svc.admin.DELETE('/projects/{projectId}/languages/{code}', path('DE'))).response.status, 204);
  t.is((await svc.admin.DELETE('/projects/{projectId}/languages/{code}', path('de'))).response.status, 204);
  // A removed language, or one never added, takes no edit: nothing is written.
  await translate(p.client, p.projectId, { units: [{ key: 'save', source: 'Save' }] });
  for (const lang of ['de', 'ja']) {
    const put = await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
      params: { path: { projectId: p.projectId, key: 'save', lang } },
      body: { value: 'x' },
    });
    t.is(put.response.status, 404, lang);
  }
  const cells = (
    await svc.admin.GET('/projects/{projectId}/keys/{key}', {
      params: { path: { projectId: p.projectId, key: 'save' } },
    })
  ).data!.cells;
  t.false(cells.some((c) => c.value === 'x'));
});

test('API keys: scopes are validated, the agent flag is kept', async (t) => {
  const p = await createTestProject(svc);
  const bad = await svc.admin.POST('/projects/{projectId}/api-keys', {
    params: { path: { projectId: p.projectId } },
    body: { scopes: [hostile('root')] },
  }); // deliberately not a scope
  t.is(bad.response.status, 400);
  const none = await svc.admin.POST('/projects/{projectId}/api-keys', {
    params: { path: { projectId: p.projectId } },
    body: { scopes: [] },
  });
  t.is(none.response.status, 400);
  const ok = await svc.admin.POST('/projects/{projectId}/api-keys', {
    params: { path: { projectId: p.projectId } },
    body: { scopes: ['translate'], requiresOperationApproval: true, name: 'ci agent' },
  });
  t.is(ok.response.status, 201);
  t.like(ok.data, { scopes: ['translate'], requiresOperationApproval: true });
  const cred = await svc
    .client(ok.data!.apiKey)
    .GET('/projects/{projectId}/credential', { params: { path: { projectId: p.projectId } } });
  t.deepEqual(cred.data, { scopes: ['translate'], requires_operation_approval: true });
});
