// Outdated translations in the dashboard, in Debian's Chromium (playwright-core), axe-clean: a sync changes a
// source, the key list filters the outdated cells and shows them flagged, the editor shows the source the value was
// written for beside the current one, and an owner's bulk action re-translates them (the old value kept in history).
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
