// The dashboard's projects, publish, versions and operations: the internal API routes over HTTP with the
// admin token, serially because run-due runs every project's jobs (SQLite and MySQL: list, overview with completeness, publish preview against the current version,
// publish, versions, a diff of two versions, restore), the roles (a reviewer reads, and is refused publish and
// restore by the API itself, 403), and the pages in Debian's Chromium: an owner sees the projects and the overview,
// the publish diff, publishes with a label, compares two versions, restores an older one, opens an agent's pending
// operation from the operations page; a reviewer sees the diff without a Publish button and downloads a version's
// file (one language, or every one in a zip) from the versions page. Project names, key names,
// translations and labels are hostile and shown literally; nothing of them runs; axe finds nothing serious.
import { readFileSync } from 'node:fs';
import test from 'ava';
import { strFromU8, unzipSync } from 'fflate';
import type { Page } from 'playwright-core';
import { apiFor } from '../../../server/web/api.js';
import type { Session } from '../../../server/domain/users/sessions.js';
import { findUserByEmail } from '../../../server/domain/users/users.js';
import { contentChanged } from '../../../server/domain/project/revision.js';
import { seriousViolations } from '../../helpers/axe.js';
import { signIn as signInAs } from '../../helpers/signin.js';
import { launchChromium, type Chromium } from '../../helpers/chromium.js';
import { createTestKey, createTestProject, startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
let origin: string;
let browser: Chromium | undefined;

const OWNER = { email: 'owner-publish@example.test', password: 'a long enough password' };
const REVIEWER = { email: 'reviewer-publish@example.test', password: 'another long password' };
const IMG = '<img src=x onerror="window.pwned=1">';
const SCRIPT = '<script>window.pwned=2</script>';
const HOSTILE_NAME = `${IMG} Shop ${SCRIPT}`;
const BROWSER_NAME = `${IMG} Browser shop ${SCRIPT}`;
const HOSTILE_KEY = `${IMG}.key`;
const HOSTILE_LABEL = `Release ${SCRIPT}`;

test.before(async () => {
  svc = await startTestService();
  origin = svc.internalUrl.replace('/internal/v1', '');
  svc.service.app.config.publicAppUrl = origin;
  for (const [u, role] of [
    [OWNER, 'owner'],
    [REVIEWER, 'reviewer'],
  ] as const)
    await svc.admin.POST('/users', { body: { name: `${role} ${IMG}`, ...u, role } });
});
test.after.always(async () => {
  await browser?.close();
  await svc?.stop();
});

async function runDue() {
  for (let i = 0; i < 20; i++) {
    const r = await svc.admin.POST('/jobs/run-due', { body: {} });
    if (!r.data || r.data.ran === 0) break;
  }
}

/** A project with a hostile name, two target languages and three keys filled by the pseudo engine. */
async function project(name = HOSTILE_NAME) {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr', fillMode: 'manual' }] });
  await svc.service.app.db('projects').where({ id: p.projectId }).update({ name });
  const push = await p.client.POST('/projects/{projectId}/translate', {
    params: { path: { projectId: p.projectId } },
    body: {
      units: [
        { key: 'greeting', source: 'Hello' },
        { key: 'farewell', source: 'Goodbye' },
        { key: 'hostile.key', source: 'Hostile source' },
      ],
    },
  });
  if (!push.data) throw new Error(JSON.stringify(push.error));
  await runDue();
  // The API takes dotted names only; names stored before that rule (or by a tool writing the table) are shown
  // as stored: the hostile one is written directly.
  await svc.service.app
    .db('keys')
    .where({ project_id: p.projectId, name: 'hostile.key' })
    .update({ name: HOSTILE_KEY });
  // As every writer of keys does: a render prepared in the background before the rename no longer describes the
  // project (on a slow machine the prepare sweep can run before the write above).
  await contentChanged(svc.service.app.db, p.projectId, Date.now());
  return p;
}

const put = (
  projectId: string,
  key: string,
  lang: string,
  body: { value?: string; status?: 'approved' | 'reviewed' },
) =>
  svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId, key, lang } },
    body,
  });

const publish = (projectId: string, label?: string) =>
  svc.admin.POST('/projects/{projectId}/publish', { params: { path: { projectId } }, body: label ? { label } : {} });

test.serial('internal API: projects list and overview with completeness, credits and delivery', async (t) => {
  const p = await project();
  t.is((await put(p.projectId, 'greeting', 'fr', { value: 'Bonjour', status: 'approved' })).response.status, 200);
  const list = await svc.admin.GET('/projects');
  const mine = list.data!.projects.find((x) => x.projectId === p.projectId)!;
  t.like(mine, { name: HOSTILE_NAME, baseLang: 'en', languages: ['de', 'fr'], currentVersion: null });
  t.is(mine.workspaceName, 'Test workspace');

  const o = (await svc.admin.GET('/projects/{projectId}/overview', { params: { path: { projectId: p.projectId } } }))
    .data!;
  t.is(o.keyCount, 3);
  const de = o.languages.find((l) => l.code === 'de')!;
  const fr = o.languages.find((l) => l.code === 'fr')!;
  t.like(de, { fillMode: 'ai', translated: 3, missing: 0, approved: 0 });
  t.like(fr, { fillMode: 'manual', approved: 1, missing: 2, translated: 0 });
  t.true(o.workspace.spentThisMonthMc > 0, 'the fill was charged this month');
  t.is(o.workspace.balanceMc, 1_000_000 - o.workspace.spentThisMonthMc);
  t.is(o.currentVersion, null);
  t.true(o.deliveryUrl.endsWith(`/projects/${p.projectId}`));
  t.false(o.contentEnabled);
  const missing = await svc.admin.GET('/projects/{projectId}/overview', { params: { path: { projectId: 'nope' } } });
  t.is(missing.response.status, 404);
});

test.serial(
  'internal API: preview against the current version, publish with flags, versions, diff and restore',
  async (t) => {
    const p = await project();
    const { projectId } = p;
    const path = { projectId };
    // Before the first publish everything is added.
    let pre = (await svc.admin.GET('/projects/{projectId}/publish/preview', { params: { path } })).data!;
    t.is(pre.currentVersion, null);
    t.false(pre.identical);
    t.is(pre.keyCount, 3);
    const base = pre.languages.find((l) => l.isBase)!;
    t.like(base, { lang: 'en', addedTotal: 3, changedTotal: 0, removedTotal: 0 });
    t.deepEqual(
      base.added.map((a) => a.key),
      [HOSTILE_KEY, 'farewell', 'greeting'].sort(),
    );
    const v1 = await publish(projectId, HOSTILE_LABEL);
    t.is(v1.response.status, 201, JSON.stringify(v1.error));
    t.is(v1.data!.label, HOSTILE_LABEL);

    // An unchanged project previews as identical; skipIfIdentical mints nothing.
    pre = (await svc.admin.GET('/projects/{projectId}/publish/preview', { params: { path } })).data!;
    t.true(pre.identical, JSON.stringify(pre).slice(0, 500));
    t.true(
      pre.languages.every((l) => l.addedTotal + l.changedTotal + l.removedTotal === 0),
      JSON.stringify(pre.languages).slice(0, 500),
    );
    const same = await svc.admin.POST('/projects/{projectId}/publish', {
      params: { path },
      body: { skipIfIdentical: true },
    });
    t.is(same.response.status, 200);
    t.true(same.data!.unchanged, JSON.stringify(same.data));

    // A changed translation, a new key, a broken ICU value.
    await put(projectId, 'greeting', 'de', { value: 'Hallo Welt' });
    await put(projectId, 'farewell', 'de', { value: 'Tschüss {' });
    await p.client.POST('/projects/{projectId}/translate', {
      params: { path },
      body: { units: [{ key: 'new.key', source: 'Brand new' }] },
    });
    await runDue();
    pre = (await svc.admin.GET('/projects/{projectId}/publish/preview', { params: { path, query: { cap: 1 } } })).data!;
    t.is(pre.currentVersion, v1.data!.versionId);
    t.false(pre.identical);
    t.is(pre.incompleteMode, 'source', 'the default of a runtime (SDK) project');
    const de = pre.languages.find((l) => l.lang === 'de')!;
    // farewell's value is refused by the ICU gate, so its source is baked in: changed too.
    t.is(de.changedTotal, 2);
    t.is(de.changed.length, 1, 'capped');
    t.like(de.changed[0], { key: 'farewell', new: 'Goodbye' });
    t.is(de.addedTotal, 1);
    t.is(de.added[0].key, 'new.key');
    t.is(de.removedTotal, 0);
    t.deepEqual(pre.icuRejected, ['farewell [de]']);
    t.is(pre.icuRejectedTotal, 1);
    t.like(
      pre.languages.find((l) => l.lang === 'fr')!,
      { addedTotal: 1, changedTotal: 0, removedTotal: 0 },
    );
    // Skipping what is missing or refused: farewell leaves de, and the baked sources leave fr (manual, untranslated).
    const skip = (
      await svc.admin.GET('/projects/{projectId}/publish/preview', {
        params: { path, query: { incompleteMode: 'skip' } },
      })
    ).data!;
    t.is(skip.incompleteMode, 'skip');
    const deSkip = skip.languages.find((l) => l.lang === 'de')!;
    t.like(deSkip, { addedTotal: 1, changedTotal: 1, removedTotal: 1 });
    t.like(deSkip.changed[0], { key: 'greeting', new: 'Hallo Welt' });
    t.is(deSkip.removed[0].key, 'farewell');
    t.like(
      skip.languages.find((l) => l.lang === 'fr')!,
      { addedTotal: 0, removedTotal: 3 },
    );
    t.true(skip.pending > 0, `pending ${skip.pending}`);

    // Flags: require_complete refuses; a format not configured refuses; a label is kept.
    const refused = await svc.admin.POST('/projects/{projectId}/publish', {
      params: { path },
      body: { require_complete: true },
    });
    t.is(refused.response.status, 409);
    t.like(refused.error, { error: 'fill_incomplete' });
    const format = await svc.admin.POST('/projects/{projectId}/publish', {
      params: { path },
      body: { requiredOutputFormat: 'po' },
    });
    t.is(format.response.status, 409);
    t.like(format.error, { error: 'output_format_conflict' });
    const v2 = await svc.admin.POST('/projects/{projectId}/publish', {
      params: { path },
      body: { label: 'second', incompleteMode: 'skip', approvedOnly: false },
    });
    t.is(v2.response.status, 201, JSON.stringify(v2.error));
    t.is(v2.data!.icuRejectedTotal, 1);

    const versions = (await svc.admin.GET('/projects/{projectId}/versions', { params: { path } })).data!;
    t.is(versions.currentVersion, v2.data!.versionId);
    t.deepEqual(
      versions.versions.map((v) => [v.versionId, v.label, v.keyCount, v.current]),
      [
        [v2.data!.versionId, 'second', 4, true],
        [v1.data!.versionId, HOSTILE_LABEL, 3, false],
      ],
    );
    t.deepEqual(versions.versions[0].languages, ['en', 'de', 'fr']);

    const diff = (
      await svc.admin.GET('/projects/{projectId}/versions/diff', {
        params: { path, query: { from: 'previous', to: 'current' } },
      })
    ).data!;
    t.is(diff.from, v1.data!.versionId);
    t.is(diff.to, v2.data!.versionId);
    t.like(
      diff.languages.find((l) => l.lang === 'en')!,
      { addedTotal: 1, changedTotal: 0, removedTotal: 0 },
    );
    t.like(diff.languages.find((l) => l.lang === 'de')!.changed[0], { key: 'greeting', new: 'Hallo Welt' });
    const back = (
      await svc.admin.GET('/projects/{projectId}/versions/diff', {
        params: { path, query: { from: v2.data!.versionId, to: v1.data!.versionId } },
      })
    ).data!;
    t.is(back.languages.find((l) => l.lang === 'en')!.removedTotal, 1);
    const unknown = await svc.admin.GET('/projects/{projectId}/versions/diff', {
      params: { path, query: { from: '2000.01.01.1', to: 'current' } },
    });
    t.is(unknown.response.status, 404);

    const restored = await svc.admin.POST('/projects/{projectId}/versions/{versionId}/restore', {
      params: { path: { projectId, versionId: v1.data!.versionId } },
    });
    t.is(restored.response.status, 201, JSON.stringify(restored.error));
    t.is(restored.data!.restoredFrom, v1.data!.versionId);
    const after = (await svc.admin.GET('/projects/{projectId}/overview', { params: { path } })).data!;
    t.is(after.currentVersion!.versionId, restored.data!.versionId);
    t.is(after.currentVersion!.keyCount, 3);
  },
);

test.serial(
  'roles: a reviewer reads projects, previews and versions, and the API refuses their publish and restore',
  async (t) => {
    const p = await project();
    const v1 = await publish(p.projectId);
    t.is(v1.response.status, 201);
    const user = (await findUserByEmail(svc.service.app.db, REVIEWER.email))!;
    t.is(user.role, 'reviewer');
    // The dashboard's own client as this person (what every page uses): the pipeline checks the role.
    const session: Session = { token: 'x', user, expiresAt: Date.now() + 60_000, csrf: 'x' };
    const api = apiFor(svc.service.main, session);
    const path = { projectId: p.projectId };
    t.is((await api.GET('/projects')).response.status, 200);
    t.is((await api.GET('/projects/{projectId}/overview', { params: { path } })).response.status, 200);
    t.is((await api.GET('/projects/{projectId}/publish/preview', { params: { path } })).response.status, 200);
    t.is((await api.GET('/projects/{projectId}/versions', { params: { path } })).response.status, 200);
    const pub = await api.POST('/projects/{projectId}/publish', { params: { path }, body: { label: 'by a reviewer' } });
    t.is(pub.response.status, 403);
    t.like(pub.error, { error: 'forbidden' });
    const res = await api.POST('/projects/{projectId}/versions/{versionId}/restore', {
      params: { path: { ...path, versionId: v1.data!.versionId } },
    });
    t.is(res.response.status, 403);
    const versions = (await svc.admin.GET('/projects/{projectId}/versions', { params: { path } })).data!;
    t.is(versions.versions.length, 1, 'nothing was minted');
  },
);

// ---------------------------------------------------------------------------------------------- browser

const signIn = (page: Page, who: { email: string; password: string }, next: string) =>
  signInAs(page, origin, who, next);

async function clean(t: import('ava').ExecutionContext, page: Page, what: string) {
  t.deepEqual(await seriousViolations(page), [], `axe: ${what}`);
  t.is(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined, `nothing ran: ${what}`);
  t.is(await page.locator('main img, main script').count(), 0, `no hostile element: ${what}`);
}

const BREAKOUT_EN = `Hello "'><b>World</b>`;
const BREAKOUT_DE = `Hallo "'><b>Welt</b>`;

const mainText = async (page: Page) => (await page.locator('main').innerText()).replace(/\s+/g, ' ');

test.serial(
  'browser: an owner sees projects, the overview, the publish diff, publishes, compares, restores, opens an operation',
  async (t) => {
    // A name of its own: the other tests' projects (same service) carry HOSTILE_NAME too.
    const p = await project(BROWSER_NAME);
    const { projectId } = p;
    // A source whose text would break out of an attribute and add markup if a page did not escape it; the gates let it
    // through (an <img onerror> is refused by them now, so it can no longer reach a version).
    const hostile = await p.client.POST('/projects/{projectId}/translate', {
      params: { path: { projectId } },
      body: { units: [{ key: 'hostile.text', source: BREAKOUT_EN }] },
    });
    t.is(hostile.response.status, 200, JSON.stringify(hostile.error));
    await runDue();
    await put(projectId, 'greeting', 'fr', { value: 'Bonjour', status: 'approved' });
    const v1 = await publish(projectId, HOSTILE_LABEL);
    t.is(v1.response.status, 201);
    t.is((await put(projectId, 'hostile.text', 'de', { value: `Hallo ${IMG}` })).response.status, 400);
    t.is((await put(projectId, 'hostile.text', 'de', { value: BREAKOUT_DE })).response.status, 200);
    await p.client.POST('/projects/{projectId}/translate', {
      params: { path: { projectId } },
      body: { units: [{ key: 'added.key', source: 'Freshly added' }] },
    });
    await runDue();

    browser ??= await launchChromium();
    const context = browser.context;
    await context.clearCookies();
    const page = await context.newPage();
    await signIn(page, OWNER, '/');

    // The projects list.
    t.is(await page.getByRole('link', { name: BROWSER_NAME }).count(), 1, 'the name shown literally');
    await clean(t, page, 'projects');
    await page.getByRole('link', { name: BROWSER_NAME }).click();
    await page.waitForURL(`${origin}/projects/${projectId}`);
    let text = await mainText(page);
    t.regex(text, /Keys 5 enabled/);
    t.true(text.includes(`Current version ${v1.data!.versionId}`), text);
    t.true(text.includes(HOSTILE_LABEL));
    t.regex(await page.locator('tr[data-lang="de"]').innerText(), /de\s+AI fill\s+100%\s+0\s+0\s+0\s+5\s+0\s+0/);
    t.regex(await page.locator('tr[data-lang="fr"]').innerText(), /fr\s+manual\s+20%\s+4\s+0\s+0\s+0\s+0\s+1/);
    t.regex(text, /Monthly spending cap none/);
    await clean(t, page, 'overview');

    // The publish page: the diff with its texts, then publish with a label.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Publish' }).click();
    await page.waitForURL(`${origin}/projects/${projectId}/publish`);
    const de = page.locator('.diff[data-lang="de"]');
    t.regex(await de.innerText(), /1 added, 1 changed, 0 removed/);
    const changed = de.locator('tr.changed');
    t.is(await changed.locator('td.key').innerText(), 'hostile.text');
    t.is(await changed.locator('td.source').nth(1).innerText(), BREAKOUT_DE);
    t.is(await de.locator('tr.added td.key').first().innerText(), 'added.key');
    await clean(t, page, 'publish');
    await page.getByLabel('Label (optional)').fill(`Second ${IMG}`);
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.waitForURL((u) => u.pathname === `/projects/${projectId}/versions`);
    const versions = (await svc.admin.GET('/projects/{projectId}/versions', { params: { path: { projectId } } })).data!;
    const v2 = versions.versions[0];
    t.is(v2.label, `Second ${IMG}`);
    t.true(v2.current);
    t.is(await page.getByRole('status').innerText(), `Published version ${v2.versionId}.`);
    t.is(await page.getByText(`Second ${IMG}`, { exact: true }).count(), 1);
    await clean(t, page, 'versions');

    // Compare the two versions.
    await page.getByLabel('From', { exact: true }).selectOption(v1.data!.versionId);
    await page.getByLabel('To', { exact: true }).selectOption(v2.versionId);
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.waitForURL((u) => u.searchParams.get('from') === v1.data!.versionId);
    text = await mainText(page);
    t.true(text.includes(`Changes from ${v1.data!.versionId} to ${v2.versionId}`));
    t.regex(await page.locator('.diff[data-lang="en"]').innerText(), /1 added, 0 changed, 0 removed/);
    t.is(await page.locator('.diff[data-lang="de"] tr.changed td.source').nth(1).innerText(), BREAKOUT_DE);
    await clean(t, page, 'versions diff');

    // Restore the older version: a new current version with its content.
    // Asked first, on a page that shows what production would serve after it.
    await page.getByRole('link', { name: `Restore ${v1.data!.versionId}` }).click();
    await page.waitForURL((u) => u.pathname.endsWith('/restore'));
    await clean(t, page, 'restore confirmation');
    await page.getByRole('button', { name: `Restore ${v1.data!.versionId}` }).click();
    await page.waitForURL(`${origin}/projects/${projectId}/versions`);
    const o = (await svc.admin.GET('/projects/{projectId}/overview', { params: { path: { projectId } } })).data!;
    t.not(o.currentVersion!.versionId, v2.versionId);
    t.is(o.currentVersion!.keyCount, 4);
    t.is(
      await page.getByRole('status').innerText(),
      `Restored ${v1.data!.versionId} as version ${o.currentVersion!.versionId}.`,
    );
    t.regex(await page.locator(`tr[data-version="${o.currentVersion!.versionId}"]`).innerText(), /current/);

    // An agent's pending operation, listed first and opened to its approval page.
    const agent = svc.client(await createTestKey(svc, projectId, ['publish'], true));
    const op = await agent.POST('/operations', {
      body: { action: 'publish', scope: { project_id: projectId, require_complete: false, approved_only: false } },
    });
    t.is(op.response.status, 201, JSON.stringify(op.error));
    await page.goto(`${origin}/projects/${projectId}/operations`);
    const pending = page.locator('section').first();
    t.regex(await pending.innerText(), /pending approval/);
    await clean(t, page, 'operations');
    // Older operations, decided an hour ago and before: the whole list pages by 50, the pending one stays on top.
    const hourAgo = Date.now() - 3_600_000;
    await svc.service.app.db('operations').insert(
      Array.from({ length: 55 }, (_, i) => ({
        id: `op_old_${String(i).padStart(2, '0')}`,
        project_id: projectId,
        api_key_id: 'k_old',
        action: 'publish',
        state: 'denied',
        scope: JSON.stringify({ project_id: projectId }),
        equivalence: `old-${i}`,
        requested_mc: 0,
        created_at: hourAgo - i * 1000,
        expires_at: hourAgo - i * 1000 + 1_800_000,
        decided_at: hourAgo - i * 1000,
      })),
    );
    await page.reload();
    const all = page.locator('section').nth(1);
    t.is(await all.locator('tbody tr').count(), 50);
    t.is(await all.locator('tbody tr').first().getAttribute('data-operation'), op.data!.operation_id);
    await all.getByRole('link', { name: 'Older operations' }).click();
    await page.waitForURL(/offset=50/);
    t.deepEqual(
      await page
        .locator('section')
        .nth(1)
        .locator('tbody tr')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-operation'))),
      ['op_old_49', 'op_old_50', 'op_old_51', 'op_old_52', 'op_old_53', 'op_old_54'],
    );
    t.is(await page.getByRole('link', { name: 'Older operations' }).count(), 0);
    t.regex(await page.locator('section').first().innerText(), /pending approval/, 'the pending one on every page');
    await clean(t, page, 'operations');
    await page.getByRole('link', { name: 'Newer operations' }).click();
    await page.waitForURL((u) => !u.search.includes('offset'));
    await pending.getByRole('link', { name: op.data!.operation_id }).click();
    await page.waitForURL(`${origin}/approve/${op.data!.operation_id}`);
    t.regex(await mainText(page), /Action publish/);
    t.is(await page.getByRole('button', { name: 'Approve' }).count(), 1);
    await page.close();
  },
);

test.serial(
  'browser: a reviewer sees the publish diff without a Publish button and cannot publish or restore',
  async (t) => {
    const p = await project();
    const { projectId } = p;
    const v1 = await publish(projectId, HOSTILE_LABEL);
    t.is(v1.response.status, 201);
    await put(projectId, 'greeting', 'de', { value: 'Servus' });
    browser ??= await launchChromium();
    const context = browser.context;
    await context.clearCookies();
    const page = await context.newPage();
    await signIn(page, REVIEWER, `/projects/${projectId}/publish`);
    t.regex(await page.locator('.diff[data-lang="de"]').innerText(), /0 added, 1 changed, 0 removed/);
    t.is(await page.getByRole('button', { name: 'Publish' }).count(), 0);
    t.regex(await mainText(page), /Only an owner can publish/);
    await clean(t, page, 'publish as reviewer');
    await page.goto(`${origin}/projects/${projectId}/versions`);
    t.is(await page.getByRole('button', { name: /Restore/ }).count(), 0);
    t.is(await page.getByRole('link', { name: /Restore/ }).count(), 0);
    t.is(await page.getByText(HOSTILE_LABEL, { exact: true }).count(), 1);
    await clean(t, page, 'versions as reviewer');

    // The form posted anyway, with the reviewer's own CSRF token: the API refuses, nothing is minted.
    const csrf = await page.locator('header input[name=csrf]').inputValue();
    const cookie = (await context.cookies(origin)).map((c) => `${c.name}=${c.value}`).join('; ');
    const post = (path: string) =>
      fetch(origin + path, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, label: 'sneaky' }).toString(),
      });
    const pub = await post(`/projects/${projectId}/publish`);
    t.is(pub.status, 403);
    t.regex(await pub.text(), /Only an owner can publish; nothing changed/);
    const res = await post(`/projects/${projectId}/versions/${v1.data!.versionId}/restore`);
    t.is(res.status, 403);
    t.regex(await res.text(), /Only an owner can restore a version; nothing changed/);
    const noToken = await fetch(`${origin}/projects/${projectId}/publish`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'label=x',
    });
    t.is(noToken.status, 403);
    const versions = (await svc.admin.GET('/projects/{projectId}/versions', { params: { path: { projectId } } })).data!;
    t.is(versions.versions.length, 1);
    await page.close();
  },
);

test.serial(
  'the publish preview of colliding keys lists the collisions instead of failing to render them',
  async (t) => {
    const c = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }] });
    const projectId = c.projectId;
    await c.client.POST('/projects/{projectId}/output-formats', {
      params: { path: { projectId } },
      body: { format: 'arb' },
    });
    await c.client.POST('/projects/{projectId}/translate', {
      params: { path: { projectId } },
      body: {
        units: [
          { key: 'home.welcome', source: 'Welcome' },
          { key: 'home_welcome', source: 'Hello' },
        ],
      },
    });
    const r = await svc.admin.GET('/projects/{projectId}/publish/preview', { params: { path: { projectId } } });
    t.is(r.response.status, 200);
    t.deepEqual(r.data!.collisions, [{ format: 'arb', name: 'homeWelcome', keys: ['home.welcome', 'home_welcome'] }]);
    t.deepEqual(r.data!.formatWarnings, []);
  },
);

test.serial(
  'browser: a version file downloaded from the versions page, one language or every one in a zip',
  async (t) => {
    const p = await project();
    const { projectId } = p;
    const v = await publish(projectId, 'For export');
    t.is(v.response.status, 201);
    browser ??= await launchChromium();
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    await signIn(page, REVIEWER, `/projects/${projectId}/versions`);
    await clean(t, page, 'versions with the export form');

    // One language in a format the project does not render: Android's file for de, as a pull names it.
    await page.getByLabel('Format').selectOption('android_xml');
    await page.getByLabel('Language').selectOption('de');
    const [one] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download' }).click(),
    ]);
    t.is(one.suggestedFilename(), 'values-de_strings.xml');
    const xml = readFileSync(await one.path(), 'utf8');
    t.regex(xml, /<string name="greeting">[^<]+<\/string>/);

    // Every language: the files at their platform paths in one zip.
    await page.getByLabel('Format').selectOption('json');
    await page.getByLabel('Language').selectOption('');
    const [all] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download' }).click(),
    ]);
    t.regex(all.suggestedFilename(), /\.zip$/);
    const files = unzipSync(readFileSync(await all.path()));
    t.deepEqual(Object.keys(files).sort(), ['locales/de.json', 'locales/en.json', 'locales/fr.json']);
    t.is((JSON.parse(strFromU8(files['locales/en.json'])) as Record<string, string>).greeting, 'Hello');

    // A version the project does not have: the page again with the refusal, nothing downloaded.
    const missing = await page.goto(
      `${origin}/projects/${projectId}/versions/export?version=2099.01.01.1&format=json&lang=de`,
    );
    t.is(missing!.status(), 404);
    t.regex(await mainText(page), /Nothing was exported\./);
    await clean(t, page, 'export refused');
    await page.close();
  },
);
