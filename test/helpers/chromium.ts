// Debian's Chromium (/usr/bin/chromium, installed by .ci/run) driven by playwright-core: Playwright's own browser
// download cannot run on this closed network. The flags keep Chromium from reaching for Google's hosts at start.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export interface Chromium {
  context: BrowserContext;
  /** Closes the browser and deletes its fresh profile. */
  close(): Promise<void>;
}

/** A headless Chromium with a new, empty profile. */
export async function launchChromium(): Promise<Chromium> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'glossa-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
