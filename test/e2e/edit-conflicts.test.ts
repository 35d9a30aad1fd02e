// A stale page never overwrites a newer value. Through the internal API (SQLite, and MySQL with TEST_DB=mysql): a save
// that carries the cell's `updatedAt` it was based on is refused with 409 edit_conflict, the cell as it now is and
// who changed it, and nothing written, when the cell changed since; saves without a base behave as before; of
// concurrent saves based on one version exactly one is taken. In Chromium: an owner saves and approves while a
// reviewer's page was open; the reviewer's save shows both values and the choice, and each choice does what it says.
import test from 'ava';
import type { Page } from 'playwright-core';
import { translate } from '../../packages/client/src/index.js';
import { ACTOR_PLUGIN } from '../../server/http/pipeline.js';
import { seriousViolations } from '../helpers/axe.js';
import { launchChromium, type Chromium } from '../helpers/chromium.js';
import { signIn } from '../helpers/signin.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

type Status = 'translated' | 'reviewed' | 'approved';
const KEY = 'invoice.title';

/** A project with de and fr filled by the pseudo engine, and it (manual, no cell). */
async function project() {
  const p = await createTestProject(svc, {
    languages: [{ code: 'de' }, { code: 'fr' }, { code: 'it', fillMode: 'manual' }],
  });
  const r = await translate(p.client, p.projectId, { units: [{ key: KEY, source: 'Billing' }] });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  await svc.admin.POST('/jobs/run-due', { body: {} });
  const d = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key: KEY } },
  });
  if (d.data!.cells.some((c) => c.lang !== 'it' && c.value == null)) throw new Error('the fill did not finish');
  return p;
}

async function cell(p: TestProject, lang: string) {
  const r = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key: KEY } },
  });
  const d = r.data!;
  return { ...d.cells.find((c) => c.lang === lang)!, history: d.history.filter((h) => h.lang === lang) };
}

const put = (p: TestProject, lang: string, body: { value?: string; status?: Status; baseUpdatedAt?: string | null }) =>
  svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key: KEY, lang } },
    body,
  });

/** The same save as a signed-in dashboard user makes it (in-process, the person riding along). */
const putAs = (p: TestProject, lang: string, body: object, who: { userId: string; name: string; role: string }) =>
  svc.service.main.inject({
    method: 'PUT',
    url: `/internal/v1/projects/${p.projectId}/keys/${KEY}/translations/${lang}`,
    payload: body,
    headers: { 'content-type': 'application/json' },
    plugins: { [ACTOR_PLUGIN]: who },
  });

test.serial(
  'a save based on an older version of the cell is refused with the cell as it now is; nothing is written',
  async (t) => {
    const p = await project();
    const opened = await cell(p, 'fr');
    t.truthy(opened.updatedAt);
    // The owner saves and approves, based on what they opened.
    const owner = await put(p, 'fr', { value: 'Facturation', status: 'approved', baseUpdatedAt: opened.updatedAt });
    t.is(owner.response.status, 200);
    const approved = await cell(p, 'fr');
    t.not(approved.updatedAt, opened.updatedAt, 'every save is a new version');

    // A reviewer on a page opened earlier saves another value: refused.
    const stale = await put(p, 'fr', { value: 'Factures', status: 'translated', baseUpdatedAt: opened.updatedAt });
    t.is(stale.response.status, 409);
    t.like(stale.error, {
      error: 'edit_conflict',
      current: { value: 'Facturation', status: 'approved', origin: 'edit', updatedAt: approved.updatedAt, by: 'admin' },
    });
    const after = await cell(p, 'fr');
    t.like(after, { value: 'Facturation', status: 'approved', updatedAt: approved.updatedAt });
    t.is(after.history.length, approved.history.length, 'no history row for a refused save');

    // A status alone over a newer value is refused too: it would approve (or demote) what the person never saw.
    const statusOnly = await put(p, 'fr', { status: 'reviewed', baseUpdatedAt: opened.updatedAt });
    t.is(statusOnly.response.status, 409);
    // Saving again based on the current version is the person's choice to overwrite: taken.
    const current = (stale.error as { current: { updatedAt: string } }).current.updatedAt;
    const mine = await put(p, 'fr', { value: 'Factures', status: 'translated', baseUpdatedAt: current });
    t.is(mine.response.status, 200);
    t.like(await cell(p, 'fr'), { value: 'Factures', status: 'translated', origin: 'edit' });
    // A stale save of the value and status the cell holds now loses nothing: taken.
    const same = await put(p, 'fr', { value: 'Factures', status: 'translated', baseUpdatedAt: opened.updatedAt });
    t.is(same.response.status, 200);

    // Without a base, a save is taken as before.
    t.is((await put(p, 'fr', { value: 'Facturation', status: 'approved' })).response.status, 200);
    t.like(await cell(p, 'fr'), { value: 'Facturation', status: 'approved' });
  },
);

test.serial('the conflict names the person who changed the cell; a null base is a cell that had no row', async (t) => {
  const p = await project();
  const opened = await cell(p, 'de');
  const owner = await putAs(
    p,
    'de',
    { value: 'Abrechnung', status: 'approved', baseUpdatedAt: opened.updatedAt },
    { userId: 'usr_olga', name: 'Olga', role: 'owner' },
  );
  t.is(owner.statusCode, 200, owner.payload);
  const stale = await putAs(
    p,
    'de',
    { value: 'Rechnung', baseUpdatedAt: opened.updatedAt },
    { userId: 'usr_rita', name: 'Rita', role: 'reviewer' },
  );
  t.is(stale.statusCode, 409);
  t.like(JSON.parse(stale.payload), { current: { value: 'Abrechnung', by: 'usr_olga' } });

  // it is manual: no cell. A save based on "no row" is taken when there is still none...
  const missing = await cell(p, 'it');
  t.is(missing.updatedAt, null);
  t.is((await put(p, 'it', { value: 'Fatturazione', baseUpdatedAt: null })).response.status, 200);
  // ...and refused once someone else's value is there.
  const late = await put(p, 'it', { value: 'Fatture', baseUpdatedAt: null });
  t.is(late.response.status, 409);
  t.like(late.error, { current: { value: 'Fatturazione', status: 'translated' } });
  t.is((await cell(p, 'it')).value, 'Fatturazione');

  // A base that is no instant is a client error, never a 500.
  const bad = await put(p, 'it', { value: 'x', baseUpdatedAt: 'yesterday' });
  t.is(bad.response.status, 400);
  t.is((await cell(p, 'it')).value, 'Fatturazione');
});

test.serial('of concurrent saves based on one version, exactly one is taken', async (t) => {
  const p = await project();
  const opened = await cell(p, 'fr');
  const answers = await Promise.all(
    Array.from({ length: 12 }, (_, i) => put(p, 'fr', { value: `Facture ${i}`, baseUpdatedAt: opened.updatedAt })),
  );
  const statuses = answers.map((a) => a.response.status);
  t.is(statuses.filter((s) => s === 200).length, 1, JSON.stringify(statuses));
  t.is(statuses.filter((s) => s === 409).length, 11, JSON.stringify(statuses));
  const winner = answers.find((a) => a.response.status === 200)!.data!.value;
  const now = await cell(p, 'fr');
  t.is(now.value, winner);
  t.is(now.history.filter((h) => h.value?.startsWith('Facture ')).length, 1, 'one history row: one save');
});

// ------------------------------------------------------------------------------------------------- in Chromium

const OWNER = { email: 'owner-conflicts@example.test', password: 'a long enough password', name: 'Olga Owner' };
const REVIEWER = { email: 'reviewer-conflicts@example.test', password: 'another long password', name: 'Rita Reviewer' };
const browsers: Chromium[] = [];
test.after.always(async () => {
  for (const b of browsers) await b.close();
});

/** Two people, each in a browser of their own (their own cookies), signed in. */
async function twoPeople(origin: string): Promise<[Page, Page]> {
  svc.service.app.config.publicAppUrl = origin;
  const pages: Page[] = [];
  for (const [u, role] of [
    [OWNER, 'owner'],
    [REVIEWER, 'reviewer'],
  ] as const) {
    await svc.admin.POST('/users', { body: { name: u.name, email: u.email, password: u.password, role } });
    const b = await launchChromium();
    browsers.push(b);
    const page = b.context.pages()[0] ?? (await b.context.newPage());
    await signIn(page, origin, u);
    pages.push(page);
  }
  return [pages[0], pages[1]];
}

test.serial('Chromium: a reviewer saving over the owner’s newer value sees both and chooses', async (t) => {
  const origin = svc.internalUrl.replace('/internal/v1', '');
  const p = await project();
  const [owner, reviewer] = await twoPeople(origin);
  const editor = `${origin}/projects/${p.projectId}/keys/${KEY}`;
  // The reviewer opened the key first; then the owner saves and approves `Facturation`.
  await reviewer.goto(editor);
  await owner.goto(editor);
  await owner.getByLabel('Translation (fr)').fill('Facturation');
  await owner.locator('#cell-fr').getByLabel('Status').selectOption('approved');
  await owner.locator('#cell-fr').getByRole('button', { name: 'Save' }).click();
  await owner.locator('p.notice', { hasText: 'Saved (fr).' }).waitFor();

  // The reviewer's page is stale: their save is refused and shows both values.
  await reviewer.getByLabel('Translation (fr)').fill('Factures');
  await reviewer.locator('#cell-fr').getByRole('button', { name: 'Check' }).click();
  t.regex(await reviewer.locator('#cell-fr .verdict').innerText(), /accept/);
  await reviewer.locator('#cell-fr').getByRole('button', { name: 'Save' }).click();
  const panel = reviewer.locator('#cell-fr .conflict');
  await panel.waitFor();
  t.regex(await panel.innerText(), /changed since you opened it \(Olga Owner/);
  t.is(await panel.locator('dd.theirs').innerText(), 'Facturation');
  t.is(await panel.locator('dd.yours').innerText(), 'Factures');
  t.regex(await panel.locator('dt').first().innerText(), /approved/);
  t.like(await cell(p, 'fr'), { value: 'Facturation', status: 'approved' });
  t.deepEqual(await seriousViolations(reviewer), []);

  // Saving from the editor again (not the choice) is still refused: the page's base stayed the one first opened.
  await reviewer.locator('#cell-fr form.editor').getByRole('button', { name: 'Save' }).click();
  await panel.waitFor();
  t.like(await cell(p, 'fr'), { value: 'Facturation', status: 'approved' });

  // Keep theirs: the editor again, with their value.
  await panel.getByRole('button', { name: 'Keep theirs' }).click();
  await reviewer.locator('p.notice', { hasText: 'Kept the current value' }).waitFor();
  t.regex(await reviewer.locator('p.notice').innerText(), /Kept the current value/);
  t.is(await reviewer.getByLabel('Translation (fr)').inputValue(), 'Facturation');
  t.like(await cell(p, 'fr'), { value: 'Facturation', status: 'approved' });

  // The owner changes it again while the reviewer types; this time the reviewer overwrites with theirs.
  await owner.goto(editor);
  await owner.getByLabel('Translation (fr)').fill('Facturation client');
  await owner.locator('#cell-fr').getByRole('button', { name: 'Save' }).click();
  await owner.locator('p.notice', { hasText: 'Saved (fr).' }).waitFor();
  await reviewer.getByLabel('Translation (fr)').fill('Factures');
  await reviewer.locator('#cell-fr').getByLabel('Status').selectOption('translated');
  await reviewer.locator('#cell-fr form.editor').getByRole('button', { name: 'Save' }).click();
  await panel.waitFor();
  t.is(await panel.locator('dd.theirs').innerText(), 'Facturation client');
  await panel.getByRole('button', { name: 'Overwrite with mine' }).click();
  await reviewer.locator('p.notice', { hasText: 'Saved (fr).' }).waitFor();
  t.like(await cell(p, 'fr'), { value: 'Factures', status: 'translated' });
  t.like((await cell(p, 'fr')).history[0], { value: 'Factures', byName: REVIEWER.name });
});
