// The dashboard scenarios' common start: an owner made through the admin API, signed in through the form in Chromium.
import type { Page } from 'playwright-core';
import type { Chromium } from '../../test/helpers/chromium.js';
import type { ServiceInfo } from './servers.js';

const PASSWORD = 'a bench password of some length';

/** Makes an owner `email` and signs it in on the browser's page; returns the page and the dashboard's origin. */
export async function signedInOwner(
  info: ServiceInfo,
  browser: Chromium,
  email: string,
): Promise<{ page: Page; origin: string }> {
  const origin = info.base.replace('/v1', '');
  const made = await fetch(`${info.adminUrl}/users`, {
    method: 'POST',
    headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench', email, password: PASSWORD, role: 'owner' }),
  });
  if (made.status !== 201) throw new Error(`user: ${made.status} ${await made.text()}`);
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await page.goto(`${origin}/signin`);
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', PASSWORD);
  await Promise.all([page.waitForURL(`${origin}/`), page.click('button[type=submit]')]);
  return { page, origin };
}
