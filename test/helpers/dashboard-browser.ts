// A service whose dashboard a headless Chromium signs in to, as the browser tests of test/e2e/consumers/dashboard-*
// set it up: the public app URL set to the service's own origin (so links and redirects stay on it), the people the
// test signs in as created through the internal API, and one page of a fresh profile.
import type { Page } from 'playwright-core';
import type { operations } from '../../generated/internal.js';
import { launchChromium, type Chromium } from './chromium.js';
import { startTestService, type TestService } from './service.js';

type NewUser = operations['internalCreateUser']['requestBody']['content']['application/json'];

export interface Dashboard {
  svc: TestService;
  /** The dashboard's origin (the internal API's, without `/internal/v1`). */
  origin: string;
  browser: Chromium;
  page: Page;
  /** Closes the browser and stops the service. */
  stop(): Promise<void>;
}

export async function startDashboard(
  users: NewUser[],
  env: Parameters<typeof startTestService>[0] = {},
): Promise<Dashboard> {
  const svc = await startTestService(env);
  let browser: Chromium | undefined;
  try {
    const origin = svc.internalUrl.replace('/internal/v1', '');
    svc.service.app.config.publicAppUrl = origin;
    for (const body of users) {
      const made = await svc.admin.POST('/users', { body });
      if (!made.data) throw new Error(`creating ${body.email}: ${JSON.stringify(made.error)}`);
    }
    browser = await launchChromium();
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    const opened = browser;
    return {
      svc,
      origin,
      browser,
      page,
      async stop() {
        await opened.close();
        await svc.stop();
      },
    };
  } catch (err) {
    await browser?.close();
    await svc.stop();
    throw err;
  }
}
