// The settings pages over real HTTP (SQLite and MySQL): an owner creates a project with its target languages and a
// first API key whose secret the API keys page shows once and which then pushes; adds, removes and revives a
// language and adds or removes output formats through the internal API the pages call (the public rules: the base
// language refused, at most two formats), each refusal writing nothing; a reviewer is refused them. The API keys
// page says what each scope opens as the server enforces it: a write-only key is refused push and sync (403), and
// the page lists neither under `write`. A test event goes to one webhook, signed, and its log shows the body sent.
import test from 'ava';
import { FormBrowser } from '../helpers/form-browser.js';
import { createTestProject, startTestService, type TestService } from '../helpers/service.js';
import { asPerson } from '../helpers/actor.js';
import { makeTestCa, startReceiver, type Receiver, type TestCa } from '../helpers/webhook-receiver.js';

let svc: TestService;
let origin: string;
let owner: FormBrowser;
let ca: TestCa;
let rx: Receiver;
test.before(async () => {
  ca = makeTestCa();
  rx = await startReceiver(ca);
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_CA_FILE: ca.caFile });
  svc.service.app.webhookResolver = (host) =>
    host === 'hooks.test' ? Promise.resolve(['127.0.0.1']) : Promise.reject(new Error('NXDOMAIN'));
  origin = svc.internalUrl.replace('/internal/v1', '');
  const email = 'settings-owner@example.test';
  await svc.admin.POST('/users', { body: { name: 'Owner', email, password: PASSWORD, role: 'owner' } });
  owner = new FormBrowser(origin);
  await owner.signIn(email, PASSWORD);
});
test.after.always(async () => {
  await svc?.stop();
  await rx?.close();
  ca?.remove();
});

const PASSWORD = 'correct horse battery staple';
const HOSTILE = `<img src=x onerror="window.pwned=1">`;
const projectOf = async (projectId: string) =>
  (await svc.admin.GET('/projects/{projectId}', { params: { path: { projectId } } })).data!;

test('a new project with its languages and a first key, its secret shown once; refused input creates nothing', async (t) => {
  const { workspaceId } = await createTestProject(svc);
  const bad = await owner.post('/projects/new', {
    name: 'Refused',
    workspaceId,
    baseLang: 'en',
    languages: 'de en',
  });
  t.is(bad.status, 400);
  t.regex(await bad.text(), /Nothing was created/);
  t.false((await svc.admin.GET('/projects')).data!.projects.some((p) => p.name === 'Refused'));

  const made = await owner.post('/projects/new', {
    name: HOSTILE,
    workspaceId,
    baseLang: 'en',
    languages: 'de, ar  pt_BR',
    firstKey: 'on',
  });
  t.is(made.status, 303);
  const location = made.headers.get('location')!;
  t.regex(location, /^\/projects\/[^/]+\/api-keys$/);
  const projectId = decodeURIComponent(location.split('/')[2]);
  const p = await projectOf(projectId);
  t.is(p.name, HOSTILE);
  t.deepEqual(
    p.languages
      .filter((l) => !l.isBase)
      .map((l) => l.code)
      .sort(),
    ['ar', 'de', 'pt-br'],
  );
  const page = await (await owner.fetch(location)).text();
  const secret = /<code id="new-secret" class="mono">([^<]+)<\/code>/.exec(page)?.[1];
  t.truthy(secret, 'the secret is shown once');
  t.false(page.includes(HOSTILE), 'the name is escaped');
  t.false((await (await owner.fetch(location)).text()).includes(secret!), 'and only once');
  // The key works: a push with it is admitted (a dry run spends nothing).
  const push = await svc.client(secret).POST('/projects/{projectId}/translate', {
    params: { path: { projectId }, query: { dryRun: 'true' } },
    body: { units: [{ source: 'Hello' }] },
  });
  t.is(push.response.status, 200, JSON.stringify(push.error));
});

test('languages and output formats: added, removed, revived; the public rules refuse and nothing is written', async (t) => {
  const { projectId } = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const settings = `/projects/${projectId}/settings`;
  const add = await owner.post(`${settings}/languages`, { code: 'he', fillMode: 'manual' }, settings);
  t.is(add.status, 303);
  t.is(add.headers.get('location'), settings);
  const page = await (await owner.fetch(settings)).text();
  t.regex(page, /Added he \(manual\)/);
  t.regex(page, /<code lang="he">he<\/code>/);
  t.like(
    (await projectOf(projectId)).languages.find((l) => l.code === 'he'),
    { fillMode: 'manual', removed: false },
  );

  const base = await owner.post(`${settings}/languages`, { code: 'EN' }, settings);
  t.is(base.status, 400);
  t.regex(await base.text(), /base language.*Nothing changed/s);
  const hostile = await owner.post(`${settings}/languages`, { code: HOSTILE }, settings);
  t.is(hostile.status, 400);
  t.false((await hostile.text()).includes(HOSTILE));
  t.is((await projectOf(projectId)).languages.length, 3);

  t.is((await owner.post(`${settings}/languages/he/remove`, {}, settings)).status, 303);
  t.like(
    (await projectOf(projectId)).languages.find((l) => l.code === 'he'),
    { removed: true },
  );
  t.is((await owner.post(`${settings}/languages`, { code: 'he' }, settings)).status, 303);
  t.like(
    (await projectOf(projectId)).languages.find((l) => l.code === 'he'),
    { removed: false, fillMode: 'ai' },
  );
  t.is((await owner.post(`${settings}/languages/en/remove`, {}, settings)).status, 400);

  t.is((await owner.post(`${settings}/output-formats`, { format: 'json' }, settings)).status, 303);
  t.is((await owner.post(`${settings}/output-formats`, { format: 'po' }, settings)).status, 303);
  const third = await owner.post(`${settings}/output-formats`, { format: 'arb' }, settings);
  t.is(third.status, 409);
  t.regex(await third.text(), /at most 2 output formats/);
  t.is((await owner.post(`${settings}/output-formats`, { format: 'yaml' }, settings)).status, 400);
  t.deepEqual((await projectOf(projectId)).outputFormats, ['json', 'po']);
  // To change a format: the page offers removing one of two; the last one stays.
  t.regex(await (await owner.fetch(settings)).text(), /aria-label="Stop rendering json"/);
  const removed = await owner.post(`${settings}/output-formats/json/remove`, {}, settings);
  t.is(removed.status, 303);
  const after = await (await owner.fetch(settings)).text();
  t.regex(after, /Output formats: po\. Versions already published keep their files\./);
  t.notRegex(after, /Stop rendering/, 'no remove button for the last format');
  const last = await owner.post(`${settings}/output-formats/po/remove`, {}, settings);
  t.is(last.status, 409);
  t.regex(await last.text(), /po is the last output format.*Nothing changed/s);
  t.is((await owner.post(`${settings}/output-formats/yaml/remove`, {}, settings)).status, 400);
  t.is((await owner.post(`${settings}/output-formats`, { format: 'arb' }, settings)).status, 303);
  t.deepEqual((await projectOf(projectId)).outputFormats, ['po', 'arb']);

  // A reviewer is refused the pages and the internal routes behind them.
  const reviewer = { userId: 'usr_r', name: 'R', role: 'reviewer' as const };
  t.is((await asPerson(svc, reviewer, 'POST', `/projects/${projectId}/languages`, { code: 'fr' })).status, 403);
  t.is((await asPerson(svc, reviewer, 'POST', `/projects/${projectId}/output-formats`, { format: 'arb' })).status, 403);
  t.is((await asPerson(svc, reviewer, 'DELETE', `/projects/${projectId}/output-formats/po`)).status, 403);
  await svc.admin.POST('/users', {
    body: { name: 'Rev', email: 'settings-rev@example.test', password: PASSWORD, role: 'reviewer' },
  });
  const rb = new FormBrowser(origin);
  await rb.signIn('settings-rev@example.test', PASSWORD);
  t.is((await rb.fetch(settings)).status, 403);
  t.is((await rb.fetch('/projects/new')).status, 403);
});

test('the API keys page says what each scope opens, as the server enforces it', async (t) => {
  const p = await createTestProject(svc, { scopes: ['write'] });
  // A write-only key: push and sync need translate (403), adding a language is write's.
  const push = await p.client.POST('/projects/{projectId}/translate', {
    params: { path: { projectId: p.projectId }, query: { dryRun: 'true' } },
    body: { units: [{ source: 'Hello' }] },
  });
  t.is(push.response.status, 403);
  const sync = await p.client.POST('/projects/{projectId}/sync', {
    params: { path: { projectId: p.projectId }, query: { dryRun: 'true' } },
    body: { format: 'json', lang: 'en', content: '{}' } as never,
  });
  t.is(sync.response.status, 403);
  const lang = await p.client.POST('/projects/{projectId}/languages', {
    params: { path: { projectId: p.projectId } },
    body: { code: 'it' },
  });
  t.is(lang.response.status, 201);

  const page = await (await owner.fetch(`/projects/${p.projectId}/api-keys`)).text();
  const callsOf = (scope: string) => {
    const start = page.indexOf(`<summary>The calls <code>${scope}</code> allows</summary>`);
    t.true(start > 0, scope);
    return page.slice(start, page.indexOf('</ul>', start));
  };
  const write = callsOf('write');
  t.true(write.includes('POST /v1/projects/{projectId}/languages'));
  t.false(write.includes('/translate<'));
  t.false(write.includes('/sync<'));
  t.regex(page, /not push or sync \(those need translate\)/);
  const translate = callsOf('translate');
  t.true(translate.includes('POST /v1/projects/{projectId}/translate<'));
  t.true(translate.includes('POST /v1/projects/{projectId}/sync<'));
  t.true(callsOf('publish').includes('POST /v1/projects/{projectId}/publish<'));
  t.true(callsOf('capture').includes('POST /v1/projects/{projectId}/capture<'));
  t.false(callsOf('read').includes('POST '));
});

test('a test event is delivered to the one webhook and the log shows the body it sent, escaped', async (t) => {
  const p = await createTestProject(svc);
  const path = { projectId: p.projectId };
  const hookUrl = `https://hooks.test:${rx.port}/test-${p.projectId}`;
  const other = await svc.admin.POST('/projects/{projectId}/webhooks', {
    params: { path },
    body: { url: `${hookUrl}-other`, events: ['strings.published'] },
  });
  const made = await svc.admin.POST('/projects/{projectId}/webhooks', {
    params: { path },
    body: { url: hookUrl, events: ['content.published'] },
  });
  const webhookId = made.data!.webhookId;
  const page = `/projects/${p.projectId}/webhooks/${webhookId}`;
  const sent = await owner.post(`${page}/test`, {}, page);
  t.is(sent.status, 303);
  t.is(sent.headers.get('location'), page);
  await svc.admin.POST('/jobs/run-due', { body: {} });
  const got = rx.at(`/test-${p.projectId}`);
  t.is(got.length, 1);
  t.is(rx.at(`/test-${p.projectId}-other`).length, 0, 'only the webhook tested');
  const body = JSON.parse(got[0].body.toString()) as { type: string; data: { webhookId: string } };
  t.like(body, { type: 'webhook.test', data: { webhookId } });
  t.regex(got[0].headers['x-glossa-signature'], /^t=\d+,v1=[0-9a-f]{64}/, 'signed like every delivery');

  const log = await svc.admin.GET('/projects/{projectId}/webhooks/{webhookId}/deliveries', {
    params: { path: { ...path, webhookId } },
  });
  const d = log.data!.deliveries[0];
  t.like(d, { eventType: 'webhook.test', status: 'delivered', payload: got[0].body.toString() });
  const html = await (await owner.fetch(page)).text();
  t.regex(html, /A test event is queued/);
  t.regex(html, /<summary>Body sent/);
  t.true(html.includes('&quot;type&quot;: &quot;webhook.test&quot;'));
  t.is(other.response.status, 201);
  // Another project's webhook, or none: 404, nothing recorded.
  const none = await svc.admin.POST('/projects/{projectId}/webhooks/{webhookId}/test', {
    params: { path: { projectId: p.projectId, webhookId: 'whk_none' } },
  });
  t.is(none.response.status, 404);
});
