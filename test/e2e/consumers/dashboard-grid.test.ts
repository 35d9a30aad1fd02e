// The translator's grid (server/web/grid.ts, assets/grid.js) and the editor's per-category plural fields
// (server/web/plural-fields.ts) in Debian's Chromium (playwright-core): keyboard-only editing of cells (Enter
// saves, Escape cancels, arrows and Tab move, Ctrl+Enter goes to the next empty cell), a stale cell's conflict
// shown instead of overwriting, row selection for a bulk action, sort, a 390 px layout, an Arabic column laid out
// right to left, axe-clean pages; Polish and Arabic plurals entered one field per CLDR category, passing the
// gates and previewed, and raw ICU round-tripping. A scripted translator translates 50 keys with the keyboard in
// the grid and through the per-key editor form, and the test prints the keystrokes and time per key of each.
import test from 'ava';
import { keyCell, putCell } from '../../helpers/cells.js';
import type { Page } from 'playwright-core';
import { translate } from '../../../packages/client/src/index.js';
import { seriousViolations } from '../../helpers/axe.js';
import { signIn as signInAs } from '../../helpers/signin.js';
import { createTestProject, type TestProject, type TestService } from '../../helpers/service.js';
import { startDashboard, type Dashboard } from '../../helpers/dashboard-browser.js';

let dashboard: Dashboard | undefined;
let svc: TestService;
let page: Page;
let origin: string;
const OWNER = { email: 'owner-grid@example.test', password: 'a long enough password', name: 'Gita Grid' };
const OTHER = { email: 'other-grid@example.test', password: 'another long password', name: 'Omar Other' };

test.before(async () => {
  dashboard = await startDashboard([
    { ...OWNER, role: 'owner' },
    { ...OTHER, role: 'reviewer' },
  ]);
  ({ svc, origin, page } = dashboard);
});
test.after.always(() => dashboard?.stop());

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

const cell = (p: TestProject, key: string, lang: string) => keyCell(svc, p, key, lang);

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
  // The next empty cell is in the same row: wait for its language, not its row, which the saving cell shares.
  await page.waitForFunction(() => document.activeElement?.closest('td.gc')?.getAttribute('data-lang') === 'ar');
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

const put = (p: TestProject, key: string, lang: string, value: string) => putCell(svc, p, key, lang, value);

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

// ---------------------------------------------------------------------------------------------------------------
// The editor's fields per plural category.

const PLURAL = { key: 'files.count', source: '{count, plural, one {# file} other {# files}}' };

test.serial('editor: a Polish plural entered one field per category passes the gates and is previewed', async (t) => {
  const p = await gridProject(0, [PLURAL]);
  await signIn(OWNER);
  await page.goto(`${origin}/projects/${p.projectId}/keys/files.count`);
  const pl = page.locator('#cell-pl');
  t.deepEqual(
    await pl.locator('fieldset.branches textarea').evaluateAll((els) => els.map((e) => e.getAttribute('name'))),
    ['branch-one', 'branch-few', 'branch-many', 'branch-other'],
  );
  // The source's branch beside each field: its own, or its other where English has no such category.
  t.regex(
    await pl.locator('.branch', { has: page.locator('#cell-pl-b-few') }).innerText(),
    /# files \(the source's other\)/,
  );
  t.regex(await pl.locator('.branch', { has: page.locator('#cell-pl-b-one') }).innerText(), /# file\b/);
  t.is(await page.locator('#cell-pl-b-few').getAttribute('lang'), 'pl');
  t.deepEqual(await seriousViolations(page), []);

  // Typed field by field with the keyboard, leaving "many" out: the raw ICU follows, and the gates refuse it.
  await page.locator('#cell-pl-b-one').focus();
  await page.keyboard.type('# plik');
  await page.keyboard.press('Tab');
  await page.keyboard.type('# pliki');
  await page.locator('#cell-pl-b-other').focus();
  await page.keyboard.type('# pliku');
  t.is(
    await page.getByLabel('Translation (pl)').inputValue(),
    '{count, plural, one {# plik} few {# pliki} other {# pliku}}',
  );
  await pl.getByRole('button', { name: 'Save' }).click();
  t.regex(await page.locator('#cell-pl [role=alert]').first().innerText(), /The gates refuse this value/);
  t.regex(await page.locator('#cell-pl .verdicts').innerText(), /many/);
  t.is((await cell(p, 'files.count', 'pl')).status, 'missing', 'nothing saved');

  // The page came back with the fields as typed; "many" added, the value passes and is saved.
  t.is(await page.locator('#cell-pl-b-few').inputValue(), '# pliki');
  await page.locator('#cell-pl-b-many').focus();
  await page.keyboard.type('# plików');
  await pl.getByRole('button', { name: 'Check' }).click();
  t.regex(await page.locator('#cell-pl .verdict').innerText(), /The gates accept this value/);
  await pl.getByRole('button', { name: 'Save' }).click();
  await page.locator('p.notice', { hasText: 'Saved (pl).' }).waitFor();
  const saved = '{count, plural, one {# plik} few {# pliki} many {# plików} other {# pliku}}';
  t.is((await cell(p, 'files.count', 'pl')).value, saved);
  // The preview renders each category with a number Polish puts in it.
  const preview = (await page.locator('#cell-pl .preview').innerText()).replace(/\s+/g, ' ');
  t.regex(preview, /count = 1 \(one\) 1 plik/);
  t.regex(preview, /\(few\) 2 pliki/);
  t.regex(preview, /\(many\) 0 plików|\(many\) 5 plików/);
  t.regex(preview, /\(other\) 1,5 pliku/);
  t.deepEqual(await seriousViolations(page), []);
});

test.serial('editor: an Arabic plural in six right-to-left fields passes the gates and is previewed', async (t) => {
  const p = await gridProject(0, [PLURAL]);
  await signIn(OWNER);
  await page.goto(`${origin}/projects/${p.projectId}/keys/files.count`);
  const ar = page.locator('#cell-ar');
  const fields = ar.locator('fieldset.branches textarea');
  t.deepEqual(await fields.evaluateAll((els) => els.map((e) => `${e.getAttribute('name')} ${e.getAttribute('dir')}`)), [
    'branch-zero rtl',
    'branch-one rtl',
    'branch-two rtl',
    'branch-few rtl',
    'branch-many rtl',
    'branch-other rtl',
  ]);
  t.is(await page.getByLabel('Translation (ar)').getAttribute('dir'), 'rtl');
  const forms = {
    zero: 'لا ملفات',
    one: 'ملف واحد',
    two: 'ملفان',
    few: '# ملفات',
    many: '# ملفًا',
    other: '# ملف',
  };
  for (const [k, v] of Object.entries(forms)) await page.locator(`#cell-ar-b-${k}`).fill(v);
  await ar.getByRole('button', { name: 'Save' }).click();
  await page.locator('p.notice', { hasText: 'Saved (ar).' }).waitFor();
  const value = (await cell(p, 'files.count', 'ar')).value;
  t.is(value, '{count, plural, zero {لا ملفات} one {ملف واحد} two {ملفان} few {# ملفات} many {# ملفًا} other {# ملف}}');
  const preview = await page.locator('#cell-ar .preview').innerText();
  for (const text of ['لا ملفات', 'ملف واحد', 'ملفان', 'ملفات', 'ملفًا']) t.true(preview.includes(text), text);
  t.is(await page.locator('#cell-ar .preview-lines dt').count(), 6);
  t.deepEqual(await seriousViolations(page), []);
});

test.serial('editor: raw ICU round-trips with the fields, with and without script', async (t) => {
  const p = await gridProject(0, [PLURAL]);
  await put(p, 'files.count', 'pl', '{count, plural, one {# plik} few {# pliki} many {# plików} other {# pliku}}');
  await signIn(OWNER);
  await page.goto(`${origin}/projects/${p.projectId}/keys/files.count`);
  // The saved value is in the fields and, as it is, in the raw field.
  t.is(await page.locator('#cell-pl-b-many').inputValue(), '# plików');
  const raw = page.getByLabel('Translation (pl)');
  // Raw ICU typed with an exact branch: the fields follow it, and a save keeps it exactly.
  const typed = '{count, plural, =0 {brak plików} one {jeden plik} few {# pliki} many {# plików} other {# pliku}}';
  await raw.fill(typed);
  t.is(await page.locator('#cell-pl-b-one').inputValue(), 'jeden plik');
  await page.locator('#cell-pl').getByRole('button', { name: 'Save' }).click();
  await page.locator('p.notice', { hasText: 'Saved (pl).' }).waitFor();
  t.is((await cell(p, 'files.count', 'pl')).value, typed);
  // The exact branch gets a field of its own on the page shown again.
  t.is(await page.locator('#cell-pl-b-\\=0').inputValue(), 'brak plików');
  t.is(await raw.inputValue(), typed);
  // A field changed: the raw ICU is rewritten from the fields (the rest kept as typed).
  await page.locator('#cell-pl-b-\\=0').fill('żadnych plików');
  t.is(await raw.inputValue(), typed.replace('brak plików', 'żadnych plików'));

  // Without script (the page's forms posted as a browser without it would): changed fields with the raw field
  // as shown are saved as the fields' message; a changed raw field is saved as typed.
  const { FormBrowser } = await import('../../helpers/form-browser.js');
  const me = await new FormBrowser(origin).signInWaiting(OWNER);
  const editor = `/projects/${p.projectId}/keys/files.count`;
  const current = await cell(p, 'files.count', 'pl');
  const form = {
    lang: 'pl',
    base: current.updatedAt ?? '',
    status: 'translated',
    do: 'save',
    shown: typed,
    value: typed,
    'branch-=0': 'zero plików',
    'branch-one': 'jeden plik',
    'branch-few': '# pliki',
    'branch-many': '# plików',
    'branch-other': '# pliku',
  };
  t.is((await me.post(editor, form)).status, 303);
  t.is(
    (await cell(p, 'files.count', 'pl')).value,
    '{count, plural, =0 {zero plików} one {jeden plik} few {# pliki} many {# plików} other {# pliku}}',
  );
  const next = await cell(p, 'files.count', 'pl');
  const rawTyped = '{count, plural, one {# plik!} few {# pliki!} many {# plików!} other {# pliku!}}';
  t.is(
    (await me.post(editor, { ...form, base: next.updatedAt ?? '', shown: next.value!, value: rawTyped })).status,
    303,
  );
  t.is((await cell(p, 'files.count', 'pl')).value, rawTyped);
});

// ---------------------------------------------------------------------------------------------------------------
// A scripted translator: 50 keys into German with the keyboard alone, in the grid and through the editor form.
// Keystrokes are counted as pressed (a chord such as Ctrl+Enter is one; every Tab that moves focus counts); the
// time is wall time on this machine, printed, never asserted (speed is measured in `npm run bench`).

function keyboard() {
  let count = 0;
  return {
    get count() {
      return count;
    },
    async press(key: string) {
      count++;
      await page.keyboard.press(key);
    },
    async type(text: string) {
      count += [...text].length;
      await page.keyboard.type(text);
    },
    /**
     * Tab until `selector` has focus, as a person without a mouse does. The presses the page's tab order needs are
     * worked out first (tabbable elements after the focused one, in document order) and pressed without a look at
     * each; then one at a time until the target has focus, should that count fall short.
     */
    async tabTo(selector: string) {
      const ahead = await page.evaluate((s) => {
        const tabbable = [
          ...document.querySelectorAll<HTMLElement>(
            'a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), select, textarea, [tabindex]',
          ),
        ].filter((e) => e.tabIndex >= 0 && e.getClientRects().length > 0);
        const target = tabbable.findIndex((e) => e.matches(s));
        const from = document.activeElement ? tabbable.indexOf(document.activeElement as HTMLElement) : -1;
        return target < 0 ? 0 : target - from;
      }, selector);
      for (let i = 0; i < ahead; i++) await this.press('Tab');
      for (let i = 0; i < 300; i++) {
        if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
        await this.press('Tab');
      }
      throw new Error(`Tab never reached ${selector}`);
    },
  };
}

const N = 50;
/** The editor form takes seconds a key; its per-key figures come from the first keys of the same task. */
const FORM_N = 10;
const german = (i: number) => `Eintrag ${i}`;

test.serial('a translator translates 50 keys with the keyboard alone: the grid and the editor form', async (t) => {
  t.timeout(10 * 60_000);
  // The grid: Tab to the first cell, Enter, then per key the text and Ctrl+Enter (saved, next empty cell open).
  const grid = await gridProject(N);
  await signIn(OWNER);
  await page.goto(gridUrl(grid, 'cols=de'));
  const kb = keyboard();
  const started = Date.now();
  await kb.tabTo('td.gc');
  await kb.press('Enter');
  for (let i = 0; i < N; i++) {
    await kb.type(german(i));
    await kb.press('Control+Enter');
    const next = `k${String(i + 1).padStart(3, '0')}`;
    if (i + 1 < N)
      await page.waitForFunction(
        (k) => document.activeElement?.closest('td.gc')?.getAttribute('data-name') === k,
        next,
      );
    else await page.locator('textarea.gedit').waitFor({ state: 'detached' });
  }
  const gridMs = Date.now() - started;
  const gridKeys = kb.count;
  const saved = await svc.admin.GET('/projects/{projectId}/keys', {
    params: { path: { projectId: grid.projectId }, query: { lang: 'de', limit: N } },
  });
  t.deepEqual(
    saved.data!.keys.map((k) => k.cells.find((c) => c.lang === 'de')!.value),
    Array.from({ length: N }, (_, i) => german(i)),
  );

  // The editor form, over the first FORM_N keys: on the key list, Tab to the key and open it, Tab to its German field, type, Tab to Save and
  // press Enter; then Tab to "All keys" and back to the list. (Alt+Left is the browser's, not the page's: headless
  // Chromium has no Back key.)
  const form = await gridProject(FORM_N);
  const list = `${origin}/projects/${form.projectId}/keys`;
  await page.goto(list);
  const kb2 = keyboard();
  const started2 = Date.now();
  for (let i = 0; i < FORM_N; i++) {
    const name = `k${String(i).padStart(3, '0')}`;
    await kb2.tabTo(`table.keys tbody th a[href$="/keys/${name}"]`);
    await kb2.press('Enter');
    await page.waitForURL((u) => u.pathname.endsWith(`/keys/${name}`));
    await kb2.tabTo('#cell-de-value');
    await kb2.type(german(i));
    await kb2.tabTo('#cell-de button[value=save]');
    await kb2.press('Enter');
    await page.locator('p.notice', { hasText: 'Saved (de).' }).waitFor();
    await kb2.tabTo(`main a[href$="/projects/${form.projectId}/keys"]`);
    await kb2.press('Enter');
    await page.waitForURL(list);
  }
  const formMs = Date.now() - started2;
  const formKeys = kb2.count;
  const saved2 = await svc.admin.GET('/projects/{projectId}/keys', {
    params: { path: { projectId: form.projectId }, query: { lang: 'de', limit: FORM_N } },
  });
  t.deepEqual(
    saved2.data!.keys.map((k) => k.cells.find((c) => c.lang === 'de')!.value),
    Array.from({ length: FORM_N }, (_, i) => german(i)),
  );
  const per = (n: number, keys: number) => (n / keys).toFixed(1);
  t.log(
    `grid: ${gridKeys} keystrokes for ${N} keys (${per(gridKeys, N)} per key), ${(gridMs / N).toFixed(0)} ms per key`,
  );
  t.log(
    `editor form: ${formKeys} keystrokes for ${FORM_N} keys (${per(formKeys, FORM_N)} per key), ${(formMs / FORM_N).toFixed(0)} ms per key`,
  );
  t.true(gridKeys / N < formKeys / FORM_N);
});

// ---------------------------------------------------------------------------------------------------------------
// What the grid reads and writes through the internal API, and what the public API does not show of it.
