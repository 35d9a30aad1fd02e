// Accessibility checks of dashboard pages with axe-core, run inside the page Chromium shows (the bar: no serious or
// critical violations). axe's source is added to the page as a script by Playwright, so the pages' own CSP does not
// have to allow it.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

// The minified build (654 KB, against 1.48 MB for `axe.source`): the whole script crosses the DevTools protocol and is
// compiled again in every document checked. With it, a file of 19 checks (dashboard-keys) took about 3.5 CPU-s less
// across Node and Chromium, counted by process accounting (docs/testing.md).
const axeSource = readFileSync(new URL(import.meta.resolve('axe-core/axe.min.js')), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** The serious and critical violations on the page as it is now (WCAG 2.1 A and AA rules). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Once per document: a page that was checked before and not navigated since has axe already.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<unknown> } }).axe;
    // resultTypes: only the violations are read, so axe lists one node at most of each passed or inapplicable rule
    // instead of computing a unique selector for every node it checked (axe-core's documented option for speed).
    return axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      resultTypes: ['violations'],
    });
  });
  const violations = (
    result as {
      violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }>;
    }
  ).violations;
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
}
