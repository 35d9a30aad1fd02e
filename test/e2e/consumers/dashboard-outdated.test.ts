// Outdated translations in the dashboard, in Debian's Chromium (playwright-core), axe-clean: a sync changes a
// source, the key list filters the outdated cells and shows them flagged, the editor shows the source the value was
// written for beside the current one, and an owner's bulk action re-translates them (the old value kept in history);
// an owner marks a source verified and edits it in the editor (outdating its translations, or not for a copy edit),
// and an edit someone made meanwhile refuses the save without losing the text typed.
import test from 'ava';
import type { Page } from 'playwright-core';
import { sync } from '../../../packages/client/src/index.js';
import { seriousViolations } from '../../helpers/axe.js';
import { signIn } from '../../helpers/signin.js';
import { createTestProject, type TestProject, type TestService } from '../../helpers/service.js';
import { startDashboard, type Dashboard } from '../../helpers/dashboard-browser.js';
import { readKey } from '../../helpers/typed.js';

let dashboard: Dashboard | undefined;
let svc: TestService;
let page: Page;
let origin: string;
const OWNER = { email: 'owner-outdated@example.test', password: 'a long enough password', name: 'Olga Owner' };

test.before(async () => {
  dashboard = await startDashboard([{ ...OWNER, role: 'owner' }]);
  ({ svc, origin, page } = dashboard);
});
test.after.always(() => dashboard?.stop());

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const syncJson = (p: TestProject, obj: unknown) =>
  sync(p.client, p.projectId, { contentBase64: b64(JSON.stringify(obj)), fileName: 'en.json' });
const runDue = (p: TestProject) => svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
const mainText = async () => (await page.locator('main').innerText()).replace(/\s+/g, ' ');

test('an outdated value: flagged in the list, old and new source side by side, bulk re-translated', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
  await syncJson(p, { save: 'Save', cancel: 'Cancel' });
  await runDue(p);
  const old = (await readKey(p.client, p.projectId, 'save', 'de')).data!.translations.de.value;
  await syncJson(p, { save: 'Save changes', cancel: 'Cancel' });

  await signIn(page, origin, OWNER);
  // The overview counts them as not done, and links to them.
  await page.goto(`${origin}/projects/${p.projectId}`);
  t.regex(await page.locator('tr[data-lang="de"]').innerText(), /de\s+AI fill\s+50%\s+0\s+0\s+0\s+1\s+0\s+0\s+1$/);
  t.deepEqual(await seriousViolations(page), []);
  const keysUrl = `${origin}/projects/${p.projectId}/keys`;
  await page.goto(keysUrl);
  await page.getByLabel('Status').selectOption('outdated');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/status=outdated/);
  await page
    .locator('#key-count')
    .filter({ hasText: /\b1 key matches/ })
    .waitFor();
  t.deepEqual(await page.locator('table.keys tbody th a').allInnerTexts(), ['save']);
  t.is(await page.locator('table.keys .cell-status[data-status="outdated"]').count(), 2, 'de and fr');
  t.deepEqual(await seriousViolations(page), []);

  // The editor: the source the value was written for, the current one, and what changed.
  await page.getByRole('link', { name: 'save' }).click();
  await page.waitForURL(/\/keys\/save$/);
  const de = page.locator('#cell-de');
  t.is(await de.locator('.source-then').innerText(), 'Save');
  t.is(await de.locator('.source-now').innerText(), 'Save changes');
  t.is((await de.locator('.outdated-sources ins').allInnerTexts()).join('').trim(), 'changes');
  t.regex(await mainText(), /Outdated: the source changed after this translation was written/);
  t.deepEqual(await seriousViolations(page), []);

  // The owner's bulk action over the filtered list, in de only: confirmed, then queued.
  await page.goto(`${keysUrl}?status=outdated`);
  await page.getByLabel(/Bulk action on the 1 matching keys/).selectOption('retranslate');
  await page.getByLabel('in', { exact: true }).selectOption('de');
  await page.getByRole('button', { name: 'Review and apply…' }).click();
  t.regex(await page.locator('#bulk-summary').innerText(), /Re-translate outdated for 1 key .*status outdated.*in de/);
  t.regex(
    (await page.locator('#bulk-estimate').innerText()).replace(/\s+/g, ' '),
    /^1 cell, estimated at [\d.]+ credits, held until the fill ends/,
  );
  t.deepEqual(await seriousViolations(page), []);
  await page.getByRole('button', { name: 'Confirm: Re-translate outdated' }).click();
  await page.waitForURL((u) => u.pathname.endsWith('/keys'));
  t.regex(await page.locator('p.notice').innerText(), /^1 outdated cells queued again\./);
  await runDue(p);

  // de is current again (a new value), fr still outdated; the old de value is in the history.
  await page.goto(`${keysUrl}/save`);
  t.is(await page.locator('#cell-de .outdated').count(), 0);
  t.is(await page.locator('#cell-fr .outdated').count(), 1);
  const now = (await readKey(p.client, p.projectId, 'save', 'de')).data!.translations.de;
  t.not(now.value, old);
  t.false('outdated' in now);
  t.regex(await mainText(), new RegExp(`outdated[^]*${old!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  t.deepEqual(await seriousViolations(page), []);

  // The value the re-translation took out is offered as a candidate; using it saves it as a person's edit.
  t.is(await page.locator('#cell-de .candidate .retired').innerText(), old!);
  await page.getByRole('button', { name: 'Use the earlier de translation' }).click();
  await page.locator('p.notice', { hasText: 'Saved (de).' }).waitFor();
  t.deepEqual((await readKey(p.client, p.projectId, 'save', 'de')).data!.translations.de, {
    status: 'translated',
    value: old!,
  });
  t.is(await page.locator('#cell-de .candidate').count(), 0);
  t.deepEqual(await seriousViolations(page), []);
});

test.serial(
  'the owner edits a source in the editor: outdated or a copy edit, and an edit made meanwhile is not lost',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
    await syncJson(p, { greet: 'Hello', leave: 'Goodbye' });
    await runDue(p);
    await signIn(page, origin, OWNER);
    const keyUrl = `${origin}/projects/${p.projectId}/keys/greet`;
    await page.goto(keyUrl);
    t.regex(await mainText(), /source not verified/);
    await page.getByRole('button', { name: 'Mark the source verified' }).click();
    await page.locator('p.notice', { hasText: 'The source is marked verified.' }).waitFor();
    t.regex(await mainText(), /source verified/);

    // A new meaning, typed with the keyboard: every translation is marked outdated.
    await page.getByText('Edit the source').click();
    const field = page.getByLabel('Source (en)');
    t.is(await field.getAttribute('lang'), 'en');
    await field.fill('');
    await field.pressSequentially('Hello, welcome back');
    await page.keyboard.press('Tab');
    await page.getByRole('button', { name: 'Save the source' }).click();
    await page.locator('p.notice', { hasText: 'The source is saved; 2 translations are marked outdated.' }).waitFor();
    t.is(await page.locator('dd.source').innerText(), 'Hello, welcome back');
    t.is(await page.locator('#cell-de .outdated').count(), 1);
    t.deepEqual(await seriousViolations(page), []);

    // Someone else changes it while this page is open: the save is refused, the text typed here stays in the field.
    await page.getByText('Edit the source').click();
    await svc.admin.PATCH('/projects/{projectId}/keys/{key}', {
      params: { path: { projectId: p.projectId, key: 'greet' } },
      body: { source: 'Hi, welcome back', copyEdit: true },
    });
    await field.fill('Hello again, welcome back');
    await page.getByRole('button', { name: 'Save the source' }).click();
    await page.locator('.source-edit [role=alert]').waitFor();
    t.regex(await page.locator('.source-edit [role=alert]').innerText(), /changed since you opened the page/);
    t.is(await page.locator('.source-edit dd.theirs').innerText(), 'Hi, welcome back');
    t.is(await page.getByLabel('Source (en)').inputValue(), 'Hello again, welcome back');
    t.deepEqual(await seriousViolations(page), []);
    // Saving again replaces it knowingly, as a copy edit this time: the translations' state does not change.
    await page.getByLabel('Copy edit: a typo or style fix, the translations still fit').check();
    await page.getByRole('button', { name: 'Save the source' }).click();
    await page.locator('p.notice', { hasText: 'The source is saved; the translations still fit.' }).waitFor();
    t.is(await page.locator('dd.source').innerText(), 'Hello again, welcome back');
    const de = (await readKey(p.client, p.projectId, 'greet', 'de')).data!.translations.de;
    t.true(de.outdated, 'still outdated from the first edit, not from the copy edit');
  },
);
