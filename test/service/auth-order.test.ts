// The pipeline order (server/http/pipeline.ts): 401 → project 404 → scope 403 → query flags → body.
import test from 'ava';
import { createTestKey, createTestProject, startTestService, type TestService } from '../helpers/service.js';
import { hostile, json, type ApiError } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const raw = (
  url: string,
  init: Omit<RequestInit, 'headers'> & { key?: string; headers?: Record<string, string> } = {},
) =>
  fetch(url, { ...init, headers: { ...(init.key ? { authorization: `Bearer ${init.key}` } : {}), ...init.headers } });

test('a missing key is 401 unauthorized with WWW-Authenticate', async (t) => {
  const { projectId } = await createTestProject(svc);
  const { error, response } = await svc
    .client()
    .GET('/projects/{projectId}/credential', { params: { path: { projectId } } });
  t.is(response.status, 401);
  t.is(error?.error, 'unauthorized');
  t.is(response.headers.get('www-authenticate'), 'Bearer');
});

test('an unknown, malformed or revoked key is 401', async (t) => {
  const { projectId, apiKey } = await createTestProject(svc);
  const forged = apiKey.slice(0, -4) + (apiKey.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  for (const key of ['nope', forged, 'glk_aaaaaaaaaaaa_' + 'a'.repeat(43)]) {
    const r = await svc.client(key).GET('/projects/{projectId}/credential', { params: { path: { projectId } } });
    t.is(r.response.status, 401, key);
    t.is(r.error?.error, 'unauthorized');
  }
  const res = await raw(`${svc.baseUrl}/projects/${projectId}/credential`, {
    headers: { authorization: `Basic ${apiKey}` },
  });
  t.is(res.status, 401);
  const keyId = apiKey.split('_')[1];
  const revoke = await svc.admin.DELETE('/projects/{projectId}/api-keys/{keyId}', {
    params: { path: { projectId, keyId } },
  });
  t.is(revoke.response.status, 204);
  const after = await svc.client(apiKey).GET('/projects/{projectId}/credential', { params: { path: { projectId } } });
  t.is(after.response.status, 401);
});

test('401 comes before the project check: no key on an unknown project is 401', async (t) => {
  const r = await svc
    .client()
    .POST('/projects/{projectId}/languages', { params: { path: { projectId: 'p_missing' } }, body: { code: 'de' } });
  t.is(r.response.status, 401);
});

test('the project check comes before the scope check: 404 for another or unknown project', async (t) => {
  const a = await createTestProject(svc, { scopes: ['read'] });
  const b = await createTestProject(svc);
  for (const projectId of [b.projectId, 'p_missing']) {
    const r = await a.client.POST('/projects/{projectId}/languages', {
      params: { path: { projectId } },
      body: { code: 'it' },
    });
    t.is(r.response.status, 404);
    t.is(r.error?.error, 'not_found');
  }
});

test('a deleted project is 404 to its own keys', async (t) => {
  const p = await createTestProject(svc);
  await svc.service.app.db('projects').where({ id: p.projectId }).update({ deleted_at: Date.now() });
  const r = await p.client.GET('/projects/{projectId}/meta', { params: { path: { projectId: p.projectId } } });
  t.is(r.response.status, 404);
});

test('scope is checked before the body: a read key with an invalid body is 403, not 400', async (t) => {
  const p = await createTestProject(svc, { scopes: ['read'] });
  const r = await p.client.POST('/projects/{projectId}/languages', {
    params: { path: { projectId: p.projectId } },
    body: hostile({ code: 42 }),
  }); // deliberately mistyped: the scope check must come first
  t.is(r.response.status, 403);
  t.is(r.error?.error, 'forbidden');
});

test('scope is checked before the body size: a read key with an oversize body is 403', async (t) => {
  const p = await createTestProject(svc, { scopes: ['read'] });
  const res = await raw(`${svc.baseUrl}/projects/${p.projectId}/translate`, {
    method: 'POST',
    key: p.apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ units: [{ source: 'x'.repeat(1100 * 1024) }] }),
  });
  t.is(res.status, 403);
});

test('query flags are rejected before the body is parsed or sized', async (t) => {
  const p = await createTestProject(svc);
  const bad = await raw(`${svc.baseUrl}/projects/${p.projectId}/languages?dryRun=true`, {
    method: 'POST',
    key: p.apiKey,
    headers: { 'content-type': 'application/json' },
    body: '{not json',
  });
  t.is(bad.status, 400);
  t.regex((await json<ApiError>(bad)).message, /dryRun/);
  const big = await raw(`${svc.baseUrl}/projects/${p.projectId}/translate?dryRun=yes`, {
    method: 'POST',
    key: p.apiKey,
    headers: { 'content-type': 'application/json' },
    body: 'x'.repeat(1100 * 1024),
  });
  t.is(big.status, 400);
  t.is((await json<ApiError>(big)).error, 'invalid_argument');
});

test('then the body: invalid JSON is 400 invalid_argument and a wrong content type 415', async (t) => {
  const p = await createTestProject(svc);
  const res = await raw(`${svc.baseUrl}/projects/${p.projectId}/languages`, {
    method: 'POST',
    key: p.apiKey,
    headers: { 'content-type': 'application/json' },
    body: '{"code":',
  });
  t.is(res.status, 400);
  t.deepEqual(Object.keys(await json<ApiError>(res)).sort(), ['error', 'message']);
  const text = await raw(`${svc.baseUrl}/projects/${p.projectId}/languages`, {
    method: 'POST',
    key: p.apiKey,
    headers: { 'content-type': 'text/plain' },
    body: 'code=de',
  });
  t.is(text.status, 415);
  t.is((await json<ApiError>(text)).error, 'unsupported_media_type');
});

test('the internal API needs the admin token', async (t) => {
  const res = await raw(`${svc.internalUrl}/workspaces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer wrong' },
    body: '{"name":"x"}',
  });
  t.is(res.status, 401);
  t.is((await json<ApiError>(res)).error, 'unauthorized');
  const none = await raw(`${svc.internalUrl}/workspaces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"name":"x"}',
  });
  t.is(none.status, 401);
});

test('a key is stored only as a hash and shown once', async (t) => {
  const p = await createTestProject(svc);
  const rows = await svc.service.app.db('api_keys').where({ project_id: p.projectId });
  t.is(rows.length, 1);
  const stored = JSON.stringify(rows[0]);
  t.false(stored.includes(p.apiKey.split('_')[2]), 'the secret part is not stored');
  t.regex(rows[0].secret_hash, /^[0-9a-f]{64}$/);
  t.regex(p.apiKey, /^glk_[A-Za-z0-9]{12}_[A-Za-z0-9]{43}$/);
  const second = await createTestKey(svc, p.projectId, ['read']);
  t.not(second, p.apiKey);
});

test('GET /operations/{id} answers a missing or invalid key like an unknown operation: 404 operation_not_found', async (t) => {
  for (const key of [undefined, 'glk_aaaaaaaaaaaa_' + 'a'.repeat(43)]) {
    const r = await svc.client(key).GET('/operations/{operationId}', { params: { path: { operationId: 'op_1' } } });
    t.is(r.response.status, 404);
    t.is(r.error?.error, 'operation_not_found');
  }
});
