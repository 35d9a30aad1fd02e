// Signing a person in to the dashboard in Chromium, through the sign-in form as a person does: the dashboard tests'
// one way in.
import type { Page } from 'playwright-core';

/**
 * Clears the context's cookies (whoever was signed in), signs `who` in at `origin`, and waits for the page the
 * sign-in returns to: `next` (the dashboard's `?next=`), by default the project list.
 */
export async function signIn(page: Page, origin: string, who: { email: string; password: string }, next = '/') {
  await page.context().clearCookies();
  await page.goto(next === '/' ? `${origin}/signin` : `${origin}/signin?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${origin}${next}`);
}
