// Content documents under concurrency and limits: concurrent pushes to one document, Idempotency-Key
// races on POST /content and on runs, the daily push and run quotas, the workspace's document limit, and the
// versions, rollback, delete and `content.published` events of publishing. Every count lives in the database, so
// these hold across processes; run them on MariaDB too (TEST_DB=mysql).
import test from 'ava';
import { pushDocument } from '../../server/domain/content/push.js';
import { getProject } from '../../server/domain/project/projects.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => svc?.stop());

const contentProject = (opts: Parameters<typeof createTestProject>[1] = {}): Promise<TestProject> =>
  createTestProject(svc, { ...opts, contentEnabled: true });

const rawPush = (
  p: TestProject,
  method: 'PUT' | 'POST',
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) =>
  fetch(`${svc.baseUrl}/projects/${p.projectId}/content${path}`, {
    method,
    headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, headers: r.headers, body: (await r.json()) as Record<string, unknown> }));

const paragraphs = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `Paragraph ${i} of the ${tag} version, with some words.`).join('\n\n');

// Scoped to the test's project: no test runs another's jobs, so the tests run concurrently.
const runDue = (p: { projectId: string }) => svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });

async function publish(p: TestProject, docIds?: string[]) {
  const r = await svc.admin.POST('/projects/{projectId}/content/publish', {
    params: { path: { projectId: p.projectId } },
    body: docIds ? { docIds } : {},
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data;
}

test('concurrent pushes to one document: each lands on a revision of its own or answers edit_conflict', async (t) => {
  const p = await contentProject();
  await rawPush(p, 'PUT', '/doc', { title: 'Doc', text: paragraphs(5, 'first') });
  const texts = Array.from({ length: 12 }, (_, i) => paragraphs(5, `v${i}`));
  const answers = await Promise.all(texts.map((text) => rawPush(p, 'PUT', '/doc', { text })));
  const landed = answers.filter((a) => a.status === 200);
  const lost = answers.filter((a) => a.status !== 200);
  for (const a of lost) t.like(a, { status: 409, body: { error: 'edit_conflict' } });
  // Every push that answered 200 holds a revision of its own: none was overwritten unseen.
  const revisions = landed.map((a) => a.body.revisionId as string);
  t.is(new Set(revisions).size, landed.length);
  const w = await svc.admin.GET('/projects/{projectId}/content/{docId}', {
    params: { path: { projectId: p.projectId, docId: 'doc' } },
  });
  t.is(w.data!.revisionId, `r_${1 + landed.length}`);
  // The stored text is one of the pushed texts, whole.
  const stored = w.data!.blocks.map((b) => b.text).join('\n\n');
  t.true(texts.includes(stored));
});

test('concurrent creates of one docId make one document', async (t) => {
  const p = await contentProject();
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) => rawPush(p, 'PUT', '/same', { title: `T${i}`, text: paragraphs(2, `c${i}`) })),
  );
  t.is(answers.filter((a) => a.status === 201).length, 1);
  t.true(
    answers.every((a) => a.status === 201 || a.status === 200 || a.status === 409),
    JSON.stringify(answers),
  );
});

test('POST /content: an Idempotency-Key makes one document however many times and however concurrently it is sent', async (t) => {
  const p = await contentProject();
  const body = { title: 'Created', text: paragraphs(3, 'posted') };
  const answers = await Promise.all(
    Array.from({ length: 8 }, () => rawPush(p, 'POST', '', body, { 'idempotency-key': 'create-1' })),
  );
  const created = answers.filter((a) => a.status === 201);
  t.true(created.length >= 1);
  for (const a of answers.filter((x) => x.status !== 201))
    t.like(a, { status: 409, body: { error: 'run_in_progress' } });
  const docIds = new Set(created.map((a) => a.body.docId));
  t.is(docIds.size, 1);
  t.is(created.filter((a) => !a.body.replayed).length, 1);
  const retry = await rawPush(p, 'POST', '', body, { 'idempotency-key': 'create-1' });
  t.like(retry, { status: 201, body: { docId: [...docIds][0], replayed: true, created: true } });
  const other = await rawPush(p, 'POST', '', body, { 'idempotency-key': 'create-2' });
  t.not(other.body.docId, [...docIds][0]);
  t.regex(other.body.docId as string, /^[A-Za-z0-9_-]{1,64}$/);
  // Without a key, every POST creates.
  const a = await rawPush(p, 'POST', '', body);
  const b = await rawPush(p, 'POST', '', body);
  t.not(a.body.docId, b.body.docId);
});

test('a run with an Idempotency-Key starts once; concurrent runs start each language once', async (t) => {
  const p = await contentProject({ languages: [{ code: 'de' }, { code: 'fr' }] });
  await rawPush(p, 'PUT', '/doc', { title: 'Doc', text: paragraphs(4, 'run') });
  const runs = await Promise.all(
    Array.from({ length: 6 }, () => rawPush(p, 'POST', '/doc/run', {}, { 'idempotency-key': 'run-1' })),
  );
  const ok = runs.filter((r) => r.status === 200);
  t.true(ok.length >= 1);
  for (const r of runs.filter((x) => x.status !== 200)) t.like(r, { status: 409, body: { error: 'run_in_progress' } });
  t.deepEqual(new Set(ok.map((r) => JSON.stringify(r.body))).size, 1);
  const jobs = ok[0].body.jobs as Array<{ lang: string }>;
  t.deepEqual(jobs.map((j) => j.lang).sort(), ['de', 'fr']);
  // A retry with the key while its languages run answers what the first did, not run_in_progress.
  const retry = await rawPush(p, 'POST', '/doc/run', {}, { 'idempotency-key': 'run-1' });
  t.is(retry.status, 200);
  t.deepEqual(retry.body, ok[0].body);
  // The same languages without the key are 409 run_in_progress.
  t.like(await rawPush(p, 'POST', '/doc/run', {}), { status: 409, body: { error: 'run_in_progress' } });
  // Without keys, racing runs still start each language once.
  await runDue(p);
  await rawPush(p, 'PUT', '/doc', { text: paragraphs(4, 'second') });
  const racing = await Promise.all(Array.from({ length: 6 }, () => rawPush(p, 'POST', '/doc/run', {})));
  const started = racing.flatMap((r) => (r.status === 200 ? (r.body.jobs as Array<{ lang: string }>) : []));
  t.deepEqual(started.map((j) => j.lang).sort(), ['de', 'fr']);
  await runDue(p);
});

test('daily quotas: the 501st push and the 501st run of a day are 429, counted only once each', async (t) => {
  const p = await contentProject({ languages: [{ code: 'fr' }] });
  const db = svc.service.app.db;
  const day = new Date().toISOString().slice(0, 10);
  // 498 pushes already counted today; three concurrent pushes that write: two land, one is refused.
  await db('daily_counts').insert({ project_id: p.projectId, kind: 'content_push', day, n: 498 });
  const answers = await Promise.all(
    [0, 1, 2].map((i) => rawPush(p, 'PUT', `/q${i}`, { title: 'Q', text: paragraphs(1, `q${i}`) })),
  );
  t.deepEqual(answers.map((a) => a.status).sort(), [201, 201, 429]);
  const refused = answers.find((a) => a.status === 429)!;
  t.is(refused.body.error, 'import_quota_exceeded');
  // Retry-After: the seconds until the UTC day, and so the quota, ends.
  const untilTomorrow = (r: { headers: Headers }) => Number(r.headers.get('retry-after'));
  t.true(untilTomorrow(refused) > 0 && untilTomorrow(refused) <= 86_400, String(untilTomorrow(refused)));
  // A push that writes nothing is not refused (and not counted).
  const landed = answers.findIndex((a) => a.status === 201);
  t.is((await rawPush(p, 'PUT', `/q${landed}`, { text: paragraphs(1, `q${landed}`) })).status, 200);
  t.is((await rawPush(p, 'PUT', `/q${landed}`, { text: 'changed' })).status, 429);

  await db('daily_counts').insert({ project_id: p.projectId, kind: 'content_run', day, n: 499 });
  t.is((await rawPush(p, 'POST', `/q${landed}/run`, {})).status, 200);
  await runDue(p);
  // A run that would start nothing is not counted; one that would is refused.
  t.like(await rawPush(p, 'POST', `/q${landed}/run`, {}), { status: 200, body: { jobs: [] } });
  const over = await rawPush(p, 'POST', `/q${landed}/run`, { mode: 'overwrite' });
  t.like(over, { status: 429, body: { error: 'run_quota_exceeded' } });
  t.true(untilTomorrow(over) > 0 && untilTomorrow(over) <= 86_400, String(untilTomorrow(over)));
  await runDue(p);
});

test("the workspace's document limit: 402 plan_limit, concurrent creates never pass it", async (t) => {
  const p = await contentProject();
  await svc.admin.PATCH('/workspaces/{workspaceId}', {
    params: { path: { workspaceId: p.workspaceId } },
    body: { documentLimit: 3 },
  });
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, i) => rawPush(p, 'PUT', `/lim${i}`, { title: 'L', text: paragraphs(1, `l${i}`) })),
  );
  t.is(answers.filter((a) => a.status === 201).length, 3);
  for (const a of answers.filter((x) => x.status !== 201))
    t.like(a, { status: 402, body: { error: 'plan_limit', details: [{ feature: 'documents', limit: 3 }] } });
  // Updating an existing document is not a new document.
  const existing = answers.findIndex((a) => a.status === 201);
  t.is((await rawPush(p, 'PUT', `/lim${existing}`, { text: 'updated' })).status, 200);
});

test('publish, rollback and delete: versions are immutable, each move records content.published', async (t) => {
  const p = await contentProject({ languages: [{ code: 'fr' }] });
  await rawPush(p, 'PUT', '/a', { title: 'A', text: paragraphs(2, 'a1'), externalId: 'ext-a' });
  await rawPush(p, 'PUT', '/b', { title: 'B', text: paragraphs(2, 'b1') });
  await rawPush(p, 'POST', '/a/run', {});
  await runDue(p);
  // A run going holds its document back.
  await rawPush(p, 'POST', '/b/run', {});
  const first = await publish(p);
  t.deepEqual(first.summary, { docsPublished: 1, docsHeld: 1, docsUnchanged: 0, docsSkipped: 0, docsTooLarge: 0 });
  t.like(
    first.documents.find((d) => d.docId === 'b'),
    { action: 'held', versionId: null },
  );
  await runDue(p);
  const v1 = first.versionId!;
  await rawPush(p, 'PUT', '/a', { text: paragraphs(2, 'a2') });
  await rawPush(p, 'POST', '/a/run', {});
  await runDue(p);
  const second = await publish(p);
  t.deepEqual(
    second.documents.map((d) => [d.docId, d.action]),
    [
      ['a', 'published'],
      ['b', 'published'],
    ],
  );
  const v2 = second.versionId!;
  const pullA = (q: string) =>
    fetch(`${svc.baseUrl}/projects/${p.projectId}/content/a?lang=fr${q}`, {
      headers: { authorization: `Bearer ${p.apiKey}` },
    }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as { versionId: string; content: Record<string, { text: string }> },
    }));
  const atV2 = await pullA('');
  t.is(atV2.body.versionId, v2);
  t.true(atV2.body.content.fr.text.includes('2'));
  const rb = await svc.admin.POST('/projects/{projectId}/content/{docId}/rollback', {
    params: { path: { projectId: p.projectId, docId: 'a' } },
    body: { versionId: v1 },
  });
  t.is(rb.response.status, 200);
  const rolled = rb.data!.versionId;
  t.notDeepEqual([rolled], [v1, v2]);
  const now = await pullA('');
  t.is(now.body.versionId, rolled);
  t.deepEqual(now.body.content, (await pullA(`&version=${v1}`)).body.content);
  // History is never rewritten: v2 is still there.
  t.is((await pullA(`&version=${v2}`)).status, 200);
  // A publish of everything leaves the rollback standing.
  t.is((await publish(p, ['a'])).documents[0].action, 'unchanged');
  const events = await svc.admin.GET('/projects/{projectId}/events', { params: { path: { projectId: p.projectId } } });
  const published = events.data!.events.filter((e) => e.type === 'content.published');
  t.is(published.length, 3);
  const latest = published[0].payload as { data: { documents: Array<Record<string, unknown>>; truncated: boolean } };
  t.deepEqual(latest.data.documents, [{ docId: 'a', action: 'published', versionId: rolled, externalId: 'ext-a' }]);
  t.false(latest.data.truncated);
  const del = await svc.admin.DELETE('/projects/{projectId}/content/{docId}', {
    params: { path: { projectId: p.projectId, docId: 'a' } },
  });
  t.is(del.response.status, 204);
  t.is((await pullA('')).status, 404);
  t.is((await pullA(`&version=${v1}`)).status, 404);
  const list = await fetch(`${svc.baseUrl}/projects/${p.projectId}/content`, {
    headers: { authorization: `Bearer ${p.apiKey}` },
  }).then((r) => r.json() as Promise<{ documents: Array<{ docId: string }> }>);
  t.deepEqual(
    list.documents.map((d) => d.docId),
    ['b'],
  );
});

test('the listing holds at most 200 documents and says it is truncated beyond', async (t) => {
  const p = await contentProject({ languages: [{ code: 'fr' }] });
  // 195 documents through the push itself (the API's 120 requests a minute per project would make this a
  // two-minute test), the last six over HTTP.
  const db = svc.service.app.db;
  const project = await getProject(db, p.projectId);
  const name = (i: number) => `n${String(i).padStart(3, '0')}`;
  for (let i = 0; i < 195; i++)
    await pushDocument(db, project, ['en', 'fr'], name(i), { title: `N${i}`, text: `Doc ${i}.` });
  for (let i = 195; i < 201; i++)
    t.is((await rawPush(p, 'PUT', `/${name(i)}`, { title: `N${i}`, text: `Doc ${i}.` })).status, 201);
  const pub = await publish(p);
  t.is(pub.summary.docsPublished, 201);
  // The event carries at most 200 rows and says so.
  const events = await svc.admin.GET('/projects/{projectId}/events', { params: { path: { projectId: p.projectId } } });
  const data = (events.data!.events[0].payload as { data: { documents: unknown[]; truncated: boolean } }).data;
  t.is(data.documents.length, 200);
  t.true(data.truncated);
  const list = await fetch(`${svc.baseUrl}/projects/${p.projectId}/content`, {
    headers: { authorization: `Bearer ${p.apiKey}` },
  }).then((r) => r.json() as Promise<{ truncated: boolean; documents: Array<{ docId: string; langs: unknown[] }> }>);
  t.true(list.truncated);
  t.is(list.documents.length, 200);
  t.is(list.documents[0].docId, 'n000');
  t.deepEqual(list.documents[0].langs, [{ code: 'fr', source: 'fallback' }]);
});
