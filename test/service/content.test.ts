// Content documents (spec: putContentDocument … runContentDocument, internal content routes;
// docs/guides/content.md) end to end over HTTP, with real public documents (test/fixtures/content/SOURCES.md) and the
// pseudo engine. Runs are jobs: run-due, scoped to the test's project, runs them.
import { readFileSync } from 'node:fs';
import test from 'ava';
import { treeShape } from '../../server/domain/content/blocks.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => svc?.stop());

const fixture = (name: string) => readFileSync(new URL(`../fixtures/content/${name}`, import.meta.url), 'utf8');
const README = fixture('express-readme.md');
const BLOG = fixture('kafka-blog.html');
const DOCS = fixture('hugo-page-bundles.md');

// Scoped to the test's project: no test runs another's jobs, so the tests run concurrently.
const runDue = async (p: { projectId: string }) => {
  const r = await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data;
};

const contentProject = (opts: Parameters<typeof createTestProject>[1] = {}): Promise<TestProject> =>
  createTestProject(svc, { ...opts, contentEnabled: true });

type PushBody = {
  title?: string;
  text?: string;
  format?: 'markdown' | 'html' | 'plaintext';
  baseLang?: string;
  externalId?: string;
  fields?: Record<string, string>;
};

const put = (p: TestProject, docId: string, body: PushBody) =>
  p.client.PUT('/projects/{projectId}/content/{docId}', { params: { path: { projectId: p.projectId, docId } }, body });

async function putOk(p: TestProject, docId: string, body: PushBody) {
  const r = await put(p, docId, body);
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data;
}

const run = (p: TestProject, docId: string, body: Record<string, unknown>, idempotencyKey?: string) =>
  p.client.POST('/projects/{projectId}/content/{docId}/run', {
    params: {
      path: { projectId: p.projectId, docId },
      header: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {},
    },
    body: body,
  });

async function runOk(p: TestProject, docId: string, body: Record<string, unknown> = {}) {
  const r = await run(p, docId, body);
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data as { jobs: Array<{ lang: string; jobId: string }>; skipped: Array<{ lang: string; reason: string }> };
}

async function publish(p: TestProject, docIds?: string[]) {
  const r = await svc.admin.POST('/projects/{projectId}/content/publish', {
    params: { path: { projectId: p.projectId } },
    body: docIds ? { docIds } : {},
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data;
}

async function pull(p: TestProject, docId: string, query: Record<string, string>) {
  return p.client.GET('/projects/{projectId}/content/{docId}', {
    params: { path: { projectId: p.projectId, docId }, query: query },
  });
}

async function working(p: TestProject, docId: string) {
  const r = await svc.admin.GET('/projects/{projectId}/content/{docId}', {
    params: { path: { projectId: p.projectId, docId } },
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data;
}

// The workspace as PATCH answers it (a no-op setting): its balance.
const balance = async (p: TestProject) =>
  (
    await svc.admin.PATCH('/workspaces/{workspaceId}', {
      params: { path: { workspaceId: p.workspaceId } },
      body: { requireApproval: false },
    })
  ).data!.balance;

test('every Content route answers 404 where Content is disabled', async (t) => {
  const p = await createTestProject(svc);
  const path = { projectId: p.projectId, docId: 'a' };
  const answers = await Promise.all([
    p.client.PUT('/projects/{projectId}/content/{docId}', { params: { path }, body: { title: 'T', text: 'x' } }),
    p.client.POST('/projects/{projectId}/content', { params: { path }, body: { title: 'T', text: 'x' } }),
    p.client.GET('/projects/{projectId}/content', { params: { path } }),
    p.client.GET('/projects/{projectId}/content/{docId}', { params: { path, query: { lang: 'fr' } } }),
    p.client.POST('/projects/{projectId}/content/{docId}/run', { params: { path }, body: {} }),
  ]);
  t.deepEqual(
    answers.map((a) => [a.response.status, (a.error as { error?: string })?.error]),
    Array(5).fill([404, 'not_found']),
  );
  const meta = await p.client.GET('/projects/{projectId}/meta', { params: { path } });
  t.false(meta.data!.content.enabled);
});

test('push: create, unchanged, field updates, and the documented refusals', async (t) => {
  const p = await contentProject();
  const first = await put(p, 'returns', { title: 'Returns', text: DOCS, fields: { seoTitle: 'Returns | Acme' } });
  t.is(first.response.status, 201);
  t.like(first.data, { docId: 'returns', revisionId: 'r_1', changed: true, created: true });
  const again = await put(p, 'returns', { text: DOCS });
  t.is(again.response.status, 200);
  t.like(again.data, { revisionId: 'r_1', changed: false, created: false });
  // Fields only: an omitted key keeps its value, "" deletes one.
  t.like(await putOk(p, 'returns', { fields: { ogTitle: 'Returns' } }), { revisionId: 'r_2', changed: true });
  let w = await working(p, 'returns');
  t.deepEqual(w.fields, { seoTitle: 'Returns | Acme', ogTitle: 'Returns' });
  t.is(w.format, 'markdown');
  await putOk(p, 'returns', { fields: { seoTitle: '' } });
  w = await working(p, 'returns');
  t.deepEqual(w.fields, { ogTitle: 'Returns' });

  const refused = async (docId: string, body: unknown, status: number, code: string) => {
    const r = await p.client.PUT('/projects/{projectId}/content/{docId}', {
      params: { path: { projectId: p.projectId, docId } },
      body: body as PushBody,
    });
    t.is(r.response.status, status, JSON.stringify(r.error));
    t.is((r.error as { error: string }).error, code);
  };
  await refused('new-doc', { text: 'No title' }, 400, 'invalid_argument');
  await refused('returns', { text: '<p>x</p>', format: 'html' }, 400, 'invalid_argument');
  await refused('returns', { fields: { title: 'x' } }, 400, 'invalid_argument');
  await refused('returns', { text: 'x', dryRun: true }, 400, 'invalid_argument');
  await refused('returns', { externalId: 42 }, 400, 'invalid_argument');
  await refused('bad id!', { title: 'x', text: 'x' }, 400, 'invalid_argument');
  await refused('new-doc', { title: 'x', text: 'x', baseLang: 'ja' }, 400, 'invalid_argument');
  await refused('new-doc', { title: 'x', text: 'x', fields: { long: 'y'.repeat(1001) } }, 400, 'invalid_argument');
  const seventeen = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`f${i}`, 'v']));
  await refused('new-doc', { title: 'x', text: 'x', fields: seventeen }, 400, 'invalid_argument');
  // A stored document over 200,000 characters (the body itself is under 256 KB).
  await refused('big', { title: 'x', text: 'word '.repeat(40_001) }, 413, 'document_too_large');
  // dryRun in the query is refused too.
  const q = await fetch(`${svc.baseUrl}/projects/${p.projectId}/content/returns?dryRun=true`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: DOCS }),
  });
  t.is(q.status, 400);
  const notJson = await fetch(`${svc.baseUrl}/projects/${p.projectId}/content/returns`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'text/plain' },
    body: 'hello',
  });
  t.is(notJson.status, 415);
  t.is(((await notJson.json()) as { error: string }).error, 'unsupported_media_type');
  const huge = await fetch(`${svc.baseUrl}/projects/${p.projectId}/content/returns`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'a'.repeat(270_000) }),
  });
  t.is(huge.status, 413);
  t.is(((await huge.json()) as { error: string }).error, 'payload_too_large');
  // Nothing refused was written.
  t.is((await working(p, 'returns')).revisionId, 'r_3');
  // Never published: the public pull is 404, the listing empty.
  const unpublished = await pull(p, 'returns', { lang: 'en' });
  t.is(unpublished.response.status, 404);
  const empty = await p.client.GET('/projects/{projectId}/content', { params: { path: { projectId: p.projectId } } });
  t.deepEqual(empty.data!.documents, []);
  const missing = await svc.admin.GET('/projects/{projectId}/content/{docId}', {
    params: { path: { projectId: p.projectId, docId: 'new-doc' } },
  });
  t.is(missing.response.status, 404);
});

test('a document is translated block by block, published, listed and pulled with its skeleton intact', async (t) => {
  const p = await contentProject({ languages: [{ code: 'de' }, { code: 'fr' }] });
  await putOk(p, 'readme', { title: 'Express', text: README, externalId: '42', fields: { seoTitle: 'Express' } });
  await putOk(p, 'blog', { title: 'Kafka', text: BLOG });
  const preview = await run(p, 'readme', { dryRun: true });
  const estimatedMc = (preview.data as { estimatedMc: number }).estimatedMc;
  t.true(estimatedMc > 1000);
  const before = await balance(p);
  const started = await runOk(p, 'readme', {});
  t.deepEqual(started.jobs.map((j) => j.lang).sort(), ['de', 'fr']);
  // While the runs go, the same languages are 409 run_in_progress as a whole.
  const busy = await run(p, 'readme', {});
  t.is(busy.response.status, 409);
  t.is((busy.error as { error: string }).error, 'run_in_progress');
  await runDue(p);
  // Charged what was translated: the estimate (the hold was twice that; the rest is back).
  t.is(before - (await balance(p)), estimatedMc);
  await runOk(p, 'blog', { langs: ['fr'] });
  await runDue(p);
  const again = await runOk(p, 'readme', {});
  t.deepEqual(again, {
    jobs: [],
    skipped: [
      { lang: 'de', reason: 'up_to_date' },
      { lang: 'fr', reason: 'up_to_date' },
    ],
  });

  const pub = await publish(p);
  t.is(pub.summary.docsPublished, 2);
  t.regex(pub.versionId!, /^\d{4}\.\d{2}\.\d{2}\.1$/);
  const readme = await pull(p, 'readme', { lang: 'fr' });
  t.is(readme.response.status, 200);
  const fr = readme.data!.content.fr;
  t.like(fr, { source: 'translated', stage: 'translated' });
  t.not(fr.text, README);
  t.is(treeShape('markdown', fr.text!), treeShape('markdown', README));
  // Code blocks are never translated: every fenced block of the source is in the translation, byte for byte.
  const fences = README.match(/```[\s\S]*?```/g) ?? [];
  t.true(fences.length > 0);
  for (const f of fences) t.true(fr.text!.includes(f));
  // The translated markdown parses to the same kinds of nodes (mdast), links keep their URLs.
  const urls = (s: string) => [...s.matchAll(/\]\(([^)\s]+)/g)].map((m) => m[1]);
  t.deepEqual(urls(fr.text!), urls(README));
  t.truthy(fr.title && fr.title !== 'Express');
  t.truthy(fr.fields?.seoTitle);
  t.is(readme.data!.externalId, '42');
  const blog = await pull(p, 'blog', { lang: 'fr' });
  t.is(treeShape('html', blog.data!.content.fr.text!), treeShape('html', BLOG));
  const deBlog = await pull(p, 'blog', { lang: 'de' });
  t.like(deBlog.data!.content.de, { source: 'fallback', text: BLOG });
  t.is(deBlog.data!.content.de.title, undefined);
  // Blocks shape: every language, ids stable across languages.
  const blocks = await pull(p, 'readme', { shape: 'blocks' });
  const ids = (l: string) => blocks.data!.content[l].blocks!.map((b) => b.id);
  t.deepEqual(ids('fr'), ids('en'));
  t.deepEqual(ids('de'), ids('en'));
  // raw needs lang; an unknown language or version is 404.
  t.is((await pull(p, 'readme', {})).response.status, 400);
  t.is((await pull(p, 'readme', { lang: 'ja' })).response.status, 404);
  t.is((await pull(p, 'readme', { lang: 'fr', version: '2001.01.01.1' })).response.status, 404);
  const reports = await pull(p, 'readme', { lang: 'fr', include: 'reports' });
  t.false(reports.data!.reportsAnchored);
  t.like(reports.data!.reports!.fr.quality, { markupPreserved: true, placeholdersPreserved: true });
  t.truthy(reports.data!.reports!.fr.seo);

  // The listing, with its ETag.
  const list = await p.client.GET('/projects/{projectId}/content', { params: { path: { projectId: p.projectId } } });
  t.false(list.data!.truncated);
  t.deepEqual(
    list.data!.documents.map((d) => [d.docId, d.langs.map((l) => `${l.code}:${l.source}`).join(',')]),
    [
      ['blog', 'de:fallback,fr:translated'],
      ['readme', 'de:translated,fr:translated'],
    ],
  );
  const etag = list.response.headers.get('etag')!;
  const same = await fetch(`${svc.baseUrl}/projects/${p.projectId}/content`, {
    headers: { authorization: `Bearer ${p.apiKey}`, 'if-none-match': etag },
  });
  t.is(same.status, 304);
  // A stage change and a publish change the listing, so its ETag.
  const stage = await svc.admin.PUT('/projects/{projectId}/content/{docId}/langs/{lang}/stage', {
    params: { path: { projectId: p.projectId, docId: 'readme', lang: 'fr' } },
    body: { stage: 'approved' },
  });
  t.is(stage.response.status, 200);
  const pub2 = await publish(p);
  t.deepEqual(
    pub2.documents.map((d) => [d.docId, d.action]),
    [
      ['blog', 'unchanged'],
      ['readme', 'published'],
    ],
  );
  t.regex(pub2.versionId!, /\.2$/);
  const changed = await fetch(`${svc.baseUrl}/projects/${p.projectId}/content`, {
    headers: { authorization: `Bearer ${p.apiKey}`, 'if-none-match': etag },
  });
  t.is(changed.status, 200);
  t.is(((await pull(p, 'readme', { lang: 'fr' })).data!.content.fr as { stage: string }).stage, 'approved');
  // The older version stays readable.
  const old = await pull(p, 'readme', { lang: 'fr', version: pub.versionId! });
  t.is((old.data!.content.fr as { stage: string }).stage, 'translated');
});

test('an edit of one paragraph keeps every other translation; a move keeps its translation', async (t) => {
  const p = await contentProject({ languages: [{ code: 'fr' }] });
  await putOk(p, 'doc', { title: 'Express', text: README });
  await runOk(p, 'doc', {});
  await runDue(p);
  const before = await working(p, 'doc');
  const frBefore = before.langs[0].units;
  t.true(frBefore.every((u) => u.state === 'translated'));
  t.true(before.blocks.length >= 20, `${before.blocks.length} blocks`);
  // Change one paragraph only.
  const target = 'The Express.js project welcomes all constructive contributions.';
  t.true(README.includes(target));
  const edited = README.replace(target, `${target} This sentence is new.`);
  t.like(await putOk(p, 'doc', { text: edited }), { changed: true, revisionId: 'r_2' });
  const after = await working(p, 'doc');
  t.deepEqual(
    after.blocks.map((b) => b.id),
    before.blocks.map((b) => b.id),
  );
  const blockUnits = after.langs[0].units.filter((u) => !u.id.startsWith('@'));
  t.is(blockUnits.filter((u) => u.state === 'translated').length, before.blocks.length - 1);
  const i = after.blocks.findIndex((b) => b.text.includes('This sentence is new.'));
  const stale = blockUnits[i];
  t.is(stale.state, 'stale');
  // The previous translation is the reviewers' candidate.
  t.is(stale.candidate, frBefore[i].text);
  // The next run translates only that paragraph: its estimate is the paragraph's characters.
  const preview = await run(p, 'doc', { dryRun: true });
  t.is((preview.data as { estimatedMc: number }).estimatedMc, [...after.blocks[i].text].length);
  // Moving a paragraph keeps its id and translation: swap two paragraphs far apart.
  const x = before.blocks.findIndex((b) => b.text.startsWith('To run the test suite'));
  const y = before.blocks.findIndex((b) => b.text.startsWith('The original author of Express'));
  t.true(x >= 0 && y > x);
  const [bx, by] = [before.blocks[x].text, before.blocks[y].text];
  const moved = edited.replace(bx, '\u0000').replace(by, bx).replace('\u0000', by);
  await putOk(p, 'doc', { text: moved });
  const m = await working(p, 'doc');
  t.is(m.blocks[x].id, before.blocks[y].id);
  t.is(m.blocks[y].id, before.blocks[x].id);
  t.is(m.langs[0].units[x].state, 'translated');
  t.is(m.langs[0].units[x].text, frBefore[y].text);
  // Overwrite re-translates everything: the estimate covers every unit.
  const all = await run(p, 'doc', { dryRun: true, mode: 'overwrite' });
  t.true((all.data as { estimatedMc: number }).estimatedMc > README.length / 2);
});

test('run rules: unknown language, freeform, cost warning, credits, field_unfittable, agent keys', async (t) => {
  const p = await contentProject({
    languages: [{ code: 'de' }, { code: 'fr' }, { code: 'ja' }, { code: 'it', fillMode: 'manual' }],
    creditsMc: 3_000,
  });
  await putOk(p, 'doc', {
    title: 'Doc',
    text: DOCS,
    fields: { seoTitle: 'Returns and refunds for every order, explained' },
  });
  const unknown = await run(p, 'doc', { langs: ['fr', 'xx'] });
  t.is(unknown.response.status, 400);
  t.is((unknown.error as { error: string }).error, 'unknown_language');
  const both = await run(p, 'doc', { langs: ['fr'], lang: 'fr' });
  t.is(both.response.status, 400);
  const model = await run(p, 'doc', { langs: ['fr'], model: 'gpt-nothing' });
  t.is(model.response.status, 400);
  t.is((await run(p, 'doc', { langs: ['fr'], model: 'pseudo', dryRun: true })).response.status, 200);
  // Nothing started by the refusals.
  t.true((await working(p, 'doc')).langs.every((l) => !l.running));

  await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: p.projectId } },
    body: { costWarningMc: 100 },
  });
  const warned = await run(p, 'doc', { langs: ['ja'] });
  t.is(warned.response.status, 409);
  t.is((warned.error as { error: string }).error, 'cost_warning');
  // de: the 46-character seoTitle is expected to run past 60 in German; it: manual fill mode; ja: over the
  // balance (3,000 mc cannot hold twice the estimate).
  const r = await runOk(p, 'doc', { confirm: true });
  t.deepEqual(r.jobs, []);
  const byLang = Object.fromEntries(r.skipped.map((s) => [s.lang, s]));
  t.like(byLang.de, { reason: 'field_unfittable' });
  t.deepEqual((byLang.de as { fields?: unknown }).fields, [{ name: 'seoTitle', chars: 63, maxChars: 60 }]);
  t.like(byLang.it, { reason: 'freeform' });
  t.like(byLang.fr, { reason: 'insufficient_credits' });
  t.like(byLang.ja, { reason: 'insufficient_credits' });
  t.is(await balance(p), 3_000);

  // An agent key is refused, even a preview.
  const agent = svc.client(await createTestKey(svc, p.projectId, ['translate'], true));
  const a = await agent.POST('/projects/{projectId}/content/{docId}/run', {
    params: { path: { projectId: p.projectId, docId: 'doc' } },
    body: { dryRun: true },
  });
  t.is(a.response.status, 403);
  t.is((a.error as { error: string }).error, 'authorization_required');
  // A document without text (stored before a creating push had to carry its text): revision_missing.
  await putOk(p, 'fields-only', { title: 'Only fields', text: 'Soon.', fields: { note: 'x' } });
  await svc.service.app.db('content_docs').where({ project_id: p.projectId, doc_id: 'fields-only' }).update({
    text: null,
    blocks: '[]',
  });
  const missing = await run(p, 'fields-only', { langs: ['fr'] });
  t.is(missing.response.status, 409);
  t.is((missing.error as { error: string }).error, 'revision_missing');
  // A block too long for an engine: health_blocked, and publishing skips the document.
  await putOk(p, 'long', { title: 'Long', text: 'word '.repeat(2_000) });
  const blocked = await run(p, 'long', { langs: ['fr'] });
  t.is(blocked.response.status, 409);
  t.is((blocked.error as { error: string }).error, 'health_blocked');
  const pub = await publish(p, ['long', 'nope']);
  t.deepEqual(
    pub.documents.map((d) => [d.docId, d.action]),
    [
      ['long', 'skipped'],
      ['nope', 'skipped'],
    ],
  );
});
