// The AI fill page in Debian's Chromium (playwright-core), axe-clean: the style guide typed and the review rule set
// with the keyboard, the link to the AI values scored below 0.7, and the key list showing each score with its reason
// (server/web/fill.ts, server/web/keys.ts; the embedded pseudo engine under the fill's guards); untranslated cells of
// the grid's selected rows sent to the engine, the estimate shown before the person confirms.
import test from 'ava';
import type { Page } from 'playwright-core';
import { translate } from '../../../packages/client/src/index.js';
import { seriousViolations } from '../../helpers/axe.js';
import { signIn } from '../../helpers/signin.js';
import { createTestProject, type TestService } from '../../helpers/service.js';
import { startDashboard, type Dashboard } from '../../helpers/dashboard-browser.js';

let dashboard: Dashboard | undefined;
let svc: TestService;
let page: Page;
let origin: string;
const OWNER = { email: 'owner-fill@example.test', password: 'a long enough password', name: 'Fern Filler' };

test.before(async () => {
  dashboard = await startDashboard([{ ...OWNER, role: 'owner' }]);
  ({ svc, origin, page } = dashboard);
});
test.after.always(() => dashboard?.stop());

test('the style guide and the review rule saved with the keyboard; low AI scores listed with their reasons', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  await translate(p.client, p.projectId, {
    units: [
      { key: 'button.save', source: 'Save changes', ctx: 'Button [CHAR LIMIT=12]' },
      { key: 'button.cancel', source: 'Cancel' },
    ],
  });
  await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  await signIn(page, origin, OWNER, `/projects/${p.projectId}`);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'AI fill' }).click();
  await page.waitForURL(/\/fill$/);
  t.deepEqual(await seriousViolations(page), []);
  await page.getByLabel('For every language').focus();
  await page.keyboard.type('Short, friendly sentences.');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Du, never Sie.');
  await page.getByLabel(/Hold AI values scored below/).fill('0.7');
  await page.getByRole('button', { name: 'Save' }).focus();
  await page.keyboard.press('Enter');
  await page.locator('p.notice', { hasText: 'Saved.' }).waitFor();
  const project = (await svc.admin.GET('/projects/{projectId}', { params: { path: { projectId: p.projectId } } }))
    .data!;
  t.deepEqual(project.fillInstructions, { project: 'Short, friendly sentences.', languages: { de: 'Du, never Sie.' } });
  t.is(project.aiReviewBelow, 0.7);
  t.deepEqual(await seriousViolations(page), []);
  // The over-long button scores 0.70 (1 − 0.30): not below 0.7, below 0.9.
  await page.getByRole('link', { name: '0 keys with AI values scored below 0.7' }).click();
  await page.waitForURL(/aiScoreBelow=0.7/);
  await page.getByLabel('AI score', { exact: true }).selectOption('0.9');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/aiScoreBelow=0.9/);
  await page
    .locator('#key-count')
    .filter({ hasText: /\b1 key matches/ })
    .waitFor();
  t.regex(await page.locator('#key-count').innerText(), /AI values scored below 0.9/);
  t.deepEqual(await page.locator('table.keys tbody th a').allInnerTexts(), ['button.save']);
  t.regex(await page.locator('.ai-score').first().innerText(), /AI score 0\.70 \(over the length limit: length: /);
  t.deepEqual(await seriousViolations(page), []);
  // The editor says the limit the engine was given.
  const detail = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key: 'button.save' } },
  });
  t.like(detail.data, { maxLength: 12, comment: null });
  await page.getByRole('link', { name: 'button.save' }).click();
  await page.waitForURL(/\/keys\/button\.save$/);
  t.regex(await page.locator('dd.char-limit').innerText(), /^12 characters as the reader sees them/);
});

test.serial(
  'untranslated cells sent to the engine from the grid: the selected rows, estimated before confirming',
  async (t) => {
    const p = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }, { code: 'fr' }] });
    await translate(p.client, p.projectId, {
      units: ['one', 'two', 'three'].map((key) => ({ key, source: `Number ${key}` })),
    });
    await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
    // de was typed by people; switched to the AI fill, its cells stay missing until someone asks for them.
    await svc.admin.POST('/projects/{projectId}/languages', {
      params: { path: { projectId: p.projectId } },
      body: { code: 'de', fillMode: 'ai' },
    });
    await signIn(page, origin, OWNER, `/projects/${p.projectId}/keys?cols=de&sort=name`);
    const status = (key: string) =>
      page.locator(`td.gc[data-name="${key}"][data-lang="de"] .cell-status`).first().innerText();
    t.deepEqual(await Promise.all(['one', 'three', 'two'].map(status)), ['missing', 'missing', 'missing']);

    await page.getByLabel('Select one').focus();
    await page.keyboard.press('Space');
    await page.getByLabel('Select two').focus();
    await page.keyboard.press('Space');
    await page.getByLabel(/Bulk action on/).selectOption('translate');
    await page.locator('#bulk-lang').selectOption('de');
    await page.getByRole('button', { name: 'Review and apply…' }).click();
    t.regex(
      await page.locator('#bulk-summary').innerText(),
      /Translate untranslated cells for 2 keys \(the 2 selected, all keys\), in de/,
    );
    const estimate = (await page.locator('#bulk-estimate').innerText()).replace(/\s+/g, ' ');
    t.regex(estimate, /^2 cells, estimated at [\d.]+ credits, held until the fill ends; [\d,.]+ credits would remain/);
    t.deepEqual(await seriousViolations(page), []);
    // The estimate held nothing: the cells are as they were until the person confirms.
    const before = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
      params: { path: { projectId: p.projectId, key: 'one' } },
    });
    t.is(before.data!.cells.find((c) => c.lang === 'de')!.status, 'missing');
    await page.getByRole('button', { name: 'Confirm: Translate untranslated cells' }).click();
    await page.waitForURL(/\/keys\?/);
    t.regex(await page.locator('p.notice').innerText(), /^2 cells queued for translation\./);
    await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
    await page.reload();
    t.deepEqual(await Promise.all(['one', 'three', 'two'].map(status)), ['translated', 'missing', 'translated']);

    // The editor of the one left: its de cell asks the engine the same way, and the confirmation comes back to it.
    await page.goto(`${origin}/projects/${p.projectId}/keys/three`);
    t.is(await page.getByRole('button', { name: /^Ask the engine for fr/ }).count(), 0, 'fr has a value');
    await page.getByRole('button', { name: 'Ask the engine for de…' }).click();
    t.regex((await page.locator('#bulk-estimate').innerText()).replace(/\s+/g, ' '), /^1 cell, estimated at/);
    await page.getByRole('button', { name: 'Confirm: Translate untranslated cells' }).click();
    await page.waitForURL((u) => u.pathname.endsWith('/keys/three'));
    t.regex(await page.locator('p.notice').innerText(), /^1 cells queued for translation\./);
    await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
    await page.reload();
    t.is(await page.getByRole('button', { name: /^Ask the engine/ }).count(), 0, 'every cell has a value now');
    // A back address outside this project's keys is not followed.
    const csrf = await page.locator('form input[name=csrf]').first().inputValue();
    const r = await page.request.post(`${origin}/projects/${p.projectId}/key-actions`, {
      form: { csrf, action: 'translate', 'sel-0': 'x', confirm: 'yes', back: '//evil.example/keys/x' },
      headers: { origin },
      maxRedirects: 0,
    });
    t.is(r.status(), 303);
    t.regex(r.headers().location, new RegExp(`^/projects/${p.projectId}/keys(\\?|$)`));
  },
);
