// The preview flag rules (`x-dry-run`, spec/README.md), enforced by one mechanism for every route that names it.
import test from 'ava';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';
import type { ApiError } from '../helpers/typed.js';

let svc: TestService;
let p: TestProject;
test.before(async () => {
  svc = await startTestService();
  p = await createTestProject(svc);
});
test.after.always(async () => {
  await svc?.stop();
});

async function call(path: string, query: string, body: unknown, method = 'POST') {
  const res = await fetch(`${svc.baseUrl}/projects/${p.projectId}${path}${query}`, {
    method,
    headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // Every check reads a refusal (null when the body is not JSON).
  return { status: res.status, body: (await res.json().catch(() => null)) as ApiError };
}

const translateBody = { units: [{ source: 'Hello' }] };

test('translate and sync accept dryRun only as the literal true or false in the query', async (t) => {
  for (const path of ['/translate', '/sync']) {
    const body = path === '/translate' ? translateBody : { contentBase64: 'e30=' };
    for (const v of ['True', '1', 'yes', '', 'TRUE', 'false ']) {
      const r = await call(path, `?dryRun=${encodeURIComponent(v)}`, body);
      t.is(r.status, 400, `${path} dryRun=${v}`);
      t.is(r.body.error, 'invalid_argument');
    }
    for (const v of ['true', 'false']) {
      const r = await call(path, `?dryRun=${v}`, body);
      t.not(r.status, 400, `${path} dryRun=${v} passes the flag check (${JSON.stringify(r.body)})`);
    }
  }
});

test('variants of the flag name are refused, even beside a correct dryRun', async (t) => {
  for (const variant of ['dryrun', 'dry_run', 'dry-run', 'DryRun', 'DRYRUN']) {
    const r = await call('/translate', `?dryRun=true&${variant}=true`, translateBody);
    t.is(r.status, 400, variant);
    t.is(r.body.error, 'invalid_argument');
    const inBody = await call('/translate', '?dryRun=true', { ...translateBody, [variant]: true });
    t.is(inBody.status, 400, `${variant} in body`);
  }
});

test('dryRun in the body of translate or sync is 400', async (t) => {
  const r = await call('/translate', '', { ...translateBody, dryRun: true });
  t.is(r.status, 400);
  t.regex(r.body.message, /query/);
  const s = await call('/sync', '', { contentBase64: 'e30=', dryRun: false });
  t.is(s.status, 400);
});

test('routes without previews refuse dryRun in the query or the body before any write', async (t) => {
  const routes: Array<[string, unknown]> = [
    ['/languages', { code: 'it' }],
    ['/output-formats', { format: 'json' }],
    ['/publish', {}],
    ['/versions/previous/restore', {}],
    ['/capture', { units: [{ source: 'Hi' }] }],
    ['/content', { title: 'T', text: 'Body' }],
  ];
  for (const [path, body] of routes) {
    for (const q of ['?dryRun=true', '?dryRun=false', '?dry_run=true']) {
      const r = await call(path, q, body);
      t.is(r.status, 400, `${path}${q}`);
      t.is(r.body.error, 'invalid_argument');
    }
    const b = await call(path, '', { ...(body as object), dryRun: true });
    t.is(b.status, 400, `${path} body dryRun`);
    t.is(b.body.error, 'invalid_argument');
  }
  const put = await call('/content/doc-1', '?dryRun=true', { title: 'T', text: 'x' }, 'PUT');
  t.is(put.status, 400);
  const meta = await svc.admin.GET('/projects/{projectId}', { params: { path: { projectId: p.projectId } } });
  t.false(
    meta.data!.languages.some((l) => l.code === 'it'),
    'nothing was written',
  );
  t.deepEqual(meta.data!.outputFormats, []);
  const events = await svc.admin.GET('/projects/{projectId}/events', { params: { path: { projectId: p.projectId } } });
  t.deepEqual(events.data!.events, []);
});

test('content run takes dryRun in the JSON body as a boolean, not in the query', async (t) => {
  const q = await call('/content/doc-1/run', '?dryRun=true', { lang: 'de' });
  t.is(q.status, 400);
  const s = await call('/content/doc-1/run', '', { lang: 'de', dryRun: 'true' });
  t.is(s.status, 400);
  t.is(s.body.error, 'invalid_argument');
  const v = await call('/content/doc-1/run', '', { lang: 'de', dry_run: true });
  t.is(v.status, 400);
});
