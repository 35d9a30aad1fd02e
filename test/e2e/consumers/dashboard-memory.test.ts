// The editor's translation memory suggestions (server/web/keys.ts), in Debian's Chromium (playwright-core),
// axe-clean: beside a cell, the memory's matches with their score, source, target, origin and status, and project,
// every text escaped (a hostile target imported by TMX shows as text and runs nothing); Use, or Alt+2 in the field,
// puts a match in the field, and nothing is saved until the person saves.
import test from 'ava';
import { translate } from '../../../packages/client/src/index.js';
import { writeTmx } from '../../../packages/core/src/formats/tmx.js';
import { seriousViolations } from '../../helpers/axe.js';
import type { Chromium } from '../../helpers/chromium.js';
import { signIn } from '../../helpers/signin.js';
import { createTestProject, type TestService } from '../../helpers/service.js';
import { startDashboard, type Dashboard } from '../../helpers/dashboard-browser.js';
import { readKey } from '../../helpers/typed.js';
import { FormBrowser } from '../../helpers/form-browser.js';

let dashboard: Dashboard | undefined;
let svc: TestService;
let browser: Chromium;
let origin: string;
const OWNER = { email: 'owner-memory@example.test', password: 'a long enough password', name: 'Mia Memory' };

test.before(async () => {
  dashboard = await startDashboard([{ ...OWNER, role: 'owner' }], { LOG_LEVEL: 'error' });
  ({ svc, origin, browser } = dashboard);
});
test.after.always(() => dashboard?.stop());

const HOSTILE = '"><img src=x onerror="window.__pwned=1">Alle speichern';

test('the editor lists the memory matches beside a cell; Use and Alt+2 fill the field, nothing saved', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const file = writeTmx({ sourceLanguage: 'en' }, [
    {
      sourceLanguage: 'en',
      targetLanguage: 'de',
      source: 'Save all your changes',
      target: 'Alle Änderungen speichern',
    },
    { sourceLanguage: 'en', targetLanguage: 'de', source: 'Save all your <b>files</b>', target: HOSTILE },
  ]);
  const imported = await p.client.POST('/projects/{projectId}/memory/import', {
    params: { path: { projectId: p.projectId } },
    body: { contentBase64: Buffer.from(file).toString('base64'), status: 'approved' },
  });
  t.like(imported.data, { added: 2 });
  await translate(p.client, p.projectId, { units: [{ key: 'save.all', source: 'Save all your files' }] });

  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await signIn(page, origin, OWNER);
  await page.goto(`${origin}/projects/${p.projectId}/keys/save.all`);
  const rows = page.locator('#cell-de .suggestions tbody tr');
  t.is(await rows.count(), 2);
  const first = (await rows.nth(0).innerText()).replace(/\s+/g, ' ');
  t.regex(first, /^\d+% Save all your (<b>files<\/b>|changes) /);
  t.regex(first, /imported, approved workspace|imported, approved this project/);
  // The hostile target is text on the page, not markup.
  t.is(await page.locator('#cell-de .suggestions img').count(), 0);
  t.true((await page.locator('#cell-de .suggestions .tm-target').allInnerTexts()).includes(HOSTILE));
  t.is(await page.evaluate(() => (window as { __pwned?: number }).__pwned), undefined);
  t.deepEqual(await seriousViolations(page), []);

  const field = page.locator('#cell-de-value');
  const targets = await page.locator('#cell-de .suggestions .tm-target').allInnerTexts();
  await page.getByRole('button', { name: /^Use match 1 / }).click();
  t.is(await field.inputValue(), targets[0]);
  await field.press('Alt+2');
  t.is(await field.inputValue(), targets[1]);
  t.is(page.url(), `${origin}/projects/${p.projectId}/keys/save.all`, 'no page was posted');
  t.is((await readKey(p.client, p.projectId, 'save.all', 'de')).data!.translations.de.status, 'pending');
});

test('without script, Use shows the page again with the match in the field, nothing saved', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const file = writeTmx({ sourceLanguage: 'en' }, [
    { sourceLanguage: 'en', targetLanguage: 'de', source: 'Open the <b>file</b>', target: HOSTILE },
  ]);
  const imported = await p.client.POST('/projects/{projectId}/memory/import', {
    params: { path: { projectId: p.projectId } },
    body: { contentBase64: Buffer.from(file).toString('base64'), status: 'approved' },
  });
  t.like(imported.data, { added: 1 });
  await translate(p.client, p.projectId, { units: [{ key: 'open.file', source: 'Open the file' }] });

  // The forms as a browser without script posts them (test/helpers/form-browser.ts).
  const form = new FormBrowser(origin);
  await form.signInWaiting(OWNER);
  const path = `/projects/${p.projectId}/keys/open.file`;
  const shown = await (await form.fetch(path)).text();
  const use = /<section class="suggestions"[\s\S]*?<form method="post"[^>]*>([\s\S]*?)<\/form>/.exec(shown)![1];
  const fields = Object.fromEntries(
    [...use.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], unescape(m[2])]),
  );
  t.is(fields.value, HOSTILE);
  const answer = await form.fetch(path, { ...fields, do: 'check' });
  t.is(answer.status, 200, 'the page again, not a redirect after a save');
  const page = await answer.text();
  const field = /<textarea[^>]*id="cell-de-value"[^>]*>\n?([\s\S]*?)<\/textarea>/.exec(page)![1];
  t.is(unescape(field), HOSTILE, 'the match is in the field');
  t.false(page.includes(HOSTILE), 'and escaped everywhere on the page');
  t.is((await readKey(p.client, p.projectId, 'open.file', 'de')).data!.translations.de.status, 'pending');
});

/** HTML's five escapes undone (server/web/html.ts writes them). */
const unescape = (s: string) =>
  s
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');
