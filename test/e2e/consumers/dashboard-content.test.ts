// Serial: run-due runs every project's jobs, so one test's run-due could be finishing another's runs while that
// one reads them.
// The dashboard's Content pages and the internal routes behind them: the documents' working state per
// language in counts (stale, missing, gave up, stage, runs) and a document's versions, readable by reviewers; a
// reviewer may set stages but not publish. In a real browser (Debian's Chromium): an owner publishes a document
// run through the pseudo engine by selecting it on the list (the public pull then answers the new version), sets
// a language's stage, sees a changed block marked stale with its previous translation as the candidate, and rolls
// back; an owner estimates a run and starts it once; a reviewer sees no Publish button and the API refuses the
// publish; a reviewer edits a unit's Arabic translation with the keyboard (right to left), a refused edit keeps
// what was typed, and a stale block shows how its source changed and keeps its previous translation; hostile
// titles and text never run; axe finds no serious violation. Run on MariaDB too (TEST_DB=mysql).
import test from 'ava';
import type { BrowserContext, Page } from 'playwright-core';
import type { Actor } from '../../../server/http/pipeline.js';
import { asPerson as asPersonOf } from '../../helpers/actor.js';
import { seriousViolations } from '../../helpers/axe.js';
import { signIn as signInAs } from '../../helpers/signin.js';
import { launchChromium, type Chromium } from '../../helpers/chromium.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../../helpers/service.js';

let svc: TestService;
let browser: Chromium | undefined;
let origin: string;

const PASSWORD = 'a long enough password';
const HOSTILE_IMG = '<img src=x onerror="window.pwned=1">';
const HOSTILE_SCRIPT = '<script>window.pwned=2</script>';

test.before(async () => {
  svc = await startTestService();
  origin = svc.internalUrl.replace('/internal/v1', '');
  svc.service.app.config.publicAppUrl = origin;
});
test.after.always(async () => {
  await browser?.close();
  await svc?.stop();
});

const runDue = () => svc.admin.POST('/jobs/run-due', { body: {} });

const contentProject = (enabled = true): Promise<TestProject> =>
  createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }], contentEnabled: enabled });

async function call(p: TestProject, method: string, path: string, body?: unknown) {
  const r = await fetch(`${svc.baseUrl}/projects/${p.projectId}/content${path}`, {
    method,
    headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, text, body: (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, unknown> };
}

/** Pushes a document and runs it through the pseudo engine in every language. */
async function pushAndRun(p: TestProject, docId: string, title: string, text: string) {
  const pushed = await call(p, 'PUT', `/${docId}`, { title, text, format: 'markdown' });
  if (pushed.status >= 300) throw new Error(pushed.text);
  const run = await call(p, 'POST', `/${docId}/run`, {});
  if (run.status !== 200) throw new Error(run.text);
  await runDue();
}

const overview = async (p: TestProject) => {
  const r = await svc.admin.GET('/projects/{projectId}/content', { params: { path: { projectId: p.projectId } } });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return r.data;
};

const asPerson = (actor: Actor, method: string, url: string, payload?: unknown) =>
  asPersonOf(svc, actor, method, url, payload);

test.serial(
  "the content overview counts each language's units; a changed block reads stale; versions are listed",
  async (t) => {
    const p = await contentProject();
    const empty = await overview(p);
    t.deepEqual(empty, { truncated: false, documents: [] });
    await pushAndRun(
      p,
      'guide',
      `Guide ${HOSTILE_IMG}`,
      `# Welcome\n\nFirst paragraph.\n\nSecond ${HOSTILE_SCRIPT} paragraph.\n`,
    );
    await call(p, 'PUT', '/draft', { title: 'Draft', text: 'Only a draft.' });
    let o = await overview(p);
    t.deepEqual(
      o.documents.map((d) => d.docId),
      ['draft', 'guide'],
    );
    const guide = o.documents.find((d) => d.docId === 'guide')!;
    t.like(guide, {
      title: `Guide ${HOSTILE_IMG}`,
      versionId: null,
      pending: true,
      baseLang: 'en',
      format: 'markdown',
    });
    t.deepEqual(
      guide.langs.map((l) => [l.code, l.translated, l.stale, l.missing, l.gaveUp, l.running, l.stage]),
      [
        ['de', 4, 0, 0, 0, false, 'translated'],
        ['fr', 4, 0, 0, 0, false, 'translated'],
      ],
    );
    t.deepEqual(
      o.documents.find((d) => d.docId === 'draft')!.langs.map((l) => [l.code, l.missing, l.stage]),
      [
        ['de', 2, null],
        ['fr', 2, null],
      ],
    );

    const pub = await svc.admin.POST('/projects/{projectId}/content/publish', {
      params: { path: { projectId: p.projectId } },
      body: { docIds: ['guide'] },
    });
    t.is(pub.data!.documents[0].action, 'published');
    o = await overview(p);
    t.like(
      o.documents.find((d) => d.docId === 'guide'),
      { versionId: pub.data!.versionId, pending: false },
    );

    // One paragraph changes: it reads stale in each language until a run.
    await call(p, 'PUT', '/guide', {
      text: `# Welcome\n\nFirst paragraph, changed.\n\nSecond ${HOSTILE_SCRIPT} paragraph.\n`,
    });
    o = await overview(p);
    const changed = o.documents.find((d) => d.docId === 'guide')!;
    t.true(changed.pending);
    t.deepEqual(
      changed.langs.map((l) => [l.code, l.translated, l.stale]),
      [
        ['de', 3, 1],
        ['fr', 3, 1],
      ],
    );

    const versions = await svc.admin.GET('/projects/{projectId}/content/{docId}/versions', {
      params: { path: { projectId: p.projectId, docId: 'guide' } },
    });
    t.is(versions.data!.servedVersionId, pub.data!.versionId);
    t.is(versions.data!.versions.length, 1);
    t.like(versions.data!.versions[0], { versionId: pub.data!.versionId, title: `Guide ${HOSTILE_IMG}` });
    t.deepEqual(versions.data!.versions[0].langs, [
      { code: 'de', source: 'translated', stage: 'translated' },
      { code: 'fr', source: 'translated', stage: 'translated' },
    ]);
    const none = await svc.admin.GET('/projects/{projectId}/content/{docId}/versions', {
      params: { path: { projectId: p.projectId, docId: 'nothing' } },
    });
    t.is(none.response.status, 404);
  },
);

test.serial(
  'content off: the overview and versions are 404; reviewers read both and set stages but may not publish',
  async (t) => {
    const off = await contentProject(false);
    const r = await svc.admin.GET('/projects/{projectId}/content', { params: { path: { projectId: off.projectId } } });
    t.is(r.response.status, 404);
    const p = await contentProject();
    await pushAndRun(p, 'doc', 'Doc', 'One paragraph.');
    const reviewer: Actor = { userId: 'usr_r', name: 'R', role: 'reviewer' };
    const pp = `/projects/${p.projectId}/content`;
    t.is((await asPerson(reviewer, 'GET', pp)).status, 200);
    t.is((await asPerson(reviewer, 'GET', `${pp}/doc/versions`)).status, 200);
    t.is((await asPerson(reviewer, 'GET', `${pp}/doc`)).status, 200);
    t.like(await asPerson(reviewer, 'PUT', `${pp}/doc/langs/de/stage`, { stage: 'reviewed' }), {
      status: 200,
      body: { stage: 'reviewed' },
    });
    t.is((await asPerson(reviewer, 'POST', `${pp}/publish`, {})).status, 403);
    t.is((await asPerson(reviewer, 'DELETE', `${pp}/doc`)).status, 403);
    t.is((await overview(p)).documents[0].langs.find((l) => l.code === 'de')!.stage, 'reviewed');
  },
);

// ---------------------------------------------------------------------------------------------- in the browser

let context: BrowserContext;

async function signIn(email: string): Promise<Page> {
  if (!browser) {
    browser = await launchChromium();
    context = browser.context;
  }
  const pg = context.pages()[0] ?? (await context.newPage());
  await signInAs(pg, origin, { email, password: PASSWORD });
  return pg;
}

const pwned = (pg: Page) => pg.evaluate(() => (window as unknown as { pwned?: number }).pwned);
const mainText = async (pg: Page) => (await pg.locator('main').innerText()).replace(/\s+/g, ' ');

test.serial.before(async () => {
  for (const [name, email, role] of [
    [`Owen ${HOSTILE_IMG}`, 'owen@example.test', 'owner'],
    [`Rae ${HOSTILE_SCRIPT}`, 'rae@example.test', 'reviewer'],
  ] as const)
    await svc.admin.POST('/users', { body: { name, email, password: PASSWORD, role } });
});

const TITLE = `Returns ${HOSTILE_IMG}`;
const TEXT = `# Returns ${HOSTILE_SCRIPT}\n\nYou can return anything within 30 days.\n\nKeep the receipt ${HOSTILE_IMG}.\n`;

test.serial(
  'browser: an owner publishes a selected document, sets a stage, sees a stale block, rolls back',
  async (t) => {
    const p = await contentProject();
    await pushAndRun(p, 'returns', TITLE, TEXT);
    await pushAndRun(p, 'other', 'Other', 'Another document.');
    const pg = await signIn('owen@example.test');
    const list = `${origin}/projects/${p.projectId}/content`;
    await pg.goto(list);
    t.deepEqual(await seriousViolations(pg), []);
    t.is(await pg.getByRole('link', { name: TITLE, exact: true }).count(), 1, 'the hostile title shown literally');
    t.regex(await mainText(pg), /de: translated/);
    t.regex(await mainText(pg), /not published/);

    // Select one document and publish it: asked first, with what each language would be served.
    await pg.getByLabel(`Select ${TITLE}`, { exact: true }).check();
    await pg.getByRole('button', { name: 'Publish selected' }).click();
    await pg.locator('#publish-preview').waitFor();
    t.regex(await pg.locator('#publish-preview').innerText(), /every language is served translated/);
    t.deepEqual(await seriousViolations(pg), []);
    t.is((await overview(p)).documents.find((d) => d.docId === 'returns')!.versionId, null, 'asking publishes nothing');
    // Post/redirect/get: the list the redirect opens shows the outcome from a one-time flash.
    await Promise.all([
      pg.waitForResponse((r) => r.request().method() === 'GET' && r.url() === list),
      pg.getByRole('button', { name: 'Publish', exact: true }).click(),
    ]);
    await pg.waitForLoadState();
    t.regex(await mainText(pg), /1 published, 0 unchanged, 0 held, 0 skipped/);
    t.deepEqual(await seriousViolations(pg), []);
    const o = await overview(p);
    const published = o.documents.find((d) => d.docId === 'returns')!.versionId!;
    t.truthy(published);
    t.is(o.documents.find((d) => d.docId === 'other')!.versionId, null, 'the unselected one is not published');
    const pull = await call(p, 'GET', '/returns?lang=de');
    t.is(pull.status, 200);
    t.is(pull.body.versionId, published);
    t.is(await pwned(pg), undefined);

    // The document: blocks beside the source; set German to reviewed.
    await pg.getByRole('link', { name: TITLE, exact: true }).click();
    await pg.waitForLoadState();
    t.deepEqual(await seriousViolations(pg), []);
    t.is(await pg.getByRole('heading', { name: TITLE, exact: true }).count(), 1);
    t.true((await mainText(pg)).includes(`Keep the receipt ${HOSTILE_IMG}.`), 'hostile document text shown literally');
    await pg.getByLabel('Review stage of de').selectOption('reviewed');
    await pg.getByRole('button', { name: 'Set stage' }).click();
    await pg.waitForLoadState();
    t.regex(await mainText(pg), /de: stage reviewed/);
    t.is((await overview(p)).documents.find((d) => d.docId === 'returns')!.langs[0].stage, 'reviewed');

    // A paragraph changes: its block reads stale, with the previous translation as the candidate.
    await call(p, 'PUT', '/returns', { text: TEXT.replace('30 days', '60 days') });
    await pg.goto(`${origin}/projects/${p.projectId}/content/returns?lang=fr`);
    const stale = pg.locator('tr.unit-stale');
    t.is(await stale.count(), 1);
    t.regex(await stale.innerText(), /60 days/);
    t.regex(await stale.innerText(), /Previous translation \(candidate\)/);
    t.regex(await stale.innerText(), /stale/);
    t.deepEqual(await seriousViolations(pg), []);
    await pg.goto(list);
    t.regex(await mainText(pg), /changes not published/);
    t.regex(await mainText(pg), /1 stale/);

    // Asked to publish now, the page says de and fr would be served the source: a block is stale.
    await pg.getByLabel(`Select ${TITLE}`, { exact: true }).check();
    await pg.getByRole('button', { name: 'Publish selected' }).click();
    t.regex(
      (await pg.locator('#publish-preview').innerText()).replace(/\s+/g, ' '),
      /readers of de, fr would get the source text instead of a translation \(de: 1 stale; fr: 1 stale\)/,
    );
    await pg.getByRole('link', { name: 'Cancel' }).click();

    // Publish again (the run brings it up to date), then roll back to the first version.
    await call(p, 'POST', '/returns/run', {});
    await runDue();
    await pg.getByLabel(`Select ${TITLE}`, { exact: true }).check();
    await pg.getByRole('button', { name: 'Publish selected' }).click();
    await pg.locator('#publish-preview', { hasText: 'every language is served translated' }).waitFor();
    await Promise.all([
      pg.waitForResponse((r) => r.request().method() === 'GET' && r.url() === list),
      pg.getByRole('button', { name: 'Publish', exact: true }).click(),
    ]);
    await pg.waitForLoadState();
    t.regex(await mainText(pg), /1 published/);
    await pg.reload();
    t.notRegex(await mainText(pg), /1 published/, 'the outcome is shown once; a reload publishes nothing');
    await pg.goto(`${origin}/projects/${p.projectId}/content/returns`);
    // Rollback is asked first, on a page that compares what readers get now and after.
    await pg.getByRole('link', { name: `Roll back to ${published}` }).click();
    await pg.waitForURL((u) => u.pathname.endsWith('/rollback'));
    t.deepEqual(await seriousViolations(pg), []);
    t.regex(await mainText(pg), /What readers are served now and after the rollback/);
    t.is((await call(p, 'GET', '/returns?lang=de')).body.versionId !== published, true, 'asking rolls nothing back');
    await pg.getByRole('button', { name: `Roll back to ${published}` }).click();
    await pg.waitForURL(`${origin}/projects/${p.projectId}/content/returns`);
    t.regex(await mainText(pg), new RegExp(`Rolled back to ${published.replace(/\./g, '\\.')}`));
    const pulled = await call(p, 'GET', '/returns?lang=de');
    t.not(pulled.body.versionId, published);
    t.is(await pwned(pg), undefined);
  },
);

test.serial(
  'browser: a reviewer sets stages but sees no Publish or Roll back, and the API refuses a forged publish',
  async (t) => {
    const p = await contentProject();
    await pushAndRun(p, 'doc', TITLE, TEXT);
    await svc.admin.POST('/projects/{projectId}/content/publish', {
      params: { path: { projectId: p.projectId } },
      body: {},
    });
    await call(p, 'PUT', '/doc', { text: `${TEXT}\nOne more paragraph.\n` });
    const pg = await signIn('rae@example.test');
    await pg.goto(`${origin}/projects/${p.projectId}/content`);
    t.is(await pg.getByRole('button', { name: 'Publish selected' }).count(), 0);
    t.is(await pg.getByRole('checkbox').count(), 0);
    t.deepEqual(await seriousViolations(pg), []);
    await pg.goto(`${origin}/projects/${p.projectId}/content/doc`);
    t.is(await pg.getByRole('button', { name: /Roll back/ }).count(), 0);
    t.is(await pg.getByRole('link', { name: /Roll back/ }).count(), 0);
    await pg.getByLabel('Review stage of de').selectOption('reviewed');
    await pg.getByRole('button', { name: 'Set stage' }).click();
    await pg.waitForLoadState();
    // Not complete (a new paragraph is missing): the API says why, nothing changes.
    t.is(await pg.getByRole('alert').count(), 1);
    t.deepEqual(await seriousViolations(pg), []);

    const csrf = await pg.locator('header input[name=csrf]').inputValue();
    const forged = await pg.request.post(`${origin}/projects/${p.projectId}/content/publish`, {
      form: { csrf, 'doc:doc': 'on' },
      maxRedirects: 0,
    });
    t.is(forged.status(), 403);
    t.regex(await forged.text(), /Only an owner can publish content/);
    t.true((await overview(p)).documents[0].pending, 'nothing was published');
    t.is(await pwned(pg), undefined);
  },
);

test.serial('browser: with Content off the pages say so', async (t) => {
  const p = await contentProject(false);
  const pg = await signIn('owen@example.test');
  await pg.goto(`${origin}/projects/${p.projectId}/content`);
  t.regex(await mainText(pg), /Content is not enabled/);
  t.deepEqual(await seriousViolations(pg), []);
  await pg.goto(`${origin}/projects/${p.projectId}/content/any`);
  t.regex(await mainText(pg), /Content is not enabled/);
});

test.serial('browser: an owner estimates a run, starts it once, and the document is translated', async (t) => {
  const p = await contentProject();
  const pushed = await call(p, 'PUT', '/faq', { title: 'FAQ', text: 'How long does shipping take?\n\nTwo days.' });
  t.true(pushed.status < 300, pushed.text);
  const pg = await signIn('owen@example.test');
  await pg.goto(`${origin}/projects/${p.projectId}/content/faq`);
  await pg.getByLabel('Language', { exact: true }).selectOption('de');
  await pg.getByRole('button', { name: 'Estimate…' }).click();
  await pg.locator('#run-estimate').waitFor();
  t.regex(await pg.locator('#run-estimate').innerText(), /^de, what is missing or stale: estimated at [\d.]+ credits/);
  t.deepEqual(await seriousViolations(pg), []);
  const preview = await call(p, 'POST', '/faq/run', { lang: 'de', dryRun: true });
  t.regex(
    await pg.locator('#run-estimate').innerText(),
    new RegExp(
      `estimated at ${(Number(preview.body.estimatedMc) / 1000).toLocaleString('en-US', { maximumFractionDigits: 3 }).replace('.', '\\.')} credits`,
    ),
    'the same estimate as the public preview',
  );
  t.is(
    (await overview(p)).documents[0].langs.find((l) => l.code === 'de')!.running,
    false,
    'the estimate started nothing',
  );
  // Confirmed twice (a double click, a resent form): one run, by the confirmation's idempotency key.
  const form = pg.locator('form', { has: pg.getByRole('button', { name: 'Start the run' }) });
  const fields = Object.fromEntries(
    await form
      .locator('input[type=hidden]')
      .evaluateAll((els) => els.map((e) => [(e as HTMLInputElement).name, (e as HTMLInputElement).value])),
  );
  await pg.getByRole('button', { name: 'Start the run' }).click();
  await pg.locator('[role=status]', { hasText: 'A run started for de.' }).waitFor();
  const again = await pg.request.post(`${origin}/projects/${p.projectId}/content/faq/run`, {
    form: fields,
    headers: { origin },
  });
  // Without the key a second run would be refused while the first goes (409 run_in_progress, the page again).
  t.is(again.status(), 200, 'the resent confirmation answers what the first did');
  await runDue();
  const de = (await overview(p)).documents[0].langs.find((l) => l.code === 'de')!;
  t.like(de, { running: false, missing: 0 });
  t.is((await overview(p)).documents[0].langs.find((l) => l.code === 'fr')!.missing > 0, true, 'fr was not run');
});

test.serial(
  'browser: a reviewer edits a unit with the keyboard, keeps a stale translation after reading the source change',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'ar' }], contentEnabled: true });
    const text = 'Read [the guide](https://example.com/g) today.\n\nShips in two days.\n';
    await pushAndRun(p, 'guide', 'Guide', text);
    const units = async () =>
      (
        await svc.admin.GET('/projects/{projectId}/content/{docId}', {
          params: { path: { projectId: p.projectId, docId: 'guide' } },
        })
      ).data!.langs[0].units;
    const [first, second] = await units();
    const pg = await signIn('rae@example.test');
    const page = `${origin}/projects/${p.projectId}/content/guide?lang=ar`;
    await pg.goto(page);
    t.deepEqual(await seriousViolations(pg), []);
    const field = pg.getByLabel(`Translation of ${first.id} (ar)`);
    t.is(await field.getAttribute('dir'), 'rtl');
    t.is(await field.getAttribute('lang'), 'ar');

    // Keyboard only: open the unit's editor, type a translation that drops the link, save.
    const typeAndSave = async (value: string) => {
      await pg.locator(`#unit-${first.id} summary`).focus();
      if (!(await field.isVisible())) await pg.keyboard.press('Enter');
      await pg.keyboard.press('Tab');
      t.is(await pg.evaluate(() => document.activeElement?.id), `edit-${first.id}`);
      await pg.keyboard.press('Control+A');
      await pg.keyboard.type(value);
      await pg.keyboard.press('Tab');
      await Promise.all([pg.waitForLoadState(), pg.waitForEvent('framenavigated'), pg.keyboard.press('Enter')]);
    };
    const dropped = 'اقرأ الدليل اليوم.';
    await typeAndSave(dropped);
    t.regex(
      await pg.getByRole('alert').innerText(),
      /markup of the source left out: \[…\]\(https:\/\/example\.com\/g\)/,
    );
    t.is(await field.inputValue(), dropped, 'what was typed is still in the field');
    t.is((await units())[0].text, first.text, 'nothing was saved');

    // HTML the source does not have is refused like any markup it does not have, and never runs.
    await typeAndSave(`اقرأ [الدليل](https://example.com/g) اليوم ${HOSTILE_IMG}`);
    t.regex(await pg.getByRole('alert').innerText(), /markup the source does not have: <img/);
    const kept = 'اقرأ [الدليل](https://example.com/g) اليوم.';
    await typeAndSave(kept);
    t.regex(await mainText(pg), /The ar translation of .* is saved/);
    t.is((await units())[0].text, kept);
    t.true((await pg.locator(`#unit-${first.id}`).innerText()).includes('اقرأ'));
    t.is(await pwned(pg), undefined);

    // The second block's source changes: the row shows what changed, and the previous translation is kept.
    await call(p, 'PUT', '/guide', { text: text.replace('two days', 'three days') });
    await pg.goto(page);
    const stale = pg.locator(`#unit-${second.id}`);
    t.is(await stale.locator('.source-diff del').innerText(), 'two');
    t.is(await stale.locator('.source-diff ins').innerText(), 'three');
    t.deepEqual(await seriousViolations(pg), []);
    await stale.getByRole('button', { name: `Keep the previous translation of ${second.id}` }).focus();
    await Promise.all([pg.waitForEvent('framenavigated'), pg.keyboard.press('Enter')]);
    await pg.waitForLoadState();
    t.regex(await mainText(pg), /previous ar translation of .* is kept for the new source/);
    const after = (await units())[1];
    t.is(after.state, 'translated');
    t.is(after.text, second.text);
  },
);
