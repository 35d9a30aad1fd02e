// The Terms pages over real HTTP (SQLite and MySQL), what the browser test (test/e2e/consumers/dashboard-terms.test.ts)
// does not reach: refusals shown on the form with nothing written, a post without its CSRF token, pages of 50,
// unknown projects and terms, and hostile term texts escaped on the Terms page and in the key editor's marks.
import test from 'ava';
import { sync } from '../../packages/client/src/index.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';
import { FormBrowser } from '../helpers/form-browser.js';

let svc: TestService;
let origin: string;
const WHO = { name: 'Tess Terms', email: 'terms-dashboard@example.test', password: 'a long enough password' };
test.before(async () => {
  svc = await startTestService();
  origin = svc.internalUrl.replace('/internal/v1', '');
  await svc.admin.POST('/users', { body: { ...WHO, role: 'reviewer' } });
});
test.after.always(() => svc?.stop());

/** The dashboard over real HTTP as WHO (test/helpers/form-browser.ts). */
class Browser extends FormBrowser {
  constructor() {
    super(origin);
  }
  signInAs() {
    return this.signInWaiting(WHO);
  }
}

const termsOf = async (p: TestProject) =>
  (
    await svc.admin.GET('/projects/{projectId}/terms', {
      params: { path: { projectId: p.projectId }, query: { limit: 200 } },
    })
  ).data!.terms;

test('a refused term is shown on the form with what was typed, and nothing is added', async (t) => {
  const p = await createTestProject(svc);
  const b = new Browser();
  await b.signInAs();
  const path = `/projects/${p.projectId}/terms`;
  const csrf = await b.csrfOf(path);
  const empty = await b.fetch(path, { csrf, text: '  ', tr_de: 'Konto' });
  t.is(empty.status, 400);
  t.regex(await empty.text(), /A term cannot be empty; nothing was added\./);
  const foreign = await b.fetch(path, { csrf, text: 'account', tr_ja: 'アカウント', description: 'kept <here>' });
  t.is(foreign.status, 400);
  const page = await foreign.text();
  t.regex(page, /ja is not a target language of this project[^<]*Nothing was added\./);
  t.regex(page, /value="kept &lt;here&gt;"/, 'the form keeps what was typed');
  t.is((await termsOf(p)).length, 0);
  const noToken = await b.fetch(path, { text: 'account' });
  t.is(noToken.status, 403);
  t.is((await termsOf(p)).length, 0);
});

test('an edit refused shows the edit form again; unknown projects and terms are 404 pages', async (t) => {
  const p = await createTestProject(svc);
  const made = await svc.admin.POST('/projects/{projectId}/terms', {
    params: { path: { projectId: p.projectId } },
    body: { text: 'invoice', translations: { de: 'Rechnung' } },
  });
  const termPath = `/projects/${p.projectId}/terms/${made.data!.termId}`;
  const b = new Browser();
  await b.signInAs();
  const csrf = await b.csrfOf(termPath);
  const r = await b.fetch(termPath, { csrf, text: '', tr_de: 'Faktura' });
  t.is(r.status, 400);
  t.regex(await r.text(), /A term cannot be empty; nothing changed\./);
  const bad = await b.fetch(termPath, { csrf, text: 'invoice', 'tr_not a code': 'x' });
  t.is(bad.status, 400);
  t.regex(await bad.text(), /Nothing changed\./);
  t.like((await termsOf(p))[0], { text: 'invoice', translations: { de: 'Rechnung' } });
  for (const path of [
    `/projects/${p.projectId}/terms/term_nope`,
    `/projects/${p.projectId}/terms/term_nope/delete`,
    '/projects/p_nope/terms',
  ])
    t.is((await b.fetch(path)).status, 404, path);
  const gone = await b.fetch(`/projects/${p.projectId}/terms/term_nope/delete`, { csrf });
  t.is(gone.status, 404);
});

test('the list pages by 50 and keeps its filter in the page links', async (t) => {
  const p = await createTestProject(svc);
  for (let i = 0; i < 55; i++)
    await svc.admin.POST('/projects/{projectId}/terms', {
      params: { path: { projectId: p.projectId } },
      body: { text: `word${String(i).padStart(2, '0')}`, translations: i % 2 ? { de: `Wort${i}` } : {} },
    });
  const b = new Browser();
  await b.signInAs();
  const first = await (await b.fetch(`/projects/${p.projectId}/terms`)).text();
  t.regex(first, /Terms 1 to 50 of 55/);
  t.regex(first, /href="\/projects\/[^"]+\/terms\?offset=50">Next page/);
  const second = await (await b.fetch(`/projects/${p.projectId}/terms?offset=50`)).text();
  t.regex(second, /Terms 51 to 55 of 55/);
  t.regex(second, /Previous page/);
  const filtered = await (await b.fetch(`/projects/${p.projectId}/terms?q=word1&lang=de&scope=project`)).text();
  t.regex(filtered, /Terms 1 to 5 of 5/, 'word11, 13, 15, 17, 19 have a German translation');
  t.regex(await (await b.fetch(`/projects/${p.projectId}/terms?q=nothing`)).text(), /No term matches the filter\./);
});

test('term texts are escaped on the Terms page and in the key editor’s marks', async (t) => {
  const p = await createTestProject(svc);
  const evil = '<img src=x onerror=alert(1)>';
  await svc.admin.POST('/projects/{projectId}/terms', {
    params: { path: { projectId: p.projectId } },
    body: { text: 'alert', description: evil, translations: { de: `"${evil}` }, forbidden: true },
  });
  await sync(p.client, p.projectId, {
    contentBase64: Buffer.from(JSON.stringify({ k: 'Raise an alert <b>now</b>' })).toString('base64'),
    fileName: 'en.json',
  });
  const b = new Browser();
  await b.signInAs();
  const list = await (await b.fetch(`/projects/${p.projectId}/terms`)).text();
  t.false(list.includes(evil));
  t.true(list.includes('&lt;img src=x onerror=alert(1)&gt;'));
  const editor = await (await b.fetch(`/projects/${p.projectId}/keys/k`)).text();
  t.regex(
    editor,
    /Raise an <mark class="term" title="alert: never de: &quot;&lt;img[^"]*">alert<\/mark> &lt;b&gt;now&lt;\/b&gt;/,
  );
  t.false(editor.includes(evil));
});
