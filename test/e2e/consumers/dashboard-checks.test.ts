// The quality checks in the dashboard, in Debian's Chromium (playwright-core), axe-clean: a cell's results beside it
// in the key list and the editor with the offending characters marked, the list filtered by a check, and a
// severity changed on the settings page with the keyboard, which the background re-check then applies.
import test from 'ava';
import type { Page } from 'playwright-core';
import { translate } from '../../../packages/client/src/index.js';
import { seriousViolations } from '../../helpers/axe.js';
import { signIn } from '../../helpers/signin.js';
import { createTestProject, type TestProject, type TestService } from '../../helpers/service.js';
import { startDashboard, type Dashboard } from '../../helpers/dashboard-browser.js';

let dashboard: Dashboard | undefined;
let svc: TestService;
let page: Page;
let origin: string;
const OWNER = { email: 'owner-checks@example.test', password: 'a long enough password', name: 'Chris Checker' };
const REVIEWER = { email: 'reviewer-checks@example.test', password: 'a long enough password', name: 'Rae Viewer' };

test.before(async () => {
  dashboard = await startDashboard([
    { ...OWNER, role: 'owner' },
    { ...REVIEWER, role: 'reviewer' },
  ]);
  ({ svc, origin, page } = dashboard);
});
test.after.always(() => dashboard?.stop());

const runDue = (p: TestProject) => svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
const edit = (p: TestProject, key: string, lang: string, value: string) =>
  svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key, lang } },
    body: { value },
  });

test.serial(
  'results beside the cell with their characters marked, the check filter, a severity edited with the keyboard',
  async (t) => {
    const p = await createTestProject(svc, {
      languages: [
        { code: 'de', fillMode: 'manual' },
        { code: 'fr', fillMode: 'manual' },
      ],
    });
    await translate(p.client, p.projectId, {
      units: [
        { key: 'delete', source: 'Delete this file?' },
        { key: 'open', source: 'Open <b>Settings' },
        { key: 'save', source: 'Save' },
      ],
      langs: [],
    });
    await edit(p, 'delete', 'fr', 'Supprimer ce fichier?');
    await edit(p, 'delete', 'de', 'Diese Datei löschen?');
    await edit(p, 'save', 'fr', 'Enregistrer');

    await signIn(page, origin, OWNER);
    const keysUrl = `${origin}/projects/${p.projectId}/keys`;
    await page.goto(keysUrl);
    // Beside the fr cell: the result, and the question mark it is about marked in the value.
    const row = page.locator('table.keys tbody tr', { has: page.getByRole('link', { name: 'delete', exact: true }) });
    const fr = row.locator('ul.cells li', { has: page.locator('.lang', { hasText: /^fr$/ }) });
    t.is(await fr.locator('ul.checks li[data-check="french-spacing"] .severity').innerText(), 'warning');
    t.is(await fr.locator('.value mark').innerText(), '?');
    t.is(
      await row
        .locator('ul.cells li', { hasText: /^\s*de/ })
        .locator('ul.checks')
        .count(),
      0,
    );
    // The source's own result, its unclosed tag named.
    const open = page.locator('table.keys tbody tr', { has: page.getByRole('link', { name: 'open', exact: true }) });
    t.regex(await open.locator('td').first().locator('ul.checks').innerText(), /source-tags: unbalanced tags: <b>/);
    t.deepEqual(await seriousViolations(page), []);

    // The list filtered by a check: only the key whose cell has it.
    await page.getByLabel('Check', { exact: true }).selectOption('french-spacing');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/check=french-spacing/);
    await page
      .locator('#key-count')
      .filter({ hasText: /\b1 key matches/ })
      .waitFor();
    t.deepEqual(await page.locator('table.keys tbody th a').allInnerTexts(), ['delete']);
    t.regex(await page.locator('#key-count').innerText(), /with a check result of french-spacing/);

    // The editor shows them beside the cell, marked.
    await page.getByRole('link', { name: 'delete', exact: true }).click();
    await page.waitForURL(/\/keys\/delete$/);
    t.is(await page.locator('#cell-fr ul.checks mark').innerText(), '?');
    t.regex(await page.locator('#cell-fr ul.checks').innerText(), /french-spacing/);
    t.deepEqual(await seriousViolations(page), []);

    // The settings page, from the navigation; french-spacing made an error in every language, by keyboard alone.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Checks' }).click();
    await page.waitForURL(/\/checks$/);
    t.deepEqual(await seriousViolations(page), []);
    const select = page.getByLabel('french-spacing', { exact: true });
    await select.focus();
    await page.keyboard.type('e');
    t.is(await select.inputValue(), 'error');
    await page.keyboard.press('Tab');
    t.is(await page.evaluate(() => document.activeElement?.id), 'sev-cjk-punctuation', 'Tab leaves it for the next');
    await page.getByRole('button', { name: 'Save settings' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('p.notice', { hasText: 'Saved. The project is checked again in the background.' }).waitFor();
    t.is(await page.getByLabel('french-spacing', { exact: true }).inputValue(), 'error');
    t.regex(await page.locator('#checking').innerText(), /re-check of the project .* under way/);
    t.deepEqual(await seriousViolations(page), []);

    // Once the re-check ran, the cell's result is an error, and the error filter finds it.
    await runDue(p);
    await page.reload();
    t.is(await page.locator('#checking').count(), 0);
    await page.getByRole('link', { name: /1 with errors/ }).click();
    await page.waitForURL(/severity=error/);
    t.deepEqual(await page.locator('table.keys tbody th a').allInnerTexts(), ['delete']);
    t.is(await page.locator('ul.checks li[data-check="french-spacing"] .severity').innerText(), 'error');

    // A reviewer reads the settings and cannot change them.
    await signIn(page, origin, REVIEWER, `/projects/${p.projectId}/checks`);
    t.true(await page.getByLabel('french-spacing', { exact: true }).isDisabled());
    t.is(await page.getByRole('button', { name: 'Save settings' }).count(), 0);
    t.deepEqual(await seriousViolations(page), []);
  },
);

test.serial('an invalid pattern is refused on the page with its reason, and nothing is saved', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }] });
  await signIn(page, origin, OWNER, `/projects/${p.projectId}/checks`);
  await page.getByLabel('New check id').fill('no-click');
  await page.getByLabel('Name').fill('Say tap');
  await page.getByLabel('Pattern').fill('(klick');
  await page.getByRole('button', { name: 'Save settings' }).click();
  t.regex(await page.getByRole('alert').innerText(), /custom check no-click: invalid pattern: .*Nothing was saved\./);
  t.deepEqual(
    (await svc.admin.GET('/projects/{projectId}/checks/settings', { params: { path: { projectId: p.projectId } } }))
      .data,
    { settings: {}, checking: false },
  );
  t.deepEqual(await seriousViolations(page), []);
});
