// A sync's whole-catalog rule disables every key its file lacks, keys pushed through /translate included; it must say
// so. The sync answer and its dry run name the keys (`disabledKeys`, capped); the internal overview lists the keys a
// sync disabled with when and by which file, until someone switches them again; the CLI's push names them and says
// how to bring them back; the dashboard's overview shows them (Chromium). SQLite, and MySQL with TEST_DB=mysql.
import { rmSync } from 'node:fs';
import test from 'ava';
import { previewSync, sync, translate } from '../../packages/client/src/index.js';
import { seriousViolations } from '../helpers/axe.js';
import { launchChromium, type Chromium } from '../helpers/chromium.js';
import { glossa, glossaConfig, repo } from '../helpers/cli.js';
import { signIn } from '../helpers/signin.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';

let svc: TestService;
const dirs: string[] = [];
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const file = (entries: Record<string, string>) => ({
  contentBase64: Buffer.from(JSON.stringify(entries)).toString('base64'),
  format: 'json' as const,
  fileName: 'en.json',
});

const overview = async (p: TestProject) =>
  (await svc.admin.GET('/projects/{projectId}/overview', { params: { path: { projectId: p.projectId } } })).data!;

/** A project with keys pushed through /translate (`pushed.0` … `pushed.{n-1}`) and none in any catalog. */
async function pushedProject(n: number) {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const units = Array.from({ length: n }, (_, i) => ({
    key: `pushed.${String(i).padStart(2, '0')}`,
    source: `Text ${i}`,
  }));
  const r = await translate(p.client, p.projectId, { units });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return p;
}

test.serial(
  'the sync answer and its dry run name the keys it disables; the overview keeps when and by which file',
  async (t) => {
    const p = await pushedProject(3);
    const dry = await previewSync(p.client, p.projectId, file({ 'settings.title': 'Settings' }));
    t.like(dry.data, { disabledOrphans: 3, disabledKeys: ['pushed.00', 'pushed.01', 'pushed.02'] });
    t.is((await overview(p)).syncDisabled.total, 0, 'a dry run disables nothing');

    const before = Date.now();
    const r = await sync(p.client, p.projectId, file({ 'settings.title': 'Settings' }));
    t.like(r.data, { disabledOrphans: 3, disabledKeys: ['pushed.00', 'pushed.01', 'pushed.02'] });
    const o = await overview(p);
    t.is(o.keyCount, 1);
    t.is(o.syncDisabled.total, 3);
    t.deepEqual(
      o.syncDisabled.keys.map((k) => [k.key, k.bySync]),
      [
        ['pushed.00', 'en.json'],
        ['pushed.01', 'en.json'],
        ['pushed.02', 'en.json'],
      ],
    );
    for (const k of o.syncDisabled.keys) t.true(Date.parse(k.disabledAt) >= before - 1000);

    // Ways back: an owner enables one; the file carries another again. Each leaves the list.
    const enabled = await svc.admin.PATCH('/projects/{projectId}/keys/{key}', {
      params: { path: { projectId: p.projectId, key: 'pushed.00' } },
      body: { enabled: true },
    });
    t.is(enabled.response.status, 200, JSON.stringify(enabled.error));
    const again = await sync(p.client, p.projectId, file({ 'settings.title': 'Settings', 'pushed.01': 'Text 1' }));
    // pushed.00, enabled by a person but not in the file, is disabled again by this sync: the rule holds, and says so.
    t.like(again.data, { reenabled: 1, disabledOrphans: 1, disabledKeys: ['pushed.00'] });
    const after = await overview(p);
    t.deepEqual(
      after.syncDisabled.keys.map((k) => k.key),
      ['pushed.00', 'pushed.02'],
      'newest first, then by name',
    );
    t.is(after.syncDisabled.total, 2);
    // A person's bulk enable settles them all.
    const bulk = await svc.admin.POST('/projects/{projectId}/keys/bulk', {
      params: { path: { projectId: p.projectId } },
      body: { filter: { disabled: true }, action: 'enable' },
    });
    t.is(bulk.data!.affected, 2);
    t.is((await overview(p)).syncDisabled.total, 0);
  },
);

test.serial('the answer names at most 50 keys; the overview lists the 20 newest and counts all', async (t) => {
  const p = await pushedProject(60);
  const r = await sync(p.client, p.projectId, file({ 'settings.title': 'Settings' }));
  t.is(r.data!.disabledOrphans, 60);
  t.is(r.data!.disabledKeys!.length, 50);
  t.is(r.data!.disabledKeys![0], 'pushed.00');
  const o = await overview(p);
  t.is(o.syncDisabled.total, 60);
  t.is(o.syncDisabled.keys.length, 20);
});

test.serial('glossa push names the keys its sync disabled and how to bring them back', async (t) => {
  const p = await pushedProject(2);
  const cwd = repo({
    'glossa.config.json': glossaConfig(svc.baseUrl, p.projectId),
    'en.json': { settings: 'Settings' },
  });
  dirs.push(cwd);
  const env = { GLOSSA_API_KEY: p.apiKey };
  const dry = await glossa(['push', '--dry-run'], { cwd, env });
  t.is(dry.code, 0, dry.stderr);
  t.regex(dry.stdout, /would disable \(not in en\.json\): pushed\.00, pushed\.01/);
  const pushed = await glossa(['push'], { cwd, env });
  t.is(pushed.code, 0, pushed.stderr);
  t.regex(pushed.stdout, /2 orphans disabled/);
  t.regex(pushed.stdout, /disabled \(not in en\.json\): pushed\.00, pushed\.01/);
  t.regex(pushed.stdout, /comes back when en\.json carries it again .* or when an owner enables it/);
});

let browser: Chromium | undefined;
test.after.always(async () => {
  await browser?.close();
});

test.serial('Chromium: the overview shows the keys a sync disabled, when, and how to bring them back', async (t) => {
  const p = await pushedProject(2);
  await sync(p.client, p.projectId, file({ 'settings.title': 'Settings' }));
  const origin = svc.internalUrl.replace('/internal/v1', '');
  svc.service.app.config.publicAppUrl = origin;
  const owner = { email: 'owner-sync@example.test', password: 'a long enough password', name: 'Olga' };
  await svc.admin.POST('/users', { body: { ...owner, role: 'owner' } });
  browser = await launchChromium();
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await signIn(page, origin, owner);
  await page.goto(`${origin}/projects/${p.projectId}`);
  t.regex(await page.locator('main dl').first().innerText(), /1 enabled; 2 disabled by a sync/);
  const section = page.locator('#sync-disabled');
  const text = (await section.innerText()).replace(/\s+/g, ' ');
  t.regex(text, /2 keys are disabled because a synced catalog file no longer carried them/);
  t.regex(text, /add it to the catalog file and sync again, or, as an owner, enable it/);
  const rows = section.locator('tbody tr');
  t.is(await rows.count(), 2);
  t.regex(await rows.first().innerText(), /pushed\.00\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\s+en\.json/);
  t.deepEqual(await seriousViolations(page), []);
  // The link leads to the disabled keys, where the bulk action enables them.
  await section.getByRole('link', { name: 'the disabled keys' }).click();
  await page.waitForURL(/disabled=yes/);
  t.regex(await page.locator('#key-count').innerText(), /2 keys match/);
});
