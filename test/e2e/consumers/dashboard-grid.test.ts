// The translator's grid (server/web/grid.ts, assets/grid.js) and the editor's per-category plural fields
// (server/web/plural-fields.ts) in Debian's Chromium (playwright-core): keyboard-only editing of cells (Enter
// saves, Escape cancels, arrows and Tab move, Ctrl+Enter goes to the next empty cell), a stale cell's conflict
// shown instead of overwriting, row selection for a bulk action, sort, a 390 px layout, an Arabic column laid out
// right to left, axe-clean pages; Polish and Arabic plurals entered one field per CLDR category, passing the
// gates and previewed, and raw ICU round-tripping. A scripted translator translates 50 keys with the keyboard in
// the grid and through the per-key editor form, and the test prints the keystrokes and time per key of each.
import test from 'ava';
import type { Page } from 'playwright-core';
import { translate } from '../../../packages/client/src/index.js';
import { seriousViolations } from '../../helpers/axe.js';
import { signIn as signInAs } from '../../helpers/signin.js';
import { launchChromium, type Chromium } from '../../helpers/chromium.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../../helpers/service.js';

let svc: TestService;
let browser: Chromium;
let page: Page;
let origin: string;
const OWNER = { email: 'owner-grid@example.test', password: 'a long enough password', name: 'Gita Grid' };
const OTHER = { email: 'other-grid@example.test', password: 'another long password', name: 'Omar Other' };

test.before(async () => {
  svc = await startTestService();
  origin = svc.internalUrl.replace('/internal/v1', '');
  svc.service.app.config.publicAppUrl = origin;
  for (const [u, role] of [
    [OWNER, 'owner'],
    [OTHER, 'reviewer'],
  ] as const)
    await svc.admin.POST('/users', { body: { name: u.name, email: u.email, password: u.password, role } });
  browser = await launchChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
});
test.after.always(async () => {
  await browser?.close();
  await svc?.stop();
});

const signIn = (who: { email: string; password: string }, next = '/') => signInAs(page, origin, who, next);

/** A project in English with de, ar and pl filled by hand (so every cell starts missing), and `n` keys. */
async function gridProject(n: number, extra: Array<{ key: string; source: string }> = []): Promise<TestProject> {
  const p = await createTestProject(svc, {
    languages: [
      { code: 'de', fillMode: 'manual' },
      { code: 'ar', fillMode: 'manual' },
      { code: 'pl', fillMode: 'manual' },
    ],
  });
  const units = Array.from({ length: n }, (_, i) => ({
    key: `k${String(i).padStart(3, '0')}`,
    source: `Item ${i}`,
  }));
  const r = await translate(p.client, p.projectId, { units: [...units, ...extra] });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return p;
}

async function cell(p: TestProject, key: string, lang: string) {
  const r = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key } },
  });
  return r.data!.cells.find((c) => c.lang === lang)!;
}

const gridUrl = (p: TestProject, q = 'cols=de,ar') => `${origin}/projects/${p.projectId}/keys?${q}`;
const gc = (key: string, lang: string) => page.locator(`td.gc[data-name="${key}"][data-lang="${lang}"]`);
const focusedCell = () =>
  page.evaluate(() => {
    const el = document.activeElement;
    const c = el?.closest('td.gc') as HTMLElement | null;
    return c ? `${c.dataset.name}/${c.dataset.lang}${el?.tagName === 'TEXTAREA' ? ' editing' : ''}` : el?.tagName;
  });

test.serial('grid: keyboard-only editing; Enter saves, Escape cancels, arrows and Tab move, Ctrl+Enter', async (t) => {
  const p = await gridProject(4);
  await signIn(OWNER);
  await page.goto(gridUrl(p));
  t.is(await page.locator('table.grid thead th').count(), 5, 'select, key, source, de, ar');
  t.is(await page.locator('table.grid').getAttribute('role'), 'grid');
  t.deepEqual(await seriousViolations(page), []);

  // The first cell is the grid's one tab stop.
  await gc('k000', 'de').focus();
  t.is(await focusedCell(), 'k000/de');
  await page.keyboard.press('ArrowRight');
  t.is(await focusedCell(), 'k000/ar');
  await page.keyboard.press('ArrowDown');
  t.is(await focusedCell(), 'k001/ar');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowUp');
  t.is(await focusedCell(), 'k000/de');

  // Enter edits; typing and Enter saves; the cell shows the value and the server has it.
  await page.keyboard.press('Enter');
  t.is(await focusedCell(), 'k000/de editing');
  const field = page.locator('textarea.gedit');
  t.is(await field.getAttribute('lang'), 'de');
  t.is(await field.getAttribute('dir'), 'ltr');
  await page.keyboard.type('Artikel 0');
  await page.keyboard.press('Enter');
  await page.locator('textarea.gedit').waitFor({ state: 'detached' });
  t.is(await focusedCell(), 'k000/de');
  t.is(await gc('k000', 'de').locator('.gv').innerText(), 'Artikel 0');
  t.like(await cell(p, 'k000', 'de'), { value: 'Artikel 0', status: 'translated', origin: 'edit' });

  // Escape cancels: nothing is saved and the cell shows what it showed.
  await page.keyboard.press('Enter');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Unsinn');
  await page.keyboard.press('Escape');
  t.is(await focusedCell(), 'k000/de');
  t.is(await gc('k000', 'de').locator('.gv').innerText(), 'Artikel 0');
  t.is((await cell(p, 'k000', 'de')).value, 'Artikel 0');

  // Tab saves and moves on. (Playwright types Arabic letters as inserted text, with no key events, so the field
  // is opened with Enter first; a person's Arabic keyboard sends keys, which open it as below.)
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await page.keyboard.type('بند 0');
  t.is(await page.locator('textarea.gedit').getAttribute('dir'), 'rtl');
  t.is(await page.locator('textarea.gedit').getAttribute('lang'), 'ar');
  await page.keyboard.press('Tab');
  await page.waitForFunction(() => !document.querySelector('textarea.gedit'));
  t.is(await focusedCell(), 'k001/de');
  t.is((await cell(p, 'k000', 'ar')).value, 'بند 0');

  // Typing on a cell starts editing it with that character. Ctrl+Enter saves and edits the next empty cell
  // (k001/ar, then k002/de).
  await page.keyboard.type('Artikel 1');
  t.is(await focusedCell(), 'k001/de editing');
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction(() => document.activeElement?.closest('td.gc')?.getAttribute('data-name') === 'k001');
  t.is(await focusedCell(), 'k001/ar editing');
  await page.keyboard.type('بند 1');
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction(() => document.activeElement?.closest('td.gc')?.getAttribute('data-name') === 'k002');
  t.is(await focusedCell(), 'k002/de editing');
  await page.keyboard.press('Escape');
  t.is((await cell(p, 'k001', 'de')).value, 'Artikel 1');
  t.is((await cell(p, 'k001', 'ar')).value, 'بند 1');
  t.is((await cell(p, 'k002', 'de')).status, 'missing');

  // An Arabic column: every ar cell and the header's language are right to left; the source is English.
  t.deepEqual(
    [
      ...new Set(
        await page.locator('td.gc[data-lang="ar"]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dir)),
      ),
    ],
    ['rtl'],
  );
  t.deepEqual(
    [
      ...new Set(
        await page.locator('td.gc[data-lang="de"]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dir)),
      ),
    ],
    ['ltr'],
  );
  t.is(await page.locator('td.source').first().getAttribute('lang'), 'en');

  // The columns are in the URL: a reload shows the same grid with the saved values.
  await page.reload();
  t.is(await gc('k001', 'ar').locator('.gv').innerText(), 'بند 1');
  t.deepEqual(await seriousViolations(page), []);
});

const put = (p: TestProject, key: string, lang: string, value: string) =>
  svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key, lang } },
    body: { value },
  });

test.serial('grid: a cell changed by someone else since it was shown is a conflict, never overwritten', async (t) => {
  const p = await gridProject(2);
  await put(p, 'k000', 'de', 'Eintrag 0');
  await signIn(OWNER);
  await page.goto(gridUrl(p, 'cols=de'));
  // Another person saves the cell after the grid was shown.
  await new Promise((r) => setTimeout(r, 5));
  await put(p, 'k000', 'de', 'Posten 0 (theirs)');
  await gc('k000', 'de').focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Artikel 0 (mine)');
  await page.keyboard.press('Enter');
  const alert = gc('k000', 'de').locator('[role=alert]');
  await alert.waitFor();
  t.regex(await alert.innerText(), /since you opened it: “Posten 0 \(theirs\)”\. Nothing was saved\./);
  t.is((await cell(p, 'k000', 'de')).value, 'Posten 0 (theirs)', 'theirs is kept');
  t.is(await page.locator('textarea.gedit').inputValue(), 'Artikel 0 (mine)', 'mine is still in the field');
  t.deepEqual(await seriousViolations(page), []);
  // Escape keeps theirs, which the cell now shows.
  await page.keyboard.press('Escape');
  t.is(await gc('k000', 'de').locator('.gv').innerText(), 'Posten 0 (theirs)');
  t.is((await cell(p, 'k000', 'de')).value, 'Posten 0 (theirs)');

  // Again, and this time Enter saves mine over theirs, knowingly: based on their version.
  await put(p, 'k000', 'de', 'Posten 0 (theirs, again)');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Artikel 0 (mine)');
  await page.keyboard.press('Enter');
  await alert.waitFor();
  t.regex(await alert.innerText(), /theirs, again/);
  await page.keyboard.press('Enter');
  await page.locator('textarea.gedit').waitFor({ state: 'detached' });
  t.is((await cell(p, 'k000', 'de')).value, 'Artikel 0 (mine)');
  t.is(await gc('k000', 'de').locator('.gv').innerText(), 'Artikel 0 (mine)');
  // History holds every value: nothing anyone wrote is lost.
  const history = (
    await svc.admin.GET('/projects/{projectId}/keys/{key}', {
      params: { path: { projectId: p.projectId, key: 'k000' } },
    })
  ).data!.history.map((h) => h.value);
  t.true(history.includes('Posten 0 (theirs)') && history.includes('Posten 0 (theirs, again)'));

  // A value the gates refuse is not saved either: the cell says why.
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.keyboard.type('Artikel {count');
  await page.keyboard.press('Enter');
  await gc('k001', 'de').locator('[role=alert]').waitFor();
  t.regex(await gc('k001', 'de').locator('[role=alert]').innerText(), /The gates refuse this value/);
  t.is((await cell(p, 'k001', 'de')).status, 'missing');
  await page.keyboard.press('Escape');
});

test.serial('grid: selected rows are what a bulk action applies to; sort and density stay in the URL', async (t) => {
  const p = await gridProject(4);
  for (const k of ['k000', 'k001', 'k002', 'k003']) await put(p, k, 'de', `Wert ${k}`);
  await signIn(OWNER);
  await page.goto(gridUrl(p, 'cols=de&sort=-name&density=compact'));
  t.deepEqual(await page.locator('table.grid tbody th a').allInnerTexts(), ['k003', 'k002', 'k001', 'k000']);
  t.true(await page.locator('table.grid').evaluate((e) => e.classList.contains('compact')));
  t.is(await page.getByLabel('Sort by').inputValue(), '-name');

  // Select two rows with the keyboard (Space on each checkbox): the bulk form says it acts on them.
  await page.getByLabel('Select k001').focus();
  await page.keyboard.press('Space');
  await page.getByLabel('Select k003').focus();
  await page.keyboard.press('Space');
  t.regex(await page.locator('#grid-bulk label[for=bulk-action]').innerText(), /the 2 selected keys/);
  await page.getByLabel(/Bulk action on/).selectOption('approve');
  await page.locator('#bulk-lang').selectOption('de');
  await page.getByRole('button', { name: 'Review and apply…' }).click();
  t.regex(await page.locator('#bulk-summary').innerText(), /Approve for 2 keys \(the 2 selected, all keys\), in de/);
  await page.getByRole('button', { name: 'Confirm: Approve' }).click();
  await page.waitForURL(/\/keys\?/);
  t.regex(await page.locator('p.notice').innerText(), /^2 cells approved\./);
  // Back on the same grid: its columns, order and density came back with the redirect.
  t.regex(page.url(), /cols=de/);
  t.regex(page.url(), /sort=-name/);
  t.deepEqual(await Promise.all(['k000', 'k001', 'k002', 'k003'].map(async (k) => (await cell(p, k, 'de')).status)), [
    'translated',
    'approved',
    'translated',
    'approved',
  ]);

  // Sorted by recent update of the first column: the last saved first.
  await put(p, 'k002', 'de', 'Wert k002, neu');
  await page.goto(gridUrl(p, 'cols=de&sort=-updated'));
  t.is(await page.locator('table.grid tbody th a').first().innerText(), 'k002');

  // The grid form opens the grid from the plain list, keeping the filter.
  await page.goto(`${origin}/projects/${p.projectId}/keys?q=k00`);
  await page.getByLabel('Translate into').selectOption('pl');
  await page.getByLabel('Second column').selectOption('ar');
  await page.getByRole('button', { name: 'Open grid' }).click();
  await page.locator('table.grid').waitFor();
  t.deepEqual(await page.locator('table.grid thead th').allInnerTexts(), ['Select', 'Key', 'Source (en)', 'pl', 'ar']);
  t.regex(page.url(), /q=k00/);
  t.deepEqual(await seriousViolations(page), []);
});

test.serial('grid: at 390 px the page does not scroll sideways and a cell is still edited', async (t) => {
  const p = await gridProject(3, [
    {
      key: 'long.one',
      source: 'A rather long source string that would run off a narrow screen if it were laid out in a row',
    },
  ]);
  await signIn(OWNER);
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.goto(gridUrl(p));
    t.true(
      await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1),
      await page.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
          .slice(0, 8)
          .map((e) => `${e.tagName}.${e.className}#${e.id} ${Math.round(e.getBoundingClientRect().right)}`)
          .join(', '),
      ),
    );
    await gc('k000', 'ar').focus();
    await page.keyboard.press('Enter');
    await page.keyboard.type('بند');
    await page.keyboard.press('Enter');
    await page.locator('textarea.gedit').waitFor({ state: 'detached' });
    t.is((await cell(p, 'k000', 'ar')).value, 'بند');
    t.true(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1));
    t.deepEqual(await seriousViolations(page), []);
  } finally {
    await page.setViewportSize({ width: 1280, height: 720 });
  }
});
