// Issue 17: the dashboard's key list with a filter, for a project of 10,000 keys in 20 languages, shows its first
// page in at most 1.5x the time of the internal API call alone. Both are measured in Chromium (Debian's, through
// playwright-core) against the real service: the page is a navigation to /projects/{id}/keys?lang=de&status=translated
// until the document is parsed with its 50 rows (Navigation Timing's domInteractive: the server renders the page from
// the same internal call, then the browser reads it); the baseline is a fetch() of GET /internal/v1/projects/{id}/keys with the same filter from the same
// page, read to the end as JSON. Rounds alternate; medians are compared.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../bench.js';
import { launchChromium } from '../../test/helpers/chromium.js';
import { spawnServer, type ServiceInfo } from './_http.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const KEYS = 10_000;
const ROUNDS = 15;
const LANGS = 'de,fr,es,it,pt,nl,pl,sv,ja,ko,da,fi,nb,cs,hu,ro,tr,uk,el'.split(',');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const EMAIL = 'bench-owner@example.test';
const PASSWORD = 'a bench password of some length';

export const scenario: Scenario = {
  name: `dashboard key list, first page with a filter (${KEYS.toLocaleString('en')} keys x ${LANGS.length + 1} languages) in Chromium, vs the internal API call alone (ms)`,
  async run() {
    const svc = await spawnServer<ServiceInfo>(path.join(here, '_service-server.ts'), {
      BENCH_LANGS: LANGS.join(','),
      BENCH_SEED_KEYS: String(KEYS),
    });
    const browser = await launchChromium();
    try {
      const { projectId } = svc.info.projects[0];
      const origin = svc.info.base.replace('/v1', '');
      const made = await fetch(`${svc.info.adminUrl}/users`, {
        method: 'POST',
        headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Bench', email: EMAIL, password: PASSWORD, role: 'owner' }),
      });
      if (made.status !== 201) throw new Error(`user: ${made.status} ${await made.text()}`);
      const page = browser.context.pages()[0] ?? (await browser.context.newPage());
      await page.goto(`${origin}/signin`);
      await page.fill('input[name=email]', EMAIL);
      await page.fill('input[name=password]', PASSWORD);
      await Promise.all([page.waitForURL(`${origin}/`), page.click('button[type=submit]')]);
      const filter = 'lang=de&status=translated';
      const pageUrl = `${origin}/projects/${projectId}/keys?${filter}`;
      const apiUrl = `${svc.info.adminUrl}/projects/${projectId}/keys?${filter}&limit=50`;
      const pageMs: number[] = [];
      const apiMs: number[] = [];
      const timePage = async () => {
        await page.goto(pageUrl, { waitUntil: 'load' });
        const rows = await page.locator('main table tbody tr').count();
        if (rows < 50) throw new Error(`the key list showed ${rows} rows`);
        // The browser's own clock (Navigation Timing), not the driver's round trips: from the navigation's start to
        // the document parsed with every row in it, its stylesheet applied (a stylesheet blocks domInteractive's
        // scripts, and the immutable one comes from the cache).
        return page.evaluate(() => {
          const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
          return nav.domInteractive - nav.startTime;
        });
      };
      const timeApi = () =>
        page.evaluate(async (url) => {
          const t0 = performance.now();
          const r = await fetch(url, { headers: { authorization: 'Bearer bench' } });
          const body = (await r.json()) as { keys: unknown[] };
          if (r.status !== 200 || body.keys.length !== 50) throw new Error(`internal API: ${r.status}`);
          return performance.now() - t0;
        }, apiUrl);
      // Warm both paths (the page's stylesheet and script are then cached, as for a person moving between pages).
      await timePage();
      await timeApi();
      for (let i = 0; i < ROUNDS; i++) {
        pageMs.push(await timePage());
        apiMs.push(await timeApi());
      }
      const ours = median(pageMs);
      const base = median(apiMs);
      return {
        figure: `page ${ours.toFixed(1)} ms (median of ${ROUNDS})`,
        baseline: `internal API call ${base.toFixed(1)} ms`,
        ratio: ours / base,
        target: '<= 1.5',
      };
    } finally {
      await browser.close();
      svc.child.kill('SIGINT');
    }
  },
};
