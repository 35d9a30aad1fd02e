// `npm run screenshots`: the README's pictures of the dashboard (docs/screenshots/*.png), taken from a real service
// on a temporary SQLite database with a small demo project, in Debian's Chromium. Run it after changing a page.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { translate } from '../packages/client/src/index.js';
import { asPerson } from '../test/helpers/actor.js';
import { launchChromium } from '../test/helpers/chromium.js';
import { createTestProject, startTestService } from '../test/helpers/service.js';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'screenshots');
mkdirSync(out, { recursive: true });
const svc = await startTestService();
const origin = svc.internalUrl.replace('/internal/v1', '');
svc.service.app.config.publicAppUrl = origin;
const runDue = () => svc.admin.POST('/jobs/run-due', { body: {} });
const browser = await launchChromium();
try {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }, { code: 'ja' }] });
  await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: p.projectId } },
    body: { contentEnabled: true },
  });
  const r = await translate(p.client, p.projectId, {
    units: [
      { key: 'cart.items', forms: { one: '{count} item in your cart', other: '{count} items in your cart' } },
      { key: 'checkout.pay', source: 'Pay {amount} now' },
      { key: 'profile.greeting', source: 'Welcome back, {name}!' },
      { key: 'settings.save', source: 'Save changes', ctx: 'toolbar button' },
      { key: 'orders.empty', source: 'You have no orders yet.' },
    ],
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  await runDue();
  await p.client.POST('/projects/{projectId}/publish', { params: { path: { projectId: p.projectId } }, body: {} });
  await translate(p.client, p.projectId, { units: [{ key: 'orders.track', source: 'Track your order' }] });
  await runDue();
  await p.client.PUT('/projects/{projectId}/content/{docId}', {
    params: { path: { projectId: p.projectId, docId: 'returns' } },
    body: {
      title: 'Returns policy',
      text: '# Returns\n\nYou can return any item within **30 days**.\n\nSee [our shipping page](https://example.com/shipping).',
    },
  });
  await p.client.POST('/projects/{projectId}/content/{docId}/run', {
    params: { path: { projectId: p.projectId, docId: 'returns' } },
    body: { langs: ['de', 'fr'] },
  });
  await runDue();
  const owner = await svc.admin.POST('/users', {
    body: { name: 'Olga Owner', email: 'owner@example.test', password: 'a demo password here', role: 'owner' },
  });
  const reviewer = await svc.admin.POST('/users', {
    body: { name: 'Rita Reviewer', email: 'rita@example.test', password: 'another demo password', role: 'reviewer' },
  });
  const comment = (userId: string, name: string, role: 'owner' | 'reviewer', body: unknown) =>
    asPerson(svc, { userId, name, role }, 'POST', `/projects/${p.projectId}/keys/profile.greeting/comments`, body);
  const question = await comment(reviewer.data!.userId, 'Rita Reviewer', 'reviewer', {
    body: 'Formal or informal address in German here, @owner@example.test?',
  });
  await comment(owner.data!.userId, 'Olga Owner', 'owner', {
    body: 'Informal (du), as in the rest of the app.',
    parentId: question.body.id,
  });
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await page.setViewportSize({ width: 1200, height: 820 });
  await page.goto(`${origin}/signin`);
  await page.fill('input[name=email]', 'owner@example.test');
  await page.fill('input[name=password]', 'a demo password here');
  await Promise.all([page.waitForURL(`${origin}/`), page.click('button[type=submit]')]);
  const project = `${origin}/projects/${p.projectId}`;
  const shots: Array<[string, string]> = [
    ['projects', `${origin}/`],
    ['overview', project],
    ['keys', `${project}/keys?lang=de`],
    ['editor', `${project}/keys/cart.items`],
    ['publish', `${project}/publish`],
    ['content', `${project}/content/returns?lang=fr`],
  ];
  for (const [name, url] of shots) {
    await page.goto(url, { waitUntil: 'load' });
    await page.screenshot({ path: path.join(out, `${name}.png`), fullPage: false });
    console.log(`${name}: ${url}`);
  }
  // The grid and the editor's comments sit below the filters and the cells: the element alone.
  await page.goto(`${project}/keys?cols=de,ja`, { waitUntil: 'load' });
  await page.locator('table.grid').screenshot({ path: path.join(out, 'grid.png') });
  console.log('grid: the key list with de and ja columns');
  await page.goto(`${project}/keys/profile.greeting`, { waitUntil: 'load' });
  await page.locator('section.comments').screenshot({ path: path.join(out, 'comments.png') });
  console.log('comments: the editor of profile.greeting');
} finally {
  await browser.close();
  await svc.stop();
}
