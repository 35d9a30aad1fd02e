// The people and settings pages in a real browser (Debian's Chromium), by keyboard alone after signing in: an owner
// creates a project with its first key (the secret shown once), adds a right-to-left language, deactivates a
// reviewer, and changes their own password and stays signed in; axe finds no serious violation on any of these
// pages and hostile names never run. The rules behind each page are in test/service/dashboard-people.test.ts and
// dashboard-settings.test.ts.
import test from 'ava';
import type { Page } from 'playwright-core';
import { seriousViolations } from '../../helpers/axe.js';
import { signIn } from '../../helpers/signin.js';
import { launchChromium, type Chromium } from '../../helpers/chromium.js';
import { createTestProject, startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
let browser: Chromium | undefined;
let origin: string;

const PASSWORD = 'a long enough password';
const NEW_PASSWORD = 'another long enough password';
const HOSTILE = '<img src=x onerror="window.pwned=1">';

test.before(async () => {
  svc = await startTestService();
  origin = svc.internalUrl.replace('/internal/v1', '');
});
test.after.always(async () => {
  await browser?.close();
  await svc?.stop();
});

const pwned = (pg: Page) => pg.evaluate(() => (window as unknown as { pwned?: number }).pwned);
const mainText = async (pg: Page) => (await pg.locator('main').innerText()).replace(/\s+/g, ' ');

/** Presses Tab until the focused element is `name`'s control (at most 60 times), as a keyboard user moves. */
async function tabTo(pg: Page, selector: string) {
  for (let i = 0; i < 60; i++) {
    await pg.keyboard.press('Tab');
    if (await pg.locator(selector).evaluate((el) => el === document.activeElement)) return;
  }
  throw new Error(`${selector} is not reachable by Tab`);
}

test('by keyboard: a new project with its first key, a language, a deactivated reviewer, one’s own password', async (t) => {
  const { workspaceId } = await createTestProject(svc);
  const users = [
    { name: `Olga ${HOSTILE}`, email: 'olga@example.test', role: 'owner' as const },
    { name: `Rita ${HOSTILE}`, email: 'rita@example.test', role: 'reviewer' as const },
  ];
  const made: Array<{ userId: string }> = [];
  for (const u of users) made.push((await svc.admin.POST('/users', { body: { ...u, password: PASSWORD } })).data!);
  browser = await launchChromium();
  const pg = await browser.context.newPage();
  await signIn(pg, origin, { email: 'olga@example.test', password: PASSWORD });

  // A new project: from the list's link, every field by Tab, Enter submits.
  await tabTo(pg, 'a[href="/projects/new"]');
  await Promise.all([pg.waitForURL(`${origin}/projects/new`), pg.keyboard.press('Enter')]);
  t.deepEqual(await seriousViolations(pg), []);
  await tabTo(pg, '#project-name');
  await pg.keyboard.type(`Shop ${HOSTILE}`);
  t.is(await pg.locator('#project-workspace').inputValue(), workspaceId);
  await tabTo(pg, '#project-languages');
  await pg.keyboard.type('de, fr');
  await Promise.all([pg.waitForURL(/\/api-keys$/), pg.keyboard.press('Enter')]);
  t.regex(await mainText(pg), /The first key of the project/);
  t.regex((await pg.locator('#new-secret').innerText()).trim(), /^\S{20,}$/);
  t.deepEqual(await seriousViolations(pg), []);
  t.regex(await mainText(pg), /What each scope opens/);

  // Settings: add Arabic, shown with its lang.
  const projectId = decodeURIComponent(new URL(pg.url()).pathname.split('/')[2]);
  await pg.goto(`${origin}/projects/${encodeURIComponent(projectId)}/settings`);
  await tabTo(pg, '#lang-code');
  await pg.keyboard.type('ar');
  await Promise.all([pg.waitForLoadState('load'), pg.keyboard.press('Enter')]);
  await pg.waitForSelector('code[lang="ar"]');
  t.regex(await mainText(pg), /Added ar/);
  t.deepEqual(await seriousViolations(pg), []);

  // Users: manage the reviewer, deactivate by keyboard.
  await pg.goto(`${origin}/users`);
  t.deepEqual(await seriousViolations(pg), []);
  await tabTo(pg, `a[href="/users/${made[1].userId}"]`);
  await Promise.all([pg.waitForURL(`${origin}/users/${made[1].userId}`), pg.keyboard.press('Enter')]);
  t.deepEqual(await seriousViolations(pg), []);
  await tabTo(pg, 'button:text("Deactivate")');
  await Promise.all([pg.waitForLoadState('load'), pg.keyboard.press('Enter')]);
  await pg.getByText(/is deactivated: their sessions ended/).waitFor();
  t.truthy((await svc.admin.GET('/users')).data!.users.find((u) => u.userId === made[1].userId)!.deactivatedAt);

  // One's own password, and this browser stays signed in.
  await pg.goto(`${origin}/account`);
  t.deepEqual(await seriousViolations(pg), []);
  await tabTo(pg, '#current-password');
  await pg.keyboard.type(PASSWORD);
  await pg.keyboard.press('Tab');
  await pg.keyboard.type(NEW_PASSWORD);
  await Promise.all([pg.waitForLoadState('load'), pg.keyboard.press('Enter')]);
  await pg.getByText(/Your password is changed/).waitFor();
  t.is(new URL(pg.url()).pathname, '/account');
  t.is(await pwned(pg), undefined);
});
