// The key list, the editor and the captured keys: their internal API over HTTP with the admin token
// (filters, paging, bulk review and switches, a key's cells with gate verdicts and history, checks without saving,
// captured keys' review, a reviewer refused owner actions), on SQLite and on MySQL with TEST_DB=mysql; and the
// pages in Debian's Chromium (playwright-core), signed in as an owner and as a reviewer, axe-clean, with hostile
// key names, sources and translations shown literally and never run.
import test from 'ava';
import type { Page } from 'playwright-core';
import type { components } from '../../../generated/internal.js';
import { translate } from '../../../packages/client/src/index.js';
import { ACTOR_PLUGIN } from '../../../server/http/pipeline.js';
import { seriousViolations } from '../../helpers/axe.js';
import { signIn as signInAs } from '../../helpers/signin.js';
import { launchChromium, type Chromium } from '../../helpers/chromium.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../../helpers/service.js';

type Filter = components['schemas']['KeyFilter'];

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const runDue = () => svc.admin.POST('/jobs/run-due', { body: {} });
const path = (p: TestProject) => ({ path: { projectId: p.projectId } });

async function list(p: TestProject, query: Filter & { offset?: number; limit?: number } = {}) {
  const r = await svc.admin.GET('/projects/{projectId}/keys', { params: { ...path(p), query } });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data;
}
const names = async (p: TestProject, query: Filter = {}) => (await list(p, query)).keys.map((k) => k.key);

const put = (
  p: TestProject,
  key: string,
  lang: string,
  body: { value?: string; status?: 'translated' | 'reviewed' | 'approved' },
) =>
  svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key, lang } },
    body,
  });

/** A project with de, fr (AI) and it (manual): four keys filled by the pseudo engine, one fr fill failed. */
async function reviewProject() {
  const p = await createTestProject(svc, {
    languages: [{ code: 'de' }, { code: 'fr' }, { code: 'it', fillMode: 'manual' }],
  });
  const r = await translate(p.client, p.projectId, {
    units: [
      { key: 'home.title', source: 'Welcome home' },
      { key: 'cart.items', source: '{count, plural, one {# item} other {# items}}' },
      { key: 'greeting', source: 'Hello {name}' },
      { key: 'discount', source: '100% off' },
    ],
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  await runDue();
  const db = svc.service.app.db;
  const key = await db('keys').where({ project_id: p.projectId, name: 'greeting' }).first<{ id: number }>('id');
  // The engine refused this pair: a pending marker with the reason (what fill.ts records).
  await db('translations')
    .where({ key_id: key.id, lang: 'fr' })
    .update({ status: 'pending', value: null, origin: null, job_id: null, fail_reason: 'engine refused the pair' });
  return p;
}

test.serial('the key list filters by status, language, origin, search, refusals, conflicts and pages', async (t) => {
  const p = await reviewProject();
  const all = await list(p);
  t.is(all.total, 4);
  t.is(all.limit, 50);
  t.deepEqual(all.langs, ['de', 'fr', 'it']);
  const greeting = all.keys.find((k) => k.key === 'greeting')!;
  t.deepEqual(
    greeting.cells.map((c) => [c.lang, c.status]),
    [
      ['de', 'translated'],
      ['fr', 'failed'],
      ['it', 'missing'],
    ],
  );
  t.is(greeting.cells[1].failed, 'engine refused the pair');
  t.is(greeting.cells[0].origin, 'ai');

  t.deepEqual(await names(p, { status: 'failed' }), ['greeting']);
  t.deepEqual(await names(p, { status: 'failed', lang: 'de' }), []);
  t.deepEqual((await names(p, { status: 'missing', lang: 'it' })).length, 4);
  t.deepEqual((await names(p, { status: 'missing', lang: 'de' })).length, 0);
  t.deepEqual((await names(p, { status: 'translated', lang: 'fr' })).sort(), ['cart.items', 'discount', 'home.title']);

  // A person's edit: origin edit, history with the admin as actor; approved.
  t.is((await put(p, 'home.title', 'de', { value: 'Willkommen daheim', status: 'approved' })).response.status, 200);
  t.deepEqual(await names(p, { status: 'approved' }), ['home.title']);
  t.deepEqual(await names(p, { origin: 'edit' }), ['home.title']);
  t.deepEqual(await names(p, { origin: 'ai', lang: 'de' }), ['cart.items', 'greeting', 'discount']);

  // Search: key name, source, translation text; case-insensitive; % and _ are literal.
  t.deepEqual(await names(p, { q: 'DAHEIM' }), ['home.title']);
  t.deepEqual(await names(p, { q: 'cart.' }), ['cart.items']);
  t.deepEqual(await names(p, { q: 'hello' }), ['greeting']);
  t.deepEqual(await names(p, { q: '100%' }), ['discount']);
  t.deepEqual(await names(p, { q: '_' }), []);

  // Refusals: a value whose placeholder differs from its source's.
  await put(p, 'greeting', 'de', { value: 'Hallo {nom}' });
  t.deepEqual(await names(p, { refusals: true }), ['greeting']);
  t.is((await names(p, { refusals: false })).length, 3);
  await put(p, 'greeting', 'de', { value: 'Hallo {name}' });
  t.deepEqual(await names(p, { refusals: true }), []);

  // Conflicts: a file value a sync kept out.
  const db = svc.service.app.db;
  const cart = await db('keys').where({ project_id: p.projectId, name: 'cart.items' }).first<{ id: number }>('id');
  await db('translations').where({ key_id: cart.id, lang: 'fr' }).update({ conflict_value: 'from the file' });
  t.deepEqual(await names(p, { conflicts: true }), ['cart.items']);
  t.true((await list(p, { q: 'cart' })).keys[0].cells.find((c) => c.lang === 'fr')!.conflict);

  // Changed since a version.
  const v = await p.client.POST('/projects/{projectId}/publish', { params: path(p), body: { incompleteMode: 'skip' } });
  t.is(v.response.status, 201, JSON.stringify(v.error));
  t.deepEqual(await names(p, { changedSince: v.data!.versionId }), []);
  await new Promise((r) => setTimeout(r, 5));
  await put(p, 'discount', 'fr', { value: '100 % de remise' });
  t.deepEqual(await names(p, { changedSince: v.data!.versionId }), ['discount']);
  t.is(
    (
      await svc.admin.GET('/projects/{projectId}/keys', {
        params: { ...path(p), query: { changedSince: '2001.01.01.1' } },
      })
    ).response.status,
    404,
  );

  // Paging.
  const page = await list(p, { limit: 2, offset: 1 });
  t.is(page.total, 4);
  t.deepEqual(
    page.keys.map((k) => k.key),
    all.keys.slice(1, 3).map((k) => k.key),
  );
  const tooMany = await svc.admin.GET('/projects/{projectId}/keys', { params: { ...path(p), query: { limit: 201 } } });
  t.is(tooMany.response.status, 400);
  const badLang = await svc.admin.GET('/projects/{projectId}/keys', { params: { ...path(p), query: { lang: 'xx' } } });
  t.is(badLang.response.status, 400);
});

test.serial(
  'bulk review, switches and retry over a filtered set; a reviewer is refused the owner actions',
  async (t) => {
    const p = await reviewProject();
    const review = (body: components['schemas']['KeyFilter'], action: 'approve' | 'review', lang?: string) =>
      svc.admin.POST('/projects/{projectId}/keys/bulk-review', {
        params: path(p),
        body: { filter: body, action, lang },
      });
    const r1 = await review({ status: 'translated', lang: 'de' }, 'review');
    t.deepEqual(r1.data, { affected: 4 });
    t.is((await names(p, { status: 'reviewed', lang: 'de' })).length, 4);
    const r2 = await review({ q: 'home' }, 'approve');
    t.deepEqual(r2.data, { affected: 2 }, 'de and fr of home.title');
    t.deepEqual(await names(p, { status: 'approved' }), ['home.title']);
    const r3 = await review({ q: 'home' }, 'review');
    t.deepEqual(r3.data, { affected: 0 }, 'an approved cell is never moved down');

    const bulk = (filter: Filter, action: 'disable' | 'enable' | 'retry') =>
      svc.admin.POST('/projects/{projectId}/keys/bulk', { params: path(p), body: { filter, action } });
    t.deepEqual((await bulk({ q: 'discount' }, 'disable')).data, { affected: 1 });
    t.deepEqual(await names(p, { disabled: true }), ['discount']);
    t.deepEqual((await bulk({ disabled: true }, 'enable')).data, { affected: 1 });
    t.deepEqual(await names(p, { disabled: true }), []);

    const retried = await bulk({ status: 'failed' }, 'retry');
    t.is(retried.data!.affected, 1);
    t.truthy(retried.data!.trackingToken);
    await runDue();
    t.deepEqual(await names(p, { status: 'failed' }), []);
    t.deepEqual(await names(p, { status: 'translated', lang: 'fr' }), ['cart.items', 'greeting', 'discount']);

    // A reviewer (the dashboard's in-process call) may review but not switch keys.
    const asReviewer = (url: string, payload: object) =>
      svc.service.main.inject({
        method: 'POST',
        url: `/internal/v1/projects/${p.projectId}${url}`,
        payload,
        headers: { 'content-type': 'application/json' },
        plugins: { [ACTOR_PLUGIN]: { userId: 'usr_reviewer', name: 'Rita', role: 'reviewer' } },
      });
    const ok = await asReviewer('/keys/bulk-review', { filter: { lang: 'fr' }, action: 'approve' });
    t.is(ok.statusCode, 200, ok.payload);
    t.is((JSON.parse(ok.payload) as { affected: number }).affected, 3);
    const refused = await asReviewer('/keys/bulk', { filter: {}, action: 'disable' });
    t.is(refused.statusCode, 403);
    t.deepEqual(await names(p, { disabled: true }), [], 'nothing changed');
    const history = (
      await svc.admin.GET('/projects/{projectId}/keys/{key}', {
        params: { path: { projectId: p.projectId, key: 'greeting' } },
      })
    ).data!.history;
    t.like(history[0], { lang: 'fr', status: 'approved', by: 'usr_reviewer' });
  },
);

test.serial('one key: cells with gate verdicts and format warnings, history of every value, checks', async (t) => {
  const p = await reviewProject();
  await put(p, 'cart.items', 'de', { value: '{count, plural, one {# Artikel} other {# Artikel}}' });
  await put(p, 'cart.items', 'de', { status: 'approved' });
  await put(p, 'cart.items', 'fr', { value: '{count, plural, one {# article} other {# articles} many {beaucoup}}' });
  const k = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key: 'cart.items' } },
  });
  t.is(k.response.status, 200, JSON.stringify(k.error));
  const d = k.data!;
  t.is(d.baseLang, 'en');
  t.deepEqual(
    d.cells.map((c) => [c.lang, c.status, c.origin]),
    [
      ['de', 'approved', 'edit'],
      ['fr', 'translated', 'edit'],
      ['it', 'missing', null],
    ],
  );
  t.deepEqual(d.cells[0].gate, {});
  t.true(d.cells[0].updatedAt !== null);
  t.deepEqual(d.cells[2].gate, {});
  // The history, newest first: the two edits, the approval, and the AI fills.
  t.deepEqual(
    d.history.map((h) => [h.lang, h.status, h.origin, h.by]),
    [
      ['fr', 'translated', 'edit', 'admin'],
      ['de', 'approved', 'edit', 'admin'],
      ['de', 'translated', 'edit', 'admin'],
      ...d.history.slice(3).map((h) => [h.lang, 'translated', 'ai', 'ai']),
    ],
  );
  t.is(d.history.length, 5, 'two AI fills');

  const check = (value: string, lang = 'de') =>
    svc.admin.POST('/projects/{projectId}/keys/{key}/check', {
      params: { path: { projectId: p.projectId, key: 'cart.items' } },
      body: { lang, value },
    });
  t.like((await check('{count, plural, one {# Ding} other {# Dinge}}')).data, { ok: true, gate: {} });
  const bad = (await check('{count, plural, other {# Dinge}')).data!;
  t.false(bad.ok);
  t.regex(bad.gate.icu!, /ICU/);
  const tags = (await check('{count, plural, one {<b>#</b> Ding} other {# Dinge}}')).data!;
  t.false(tags.ok);
  t.truthy(tags.gate.markup ?? tags.gate.icu);
  t.is((await check('x', 'xx')).response.status, 400);
  const missing = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key: 'nope' } },
  });
  t.is(missing.response.status, 404);
});

test.serial(
  'captured keys: accept makes a normal key, dismiss switches it off and keeps it out of capture',
  async (t) => {
    const p = await createTestProject(svc);
    const capturer = svc.client(await createTestKey(svc, p.projectId, ['capture']));
    const capture = (sources: string[]) =>
      capturer.POST('/projects/{projectId}/capture', {
        params: path(p),
        body: { units: sources.map((source) => ({ source })) },
      });
    t.like((await capture(['Keep me', 'Drop me'])).data, { captured: 2 });
    const waiting = await names(p, { captured: true, disabled: false });
    t.deepEqual(waiting.sort(), ['drop_me', 'keep_me']);
    const review = (action: 'accept' | 'dismiss', keys: string[]) =>
      svc.admin.POST('/projects/{projectId}/captured', { params: path(p), body: { action, keys } });
    t.deepEqual((await review('accept', ['keep_me', 'not_a_key'])).data, { affected: 1 });
    t.deepEqual((await review('dismiss', ['drop_me'])).data, { affected: 1 });
    t.deepEqual((await review('dismiss', ['keep_me'])).data, { affected: 0 }, 'no longer captured');
    t.deepEqual(await names(p, { captured: true, disabled: false }), []);
    const kept = (await list(p, { q: 'keep' })).keys[0];
    t.like(kept, { captured: false, enabled: true, sourceVerified: true });
    t.like((await capture(['Drop me'])).data, { captured: 0, skipped: 1 }, 'a dismissed string is not captured again');
  },
);

// ---------------------------------------------------------------------------------------------------------------
// The pages, in Chromium.

const HOSTILE_IMG = '<img src=x onerror="window.pwned=1">';
const HOSTILE_SCRIPT = '<script>window.pwned=2</script>';
let browser: Chromium | undefined;
let page: Page;
let origin: string;
const OWNER = { email: 'owner-keys@example.test', password: 'a long enough password', name: 'Olga <Owner>' };
const REVIEWER = { email: 'reviewer-keys@example.test', password: 'another long password', name: 'Rita Reviewer' };

const signIn = (who: { email: string; password: string }) => signInAs(page, origin, who);

async function browserReady() {
  if (browser) return;
  origin = svc.internalUrl.replace('/internal/v1', '');
  svc.service.app.config.publicAppUrl = origin;
  for (const [u, role] of [
    [OWNER, 'owner'],
    [REVIEWER, 'reviewer'],
  ] as const)
    await svc.admin.POST('/users', { body: { name: u.name, email: u.email, password: u.password, role } });
  browser = await launchChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
}
test.after.always(async () => {
  await browser?.close();
});

const pwned = () => page.evaluate(() => (window as unknown as { pwned?: number }).pwned);
const mainText = async () => (await page.locator('main').innerText()).replace(/\s+/g, ' ');

test.serial('owner: find failed and unreviewed cells with filters, then bulk-approve a filtered set', async (t) => {
  await browserReady();
  const p = await reviewProject();
  await signIn(OWNER);
  const keysUrl = `${origin}/projects/${p.projectId}/keys`;
  await page.goto(keysUrl);
  t.regex(await page.locator('#key-count').innerText(), /^4 keys match/);
  t.deepEqual(await seriousViolations(page), []);

  // Failed cells: the status filter, as a shareable URL. The list is replaced in place (dashboard.js soft
  // navigation): the document stays, and what it shows is the page the URL serves.
  await page.evaluate(() => ((window as unknown as { sameDocument?: boolean }).sameDocument = true));
  await page.getByLabel('Status').selectOption('failed');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/status=failed/);
  await page
    .locator('#key-count')
    .filter({ hasText: /\b1 key matches/ })
    .waitFor();
  t.is(await page.locator('table.keys tbody th a').innerText(), 'greeting');
  t.regex(await mainText(), /engine refused the pair/);
  t.true(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true));
  t.is(await page.title(), 'Keys · Glossa');
  // The script focuses the heading at the next animation frame (server/web/assets/dashboard.js), after the list.
  t.true(
    await page
      .waitForFunction(() => document.activeElement?.tagName === 'H1', null, { timeout: 5_000 })
      .then(
        () => true,
        () => false,
      ),
    'focus moves to the new heading',
  );
  t.deepEqual(await seriousViolations(page), []);
  // Back shows the list before the filter, and Forward the filtered one again.
  await page.goBack();
  await page
    .locator('#key-count')
    .filter({ hasText: /\b4 keys match/ })
    .waitFor();
  t.is(await page.getByLabel('Status').inputValue(), '');
  await page.goForward();
  await page
    .locator('#key-count')
    .filter({ hasText: /\b1 key matches/ })
    .waitFor();
  t.true(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true));
  // The same URL loaded whole shows the same list.
  await page.reload();
  t.regex(await page.locator('#key-count').innerText(), /^1 key matches/);
  t.is(await page.getByLabel('Status').inputValue(), 'failed');

  // Unreviewed cells of one language.
  await page.goto(`${keysUrl}?lang=fr&status=translated`);
  t.is(await page.getByLabel('Language').inputValue(), 'fr');
  t.deepEqual((await page.locator('table.keys tbody th a').allInnerTexts()).sort(), [
    'cart.items',
    'discount',
    'home.title',
  ]);

  // Bulk approve the filtered set: a confirmation names the count, then the cells move.
  await page.getByLabel(/Bulk action on the 3 matching keys/).selectOption('approve');
  await page.getByRole('button', { name: 'Review and apply…' }).click();
  t.regex(await page.locator('#bulk-summary').innerText(), /Approve for 3 keys .*status translated in fr.*in fr/);
  t.deepEqual(await seriousViolations(page), []);
  await page.getByRole('button', { name: 'Confirm: Approve' }).click();
  await page.waitForURL((u) => u.pathname.endsWith('/keys'));
  t.regex(await page.locator('p.notice').innerText(), /^3 cells approved\./);
  t.false(page.url().includes('affected'), 'the notice comes from a flash, not the URL');
  await page.reload();
  t.is(await page.locator('p.notice').count(), 0, 'shown once');
  t.deepEqual(await names(p, { status: 'approved', lang: 'fr' }), ['home.title', 'cart.items', 'discount']);
  t.deepEqual(await names(p, { status: 'approved', lang: 'de' }), [], 'only fr moved');
});

test.serial(
  'owner: edit and approve a plural translation with the preview; the gates refuse a broken value',
  async (t) => {
    await browserReady();
    const p = await reviewProject();
    await signIn(OWNER);
    await page.goto(`${origin}/projects/${p.projectId}/keys/cart.items`);
    t.deepEqual(await seriousViolations(page), []);
    const fr = page.locator('#cell-fr');
    // French has one, many and other: the preview shows a line for each.
    const labels = async () => (await fr.locator('.preview-lines dt').allInnerTexts()).join(' | ');
    t.regex(await labels(), /count = 1 \(one\) \| count = 1000000 \(many\) \| count = 2 \(other\)/);
    const de = page.locator('#cell-de');
    t.regex((await de.locator('.preview-lines dt').allInnerTexts()).join(' | '), /\(one\) \| .*\(other\)$/);

    // Typing refreshes the preview (dashboard.js).
    const area = page.getByLabel('Translation (fr)');
    await area.fill('{count, plural, one {# article} many {# d’articles} other {# articles}}');
    await t.notThrowsAsync(fr.locator('.preview-lines dd', { hasText: '1 000 000 d’articles' }).waitFor());
    t.true(await fr.locator('.preview-lines dd', { hasText: '1 article' }).isVisible());

    // Check renders the verdicts without saving; Save refuses what the gates refuse.
    await area.fill('{count, plural, one {# article} other {# articles} many {<b>#</b>}}');
    await fr.getByRole('button', { name: 'Check' }).click();
    t.regex(await page.locator('#cell-fr .verdicts').innerText(), /Markup: tags differ/);
    await page.locator('#cell-fr').getByRole('button', { name: 'Save' }).click();
    t.regex(await page.locator('#cell-fr [role=alert]').innerText(), /The gates refuse this value/);
    t.deepEqual(await seriousViolations(page), []);
    const before = (
      await svc.admin.GET('/projects/{projectId}/keys/{key}', {
        params: { path: { projectId: p.projectId, key: 'cart.items' } },
      })
    ).data!;
    t.not(
      before.cells.find((c) => c.lang === 'fr')!.value,
      '{count, plural, one {# article} other {# articles} many {<b>#</b>}}',
    );

    await page
      .getByLabel('Translation (fr)')
      .fill('{count, plural, one {# article} many {# d’articles} other {# articles}}');
    await page.locator('#cell-fr').getByLabel('Status').selectOption('approved');
    await page.locator('#cell-fr').getByRole('button', { name: 'Save' }).click();
    await page.locator('p.notice', { hasText: 'Saved (fr).' }).waitFor();
    t.is(await page.locator('p.notice').innerText(), 'Saved (fr).');
    t.false(page.url().includes('?'), 'the notice is not in the URL');
    const after = (
      await svc.admin.GET('/projects/{projectId}/keys/{key}', {
        params: { path: { projectId: p.projectId, key: 'cart.items' } },
      })
    ).data!;
    t.like(
      after.cells.find((c) => c.lang === 'fr'),
      {
        status: 'approved',
        origin: 'edit',
        value: '{count, plural, one {# article} many {# d’articles} other {# articles}}',
      },
    );
    t.like(after.history[0], { lang: 'fr', status: 'approved', byName: OWNER.name });
    // The history shows who, and a diff against the previous value; revert saves the older value again.
    const row = page.locator('table.history tbody tr').first();
    t.regex(await row.innerText(), /Olga <Owner>/);
    t.true((await row.locator('td.diff ins').count()) > 0);
    await page.getByRole('button', { name: 'Revert fr to this value' }).first().click();
    await page.locator('p.notice', { hasText: 'Saved (fr).' }).waitFor();
    const reverted = (
      await svc.admin.GET('/projects/{projectId}/keys/{key}', {
        params: { path: { projectId: p.projectId, key: 'cart.items' } },
      })
    ).data!;
    t.is(reverted.cells.find((c) => c.lang === 'fr')!.value, before.cells.find((c) => c.lang === 'fr')!.value);
    t.deepEqual(await seriousViolations(page), []);
  },
);

test.serial('captured keys: accept one, dismiss one; hostile names, sources and translations never run', async (t) => {
  await browserReady();
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const capturer = svc.client(await createTestKey(svc, p.projectId, ['capture']));
  await capturer.POST('/projects/{projectId}/capture', {
    params: path(p),
    body: { units: [{ source: 'Keep me' }, { source: HOSTILE_IMG }, { source: HOSTILE_SCRIPT, ctx: HOSTILE_IMG }] },
  });
  const pushed = await translate(p.client, p.projectId, {
    units: [
      { key: 'hostile.one', source: HOSTILE_SCRIPT },
      { key: 'hostile.two', source: 'Plain {name}' },
    ],
  });
  t.is(pushed.response.status, 200, JSON.stringify(pushed.error));
  await runDue();
  // The API holds pushed names to a pattern; names stored by other paths (or older versions) are shown all the same.
  const db = svc.service.app.db;
  await db('keys').where({ project_id: p.projectId, name: 'hostile.one' }).update({ name: HOSTILE_IMG });
  await db('keys').where({ project_id: p.projectId, name: 'hostile.two' }).update({ name: HOSTILE_SCRIPT });
  // The editor refuses markup that would run in an app (packages/core/src/markup.ts); a sync stores its file's values
  // verbatim, so such a value can still be in a cell and is shown there all the same.
  t.is((await put(p, HOSTILE_SCRIPT, 'de', { value: `${HOSTILE_IMG} {name}` })).response.status, 400);
  t.is((await put(p, HOSTILE_SCRIPT, 'de', { value: 'Hallo {name}' })).response.status, 200);
  const hostileKey = await db('keys')
    .where({ project_id: p.projectId, name: HOSTILE_SCRIPT })
    .first<{ id: number }>('id');
  await db('translations')
    .where({ key_id: hostileKey.id, lang: 'de' })
    .update({ value: `${HOSTILE_IMG} {name}`, origin: 'import' });
  await db('translation_history').insert({
    project_id: p.projectId,
    key_id: hostileKey.id,
    lang: 'de',
    value: `${HOSTILE_IMG} {name}`,
    status: 'translated',
    origin: 'import',
    actor: 'sync',
    created_at: Date.now(),
  });
  await signIn(OWNER);

  await page.goto(`${origin}/projects/${p.projectId}/captured`);
  t.deepEqual(await seriousViolations(page), []);
  for (const s of ['Keep me', HOSTILE_IMG, HOSTILE_SCRIPT])
    t.true((await page.locator('table.captured td.source', { hasText: s }).count()) >= 1, `shown literally: ${s}`);
  t.is(await page.locator('main img, main script').count(), 0);
  const captured = await names(p, { captured: true });
  const keep = captured.find((n) => n.startsWith('keep'))!;
  const drop = captured.find((n) => !n.startsWith('keep') && n !== keep)!;
  await page.getByLabel(`Select ${keep}`).check();
  // Post/redirect/get: the captured page the redirect opens tells what happened from a one-time flash.
  await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'GET' && r.url().endsWith('/captured')),
    page.getByRole('button', { name: 'Accept selected' }).click(),
  ]);
  await page.waitForLoadState();
  t.regex(await page.locator('p.notice').innerText(), /^1 accepted\./);
  await page.getByLabel(`Select ${drop}`).check();
  // Post/redirect/get: the captured page the redirect opens tells what happened from a one-time flash.
  await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'GET' && r.url().endsWith('/captured')),
    page.getByRole('button', { name: 'Dismiss selected' }).click(),
  ]);
  await page.waitForLoadState();
  t.regex(await page.locator('p.notice').innerText(), /^1 dismissed\./);
  t.like((await list(p, { q: 'Keep me' })).keys[0], { captured: false, enabled: true });
  t.deepEqual(await names(p, { captured: true, disabled: true }), [drop]);
  t.is((await names(p, { captured: true, disabled: false })).length, 1);

  // The key list and the editor of hostile keys.
  await page.goto(`${origin}/projects/${p.projectId}/keys?captured=no`);
  t.deepEqual(await seriousViolations(page), []);
  for (const s of [HOSTILE_IMG, HOSTILE_SCRIPT])
    t.true((await page.locator('table.keys tbody th a', { hasText: s }).count()) >= 1, `key name shown: ${s}`);
  t.true((await page.locator('table.keys .value', { hasText: `${HOSTILE_IMG} {name}` }).count()) === 1);
  t.is(await page.locator('main img, main script').count(), 0);
  await page.locator('table.keys tbody th a', { hasText: HOSTILE_IMG }).click();
  t.is(await page.locator('h1 code').innerText(), HOSTILE_IMG);
  t.is(await page.locator('dd.source').innerText(), HOSTILE_SCRIPT);
  await page.goto(`${origin}/projects/${p.projectId}/keys/${encodeURIComponent(HOSTILE_SCRIPT)}`);
  t.is(await page.getByLabel('Translation (de)').inputValue(), `${HOSTILE_IMG} {name}`);
  t.regex(await page.locator('#cell-de .preview').innerText(), /<img src=x onerror="window.pwned=1"> ‹name›/);
  t.regex(await page.locator('table.history').innerText(), /<img src=x/);
  await page.getByLabel('Translation (de)').fill(`${HOSTILE_SCRIPT} {name}`);
  await t.notThrowsAsync(page.locator('#cell-de .preview dd', { hasText: 'window.pwned=2' }).waitFor());
  t.is(await page.locator('main img, main script').count(), 0);
  t.deepEqual(await seriousViolations(page), []);
  t.is(await pwned(), undefined);
});

test.serial('a reviewer edits and approves, but the API refuses them disabling keys (403)', async (t) => {
  await browserReady();
  const p = await reviewProject();
  await signIn(REVIEWER);
  await page.goto(`${origin}/projects/${p.projectId}/keys/greeting`);
  await page.getByLabel('Translation (de)').fill('Servus {name}');
  await page.locator('#cell-de').getByLabel('Status').selectOption('approved');
  await page.locator('#cell-de').getByRole('button', { name: 'Save' }).click();
  await page.locator('p.notice', { hasText: 'Saved (de).' }).waitFor();
  const k = (
    await svc.admin.GET('/projects/{projectId}/keys/{key}', {
      params: { path: { projectId: p.projectId, key: 'greeting' } },
    })
  ).data!;
  t.like(k.cells[0], { lang: 'de', value: 'Servus {name}', status: 'approved' });
  t.like(k.history[0], { byName: REVIEWER.name });

  // The list offers a reviewer the review actions only; the server refuses the others anyway.
  await page.goto(`${origin}/projects/${p.projectId}/keys`);
  t.deepEqual(await page.locator('#bulk-action option').allInnerTexts(), ['Approve', 'Mark reviewed']);
  const csrf = await page.locator('form.bulk input[name=csrf]').inputValue();
  const r = await page.request.post(`${origin}/projects/${p.projectId}/key-actions`, {
    form: { csrf, action: 'disable', confirm: 'yes' },
    headers: { origin },
  });
  t.is(r.status(), 403);
  t.regex(await r.text(), /Only an owner can disable, enable or retry keys; nothing changed\./);
  t.deepEqual(await names(p, { disabled: true }), []);
  t.deepEqual(await seriousViolations(page), []);
});

test.serial(
  'comments: a reviewer asks with a mention, the owner replies, each deletes their own; nothing hostile runs',
  async (t) => {
    await browserReady();
    const p = await reviewProject();
    await signIn(REVIEWER);
    await page.goto(`${origin}/projects/${p.projectId}/keys/greeting`);
    t.regex(await mainText(), /No comments yet\./);
    const question = `Formal or informal here, @${OWNER.email}? ${HOSTILE_IMG}`;
    await page.getByLabel('New comment').fill(question);
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    await page.locator('p.notice', { hasText: `Comment added; it mentions ${OWNER.name}.` }).waitFor();
    const first = page.locator('article.comment').first();
    t.is(await first.locator('.mention').innerText(), `@${OWNER.name}`);
    t.regex(await first.locator('.comment-body').innerText(), /<img src=x onerror="window\.pwned=1">/);
    t.is(await first.locator('strong').innerText(), REVIEWER.name);
    t.is(
      await first.locator('.comment-body').getAttribute('dir'),
      'auto',
      'Arabic or Hebrew comments read right to left',
    );
    t.deepEqual(await seriousViolations(page), []);

    // The owner replies in the thread, with the keyboard: the reply form opens under the comment.
    await signIn(OWNER);
    await page.goto(`${origin}/projects/${p.projectId}/keys/greeting`);
    await page.locator('.thread summary', { hasText: 'Reply' }).first().click();
    await page.getByLabel('Your reply').fill('Informal: du.');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.locator('p.notice', { hasText: 'Comment added.' }).waitFor();
    t.deepEqual(await page.locator('.thread .replies article.comment .comment-body').allInnerTexts(), [
      'Informal: du.',
    ]);

    // An empty comment is refused with the form kept; the reviewer deletes their question, and the reply stays.
    await page.getByLabel('New comment').fill('   ');
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    t.regex(await page.locator('.comments [role=alert]').innerText(), /cannot be empty/);
    await signIn(REVIEWER);
    await page.goto(`${origin}/projects/${p.projectId}/keys/greeting`);
    t.is(await page.locator('.replies article.comment button').count(), 0, "no Delete on the owner's reply");
    await page
      .locator('article.comment')
      .first()
      .getByRole('button', { name: /^Delete the comment/ })
      .click();
    await page.locator('p.notice', { hasText: 'Comment deleted.' }).waitFor();
    t.is(await page.locator('article.comment .comment-deleted').count(), 1);
    t.deepEqual(await page.locator('.replies .comment-body').allInnerTexts(), ['Informal: du.']);
    t.is(await pwned(), undefined);
    t.deepEqual(await seriousViolations(page), []);
  },
);

test.serial(
  'screenshots: a reviewer uploads one with the key’s region typed in, sees it outlined, a hostile file is refused',
  async (t) => {
    await browserReady();
    const p = await reviewProject();
    await signIn(REVIEWER);
    const editor = `${origin}/projects/${p.projectId}/keys/greeting`;
    await page.goto(editor);
    t.regex(await mainText(), /No screenshots yet\./);

    // A real JPEG: the browser's own screenshot of the page, uploaded with the region in pixels, by keyboard.
    const jpeg = await page.screenshot({ type: 'jpeg', quality: 60 });
    await page.getByLabel('Screenshot (PNG, JPEG or WebP, at most 2 MiB)').setInputFiles({
      name: 'editor.jpg',
      mimeType: 'image/jpeg',
      buffer: jpeg,
    });
    for (const [field, value] of [
      ['x', '10'],
      ['y', '20'],
      ['width', '200'],
      ['height', '40'],
    ])
      await page.getByLabel(field, { exact: true }).fill(value);
    await page.getByRole('button', { name: 'Add screenshot' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('p.notice', { hasText: 'Screenshot added.' }).waitFor();
    const shot = page.locator('figure.screenshot');
    t.is(await shot.count(), 1);
    const region = shot.locator('rect.region');
    t.deepEqual(await region.evaluate((r) => ['x', 'y', 'width', 'height'].map((a) => r.getAttribute(a))), [
      '10',
      '20',
      '200',
      '40',
    ]);
    // The image is served from the dashboard and drawn: its natural size is the uploaded one.
    const href = await shot.locator('image').getAttribute('href');
    const served = await page.request.get(`${origin}${href}`);
    t.is(served.headers()['content-type'], 'image/jpeg');
    t.is(served.headers()['x-content-type-options'], 'nosniff');
    t.deepEqual(Buffer.from(await served.body()), jpeg);
    t.regex((await shot.locator('svg').getAttribute('aria-label'))!, /outlined at 10,20, 200×40 pixels/);
    t.deepEqual(await seriousViolations(page), []);

    // An HTML page named like an image is refused, and nothing is added.
    await page.getByLabel('Screenshot (PNG, JPEG or WebP, at most 2 MiB)').setInputFiles({
      name: 'shot.png',
      mimeType: 'image/png',
      buffer: Buffer.from(`<html><body>${HOSTILE_SCRIPT}</body></html>`),
    });
    await page.getByRole('button', { name: 'Add screenshot' }).click();
    t.regex(await page.locator('.screenshots [role=alert]').innerText(), /not an image this service reads/);
    t.is(await page.locator('figure.screenshot').count(), 1);
    t.is(await pwned(), undefined);

    // The owner removes it.
    await signIn(OWNER);
    await page.goto(editor);
    await page.getByRole('button', { name: 'Remove screenshot 1' }).click();
    await page.locator('p.notice', { hasText: 'Screenshot removed.' }).waitFor();
    t.is(await page.locator('figure.screenshot').count(), 0);
  },
);

test.serial(
  'machine suggestion: an owner sees the cost, asks, and uses the suggestion in the field; nothing is saved by it',
  async (t) => {
    await browserReady();
    const p = await reviewProject();
    await signIn(OWNER);
    const editor = `${origin}/projects/${p.projectId}/keys/greeting`;
    await page.goto(editor);
    const it = page.locator('#cell-it');
    await it.getByRole('button', { name: 'Suggest with the engine…' }).click();
    await page.locator('#suggest-it-estimate').waitFor();
    t.regex(await page.locator('#suggest-it-estimate').innerText(), /costs 0\.012 credits .*nothing is saved/);
    t.deepEqual(await seriousViolations(page), []);
    await page.locator('#cell-it').getByRole('button', { name: 'Get the suggestion' }).click();
    await page.locator('p.notice', { hasText: 'The engine suggests a it translation' }).waitFor();
    const suggested = await page.locator('#suggest-it-value').innerText();
    t.regex(suggested, /name/);
    t.is(await page.locator('#suggest-it-value').getAttribute('lang'), 'it');
    // Use puts it in the field (dashboard.js), and the person saves it or not.
    await page.locator('#cell-it').getByRole('button', { name: 'Use the suggestion' }).click();
    t.is(await page.locator('#cell-it-value').inputValue(), suggested);
    const stored = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
      params: { path: { projectId: p.projectId, key: 'greeting' } },
    });
    t.is(stored.data!.cells.find((c) => c.lang === 'it')!.value ?? null, null, 'nothing saved');
    await page.reload();
    t.is(await page.locator('#suggest-it-value').count(), 0, 'a reload asks the engine nothing again');

    // A reviewer does not spend credits: no button.
    await signIn(REVIEWER);
    await page.goto(editor);
    t.is(await page.getByRole('button', { name: 'Suggest with the engine…' }).count(), 0);
  },
);

test.serial(
  'translator: an owner gives one a project and a language; they see that project only, save in it, read the rest',
  async (t) => {
    await browserReady();
    const p = await reviewProject();
    const other = await reviewProject();
    await signIn(OWNER);
    await page.goto(`${origin}/users`);
    const tom = { email: 'tom-translator@example.test', password: 'a translator password' };
    await page.getByLabel('Name').fill(`Tom ${HOSTILE_IMG}`);
    await page.getByLabel('Email').fill(tom.email);
    await page.getByLabel('First password (at least 12 characters; they sign in with it)').fill(tom.password);
    await page.getByLabel('Role', { exact: true }).selectOption('translator');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.locator('p.ok, p.notice', { hasText: 'choose their projects and roles below' }).waitFor();
    const tomPage = page.url();
    t.deepEqual(await seriousViolations(page), []);
    await page.locator(`input[name="grant:${p.projectId}:it"]`).check();
    await page.getByRole('button', { name: 'Save projects and roles' }).click();
    await page.locator('p.ok, p.notice', { hasText: 'projects and roles of' }).waitFor();
    t.true(await page.locator(`input[name="grant:${p.projectId}:it"]`).isChecked());

    await signIn(tom);
    const listed = await page
      .locator('main a[href^="/projects/"]')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    t.deepEqual(listed, [`/projects/${p.projectId}`], 'one project');
    await page.goto(`${origin}/projects/${p.projectId}/keys/greeting`);
    t.deepEqual(
      await page.locator('nav.main a').allInnerTexts(),
      ['Projects', 'Your account', 'Overview', 'Keys'],
      'no section a translator cannot use',
    );
    t.regex(await page.locator('#cell-de').innerText(), /You do not translate de in this project/);
    t.is(await page.locator('#cell-de textarea').count(), 0);
    t.deepEqual(await page.locator('#cell-it-status option').allInnerTexts(), ['translated']);
    t.is(await page.locator('#cell-it-value').getAttribute('dir'), 'ltr');
    t.deepEqual(await seriousViolations(page), []);
    await page.getByLabel('Translation (it)').fill('Ciao {name}');
    await page.locator('#cell-it').getByRole('button', { name: 'Save' }).click();
    await page.locator('p.notice').first().waitFor();
    const cell = (
      await svc.admin.GET('/projects/{projectId}/keys/{key}', {
        params: { path: { projectId: p.projectId, key: 'greeting' } },
      })
    ).data!.cells.find((c) => c.lang === 'it')!;
    t.like(cell, { value: 'Ciao {name}', status: 'translated' });

    // The grid: their column is edited in place, the other is read only; no bulk action is offered.
    await page.goto(`${origin}/projects/${p.projectId}/keys?cols=it,de&sort=name`);
    t.is(await page.locator('form.bulk').count(), 0);
    t.is(await page.locator('td.gc[data-lang="de"][data-readonly="yes"]').count(), 4);
    t.is(await page.locator('td.gc[data-lang="it"][data-readonly="yes"]').count(), 0);
    await page.locator('td.gc[data-lang="de"]').first().focus();
    await page.keyboard.press('Enter');
    t.is(await page.locator('textarea.gedit').count(), 0, 'Enter opens no field in a language they do not translate');
    await page.locator('td.gc[data-lang="it"][data-name="home.title"]').focus();
    await page.keyboard.press('Enter');
    await page.keyboard.type('Benvenuto');
    await page.keyboard.press('Enter');
    await page.locator('td.gc[data-lang="it"][data-name="home.title"] .gv', { hasText: 'Benvenuto' }).waitFor();
    t.deepEqual(await seriousViolations(page), []);

    const elsewhere = await page.goto(`${origin}/projects/${other.projectId}/keys`);
    t.is(elsewhere?.status(), 404, 'another project reads as unknown');

    // Roles per project: the owner makes Tom the owner of the other project, and he keeps translating in this one.
    await signIn(OWNER);
    await page.goto(tomPage);
    await page.locator(`select[name="role:${other.projectId}"]`).selectOption('owner');
    await page.getByRole('button', { name: 'Save projects and roles' }).click();
    await page.locator('p.ok, p.notice', { hasText: 'projects and roles of' }).waitFor();
    t.is(await page.locator(`select[name="role:${other.projectId}"]`).inputValue(), 'owner');
    t.is(await page.locator(`select[name="role:${p.projectId}"]`).inputValue(), 'translator');
    t.true(await page.locator(`input[name="grant:${p.projectId}:it"]`).isChecked());
    t.deepEqual(await seriousViolations(page), []);

    await signIn(tom);
    const settings = await page.goto(`${origin}/projects/${other.projectId}/settings`);
    t.is(settings?.status(), 200, 'an owner of the project changes its settings');
    t.deepEqual(
      (await page.locator('nav.main a').allInnerTexts()).slice(2),
      ['Overview', 'Keys', 'Terms', 'Captured keys', 'Checks', 'AI fill', 'Publish', 'Versions', 'Operations'].concat([
        'Content',
        'API keys',
        'Webhooks',
        'Settings',
      ]),
      'every section of the project they own',
    );
    await page.goto(`${origin}/projects/${p.projectId}`);
    t.deepEqual(
      (await page.locator('nav.main a').allInnerTexts()).slice(2),
      ['Overview', 'Keys'],
      'still a translator',
    );
    const people = await page.goto(`${origin}/users`);
    t.is(people?.status(), 403, 'people stay with the owners of the service');
    t.is(await pwned(), undefined);
  },
);
