// The termbase in the dashboard, in Debian's Chromium (playwright-core), axe-clean, driven with the keyboard only: a
// reviewer reaches the Terms page from the navigation, adds a term with its flags and translations, edits it,
// sees it marked in the key editor's source (inflected) with the translation it requires, and deletes it.
import test from 'ava';
import type { Page } from 'playwright-core';
import { sync } from '../../../packages/client/src/index.js';
import { seriousViolations } from '../../helpers/axe.js';
import { signIn } from '../../helpers/signin.js';
import { createTestProject, type TestService } from '../../helpers/service.js';
import { startDashboard, type Dashboard } from '../../helpers/dashboard-browser.js';

let dashboard: Dashboard | undefined;
let svc: TestService;
let page: Page;
let origin: string;
const REVIEWER = { email: 'reviewer-terms@example.test', password: 'a long enough password', name: 'Rita Reviewer' };

test.before(async () => {
  dashboard = await startDashboard([{ ...REVIEWER, role: 'reviewer' }]);
  ({ svc, origin, page } = dashboard);
});
test.after.always(() => dashboard?.stop());

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** Focuses `label`'s field and types `text` over what it holds, with the keyboard. */
async function typeInto(label: string | RegExp, text: string) {
  await page.getByLabel(label, { exact: typeof label === 'string' }).focus();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(text);
}

/** Focuses a link or button and presses Enter. */
async function press(role: 'link' | 'button', name: string | RegExp) {
  await page.getByRole(role, { name, exact: typeof name === 'string' }).focus();
  await page.keyboard.press('Enter');
}

test('a term added, edited and deleted with the keyboard, and marked in the key editor', async (t) => {
  const p = await createTestProject(svc, {
    languages: [
      { code: 'de', fillMode: 'manual' },
      { code: 'fr', fillMode: 'manual' },
    ],
  });
  await sync(p.client, p.projectId, {
    contentBase64: b64(JSON.stringify({ settings: { title: 'Manage your accounts and the GitHub link' } })),
    fileName: 'en.json',
  });
  await signIn(page, origin, REVIEWER);
  await page.goto(`${origin}/projects/${p.projectId}`);
  await press('link', 'Terms');
  await page.waitForURL(/\/terms$/);
  t.regex(await page.locator('main').innerText(), /This project uses no terms yet/);
  t.deepEqual(await seriousViolations(page), []);

  // Add: every field reached and filled with the keyboard, a flag toggled with Space, the form sent with Enter.
  await typeInto('Term', 'account');
  await typeInto(/^Meaning/, 'A user account, not a bank account');
  await page.getByLabel('Part of speech').focus();
  await page.keyboard.press('n'); // the first option starting with n: noun
  await typeInto('de', 'Konto');
  await typeInto('fr', 'compte');
  await press('button', 'Add term');
  await page.locator('p[role="status"]', { hasText: 'Added the term “account”.' }).waitFor();
  t.deepEqual(await page.locator('table.terms tbody td.term').allInnerTexts(), ['account noun']);
  t.deepEqual(await seriousViolations(page), []);

  await typeInto('Term', 'GitHub');
  await page.getByLabel(/^Not translated/).focus();
  await page.keyboard.press('Space');
  await page.getByLabel(/^Case-sensitive/).focus();
  await page.keyboard.press('Space');
  await page.getByLabel('Used by').focus();
  await page.keyboard.press('ArrowDown'); // every project of the workspace
  await press('button', 'Add term');
  await page.locator('p[role="status"]', { hasText: 'Added the term “GitHub”.' }).waitFor();
  t.regex(
    await page.locator('table.terms tbody tr', { hasText: 'GitHub' }).innerText(),
    /not translated, case-sensitive\s+workspace/,
  );

  // Edit: the German translation changes.
  await press('link', 'Edit account');
  await page.waitForURL(/\/terms\/term_/);
  t.is(await page.getByLabel('de', { exact: true }).inputValue(), 'Konto');
  t.deepEqual(await seriousViolations(page), []);
  await typeInto('de', 'Benutzerkonto');
  await page.keyboard.press('Enter'); // submits the form from its field
  await page.locator('p[role="status"]', { hasText: 'Saved the term “account”.' }).waitFor();
  t.regex(await page.locator('table.terms tbody tr', { hasText: 'account' }).innerText(), /Benutzerkonto\s+compte/);
  const api = await svc.admin.GET('/projects/{projectId}/terms', { params: { path: { projectId: p.projectId } } });
  t.like(
    api.data!.terms.find((x) => x.text === 'account'),
    {
      description: 'A user account, not a bank account',
      partOfSpeech: 'noun',
      translations: { de: 'Benutzerkonto', fr: 'compte' },
    },
  );

  // The key editor marks the terms in the source, `accounts` as `account`, with what each requires.
  await page.goto(`${origin}/projects/${p.projectId}/keys/settings.title`);
  const marks = page.locator('dd.source mark.term');
  t.deepEqual(await marks.allInnerTexts(), ['accounts', 'GitHub']);
  t.is(await marks.first().getAttribute('title'), 'account → de: Benutzerkonto; fr: compte');
  t.is(await marks.nth(1).getAttribute('title'), 'GitHub: kept as it is');
  t.regex(
    await page.locator('ul.terms').innerText(),
    /account \(A user account, not a bank account\): de: Benutzerkonto; fr: compte/,
  );
  t.deepEqual(await seriousViolations(page), []);

  // Delete, asked first.
  await page.goto(`${origin}/projects/${p.projectId}/terms`);
  await press('link', 'Edit account');
  await press('link', 'Delete this term');
  await page.waitForURL(/\/delete$/);
  t.deepEqual(await seriousViolations(page), []);
  await press('button', 'Delete term');
  await page.locator('p[role="status"]', { hasText: 'Deleted the term “account”.' }).waitFor();
  t.deepEqual(await page.locator('table.terms tbody td.term').allInnerTexts(), [
    'GitHub proper noun'.replace(' proper noun', ''),
  ]);
  await page.goto(`${origin}/projects/${p.projectId}/keys/settings.title`);
  t.deepEqual(await page.locator('dd.source mark.term').allInnerTexts(), ['GitHub']);
});
