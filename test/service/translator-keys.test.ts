// The Keys group (spec: `searchKeys`, `getKey`, `putTranslation`): a translator's work through an API key on the
// dashboard's rows and rules. An edit is recorded under the key, never approves, and a review never moves an
// approved value down; a read key cannot write; hostile text is stored as text.
import test from 'ava';
import { sync as syncCall } from '../../packages/client/src/index.js';
import { createTestKey, createTestProject, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

test("search, read, edit, mark reviewed; approval stays a person's", async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }] });
  const file = { greeting: 'Hello', farewell: 'Goodbye', other: 'Other' };
  const s = await syncCall(p.client, p.projectId, {
    contentBase64: Buffer.from(JSON.stringify(file)).toString('base64'),
    fileName: 'en.json',
  });
  t.is(s.response.status, 200, JSON.stringify(s.error));
  const writer = svc.client(await createTestKey(svc, p.projectId, ['read', 'write']));
  const reader = svc.client(await createTestKey(svc, p.projectId, ['read']));
  const path = { projectId: p.projectId };
  const search = (query: Record<string, unknown>) =>
    reader.GET('/projects/{projectId}/keys', { params: { path, query: query } });
  const missing = await search({ lang: 'de', status: 'missing' });
  t.is(missing.data?.total, 3);
  t.deepEqual(
    (await search({ q: 'goodbye' })).data?.keys.map((k) => k.key),
    ['farewell'],
  );
  t.is((await search({ status: 'nope' })).response.status, 400);
  const put = (client: typeof writer, key: string, body: Record<string, unknown>) =>
    client.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
      params: { path: { ...path, key, lang: 'de' } },
      body: body,
    });
  t.is((await put(reader, 'greeting', { value: 'Hallo' })).response.status, 403, 'a read key cannot write');
  const hostile = 'Hallo <img src=x onerror=alert(1)>';
  t.is((await put(writer, 'greeting', { value: hostile })).response.status, 400, 'markup that would run');
  t.is((await put(writer, 'greeting', { value: 'Hallo', status: 'approved' })).response.status, 400);
  const edited = await put(writer, 'greeting', { value: 'Hallo "${x}" \u202e' });
  t.like(edited.data, { status: 'translated', origin: 'edit' });
  const reviewed = await put(writer, 'greeting', { status: 'reviewed' });
  t.like(reviewed.data, { status: 'reviewed', value: 'Hallo "${x}" \u202e' });
  const key = await reader.GET('/projects/{projectId}/keys/{key}', { params: { path: { ...path, key: 'greeting' } } });
  t.is(key.data?.cells[0].status, 'reviewed');
  t.regex(key.data!.history[0].by, /^key:/);
  t.is(
    (await reader.GET('/projects/{projectId}/keys/{key}', { params: { path: { ...path, key: 'nope' } } })).response
      .status,
    404,
  );
  // A person approves; a key's review leaves it approved.
  const approved = await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { ...path, key: 'greeting', lang: 'de' } },
    body: { value: 'Hallo', status: 'approved' },
  });
  t.is(approved.response.status, 200, JSON.stringify(approved.error));
  t.like((await put(writer, 'greeting', { status: 'reviewed' })).data, { status: 'approved' });
  t.is((await search({ lang: 'de', status: 'missing' })).data?.total, 2);
});
