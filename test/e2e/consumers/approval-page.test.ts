// The approval page in a real browser: Debian's Chromium, driven by playwright-core, signs in (a wrong
// password refused) and is sent back to the operation's approval_url, sees the plan (languages, counts, the
// manifest hash, the previewed source strings shown literally however hostile), approves with a lowered budget
// and the agent's batch then goes through; a denied operation's batch is 409 operation_not_approved; an expired
// operation (run-due with a simulated now) offers nothing to click; an operation the agent cancelled while the page
// was open cannot be approved from it, reads cancelled and leaves the queue; publish and rollback plans; a form post
// without the CSRF token, with a foreign Origin, or from another site changes nothing. No component is mocked:
// the service, the SDK and the browser are the real ones.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import type { BrowserContext, Page } from 'playwright-core';
import { batchManifest, previewTranslate, translate, type ApiClient } from '../../../packages/client/src/index.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../../helpers/service.js';
import { launchChromium, type Chromium } from '../../helpers/chromium.js';
import { pollJob } from '../../helpers/typed.js';

let svc: TestService;
let p: TestProject;
let agent: ApiClient;
let context: BrowserContext;
let browserPage: Page;
let browser: Chromium | undefined;
let origin: string;
let userId: string;

const EMAIL = 'reviewer@example.test';
const PASSWORD = 'a long enough password';
const HOSTILE = [
  '<script>window.pwned = 1</script>',
  `"quotes" & 'apostrophes'`,
  '</textarea><b>bold?</b>',
  '<img src=x onerror="window.pwned = 2">',
];

test.before(async () => {
  svc = await startTestService();
  origin = svc.internalUrl.replace('/internal/v1', '');
  // The service listens on a free port: its public address (approval_url's {app_url}) is that one.
  svc.service.app.config.publicAppUrl = origin;
  p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }, { code: 'ja' }] });
  agent = svc.client(await createTestKey(svc, p.projectId, ['translate', 'publish', 'read'], true));
  const user = await svc.admin.POST('/users', {
    body: { name: 'Olga <Owner>', email: EMAIL, password: PASSWORD, role: 'owner' },
  });
  userId = user.data!.userId;
  browser = await launchChromium();
  context = browser.context;
  browserPage = context.pages()[0] ?? (await context.newPage());
});
test.after.always(async () => {
  await browser?.close();
  await svc?.stop();
});

interface Run {
  operationId: string;
  approvalUrl: string;
  batches: Array<{ units: Array<{ source: string }>; sha: string }>;
}

/** The agent previews each batch and asks for a translate operation of them. */
async function askToTranslate(batchSources: string[][], maxCredits = 10): Promise<Run> {
  const batches = [];
  for (const sources of batchSources) {
    const units = sources.map((source) => ({ source }));
    const preview = await previewTranslate(agent, p.projectId, { units });
    batches.push({ units, sha: preview.data!.batchSha256! });
  }
  const manifest = await batchManifest(batches.map((b) => ({ sha256: b.sha, unit_count: b.units.length })));
  const created = await agent.POST('/operations', {
    body: {
      action: 'translate',
      max_credits: maxCredits,
      scope: {
        project_id: p.projectId,
        unit_count: batches.reduce((n, b) => n + b.units.length, 0),
        ...manifest,
      },
    },
  });
  if (!created.data) throw new Error(JSON.stringify(created.error));
  return { operationId: created.data.operation_id, approvalUrl: created.data.approval_url, batches };
}

const sendBatch = (run: Run, index: number, requestId: string) =>
  translate(agent, p.projectId, {
    units: run.batches[index].units,
    operationId: run.operationId,
    requestId,
    attemptId: 'a1',
    batchIndex: index,
    batchSha256: run.batches[index].sha,
  });

const internalOp = async (operationId: string) =>
  (await svc.admin.GET('/operations/{operationId}', { params: { path: { operationId } } })).data!;

const buttons = (page: Page) =>
  Promise.all([
    page.getByRole('button', { name: 'Approve' }).count(),
    page.getByRole('button', { name: 'Deny' }).count(),
  ]);

// The tests share one browser and one signed-in session, in order.
test.serial(
  'sign in from the approval link, see the plan, approve a lowered budget; the batch goes through',
  async (t) => {
    const run = await askToTranslate([['Open the door', ...HOSTILE], ['Save your work']]);
    t.is(run.approvalUrl, `${origin}/approve/${run.operationId}`);
    const page = browserPage;

    // Not signed in: the sign-in page, which knows where to return.
    await page.goto(run.approvalUrl);
    t.is(new URL(page.url()).pathname, '/signin');
    t.is(new URL(page.url()).searchParams.get('next'), `/approve/${run.operationId}`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    t.is(await page.getByRole('alert').textContent(), 'Wrong email or password.');
    t.is(new URL(page.url()).pathname, '/signin');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(run.approvalUrl);
    t.is(page.url(), run.approvalUrl, 'back where the link pointed');

    // The session cookie: HttpOnly (no script reads it), SameSite, not Secure over http.
    const cookies = await context.cookies(origin);
    const session = cookies.find((c) => c.name === 'glossa_session')!;
    t.truthy(session);
    t.true(session.httpOnly);
    t.is(session.sameSite, 'Lax');
    t.false(session.secure);
    t.is(await page.evaluate(() => document.cookie), '');

    // The plan, as the person reads it.
    const text = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
    t.regex(text, /Action translate/);
    t.regex(text, /State pending approval/);
    t.regex(text, /Languages de, fr, ja/);
    t.regex(text, /Units 6/);
    t.regex(text, /Batches 2/);
    const op = await internalOp(run.operationId);
    t.regex(text, new RegExp(`Manifest hash ${op.plan!.translate!.payload_sha256}`));
    t.regex(text, /Credit ceiling the agent asked for 10 credits/);
    // The batches' own estimate from their dry runs, beside the ceiling; the key that asked is named.
    const estimate = op.plan!.translate!.estimate_mc!;
    t.true(estimate > 0);
    t.is(op.plan!.translate!.estimated_batches, 2);
    t.true(
      text.includes(
        `The batches' estimate ${(estimate / 1000).toLocaleString('en-US', { maximumFractionDigits: 3 })} credits`,
      ),
      text,
    );
    t.regex(text, /Asked by API key unnamed \(\S+\)/);
    t.regex(text, /Workspace balance 1,000 credits available/);
    // The page's own style applies under its Content-Security-Policy (the hash covers the style element's text).
    t.is(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(246, 246, 248)');
    for (const s of ['Open the door', 'Save your work', ...HOSTILE])
      t.is(await page.getByText(s, { exact: true }).count(), 1, `shown literally: ${s}`);
    t.is(await page.locator('main script, main img, main b').count(), 0, 'no markup of the agent became elements');
    t.is(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
    t.true((await page.content()).includes('&lt;/textarea&gt;&lt;b&gt;bold?&lt;/b&gt;'));
    t.regex(await page.locator('header').innerText(), /Olga <Owner>/);

    // Approve 3 of the 10 credits asked.
    const budget = page.getByLabel(/Budget in whole credits/);
    t.is(await budget.inputValue(), '10');
    await budget.fill('3');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(run.approvalUrl);
    t.is(await page.locator('.state').textContent(), 'approved');
    t.deepEqual(await buttons(page), [0, 0], 'nothing left to click');
    t.regex(
      (await page.locator('main').innerText()).replace(/\s+/g, ' '),
      /Decided by Olga <Owner> <reviewer@example\.test>/,
    );
    t.like(await internalOp(run.operationId), { state: 'approved', authorized_mc: 3000, decided_by: userId });

    // The agent's batches now go through under the operation, and the agent polls them to the end; the charges
    // stay within the 3 credits approved.
    for (const i of [0, 1]) {
      const sent = await sendBatch(run, i, `approved-batch-${i}`);
      t.is(sent.response.status, 200, JSON.stringify(sent.error));
      t.true(sent.data!.estimatedCredits > 0);
      for (let n = 0; ; n++) {
        await svc.admin.POST('/jobs/run-due', { body: {} });
        const status = (await pollJob(agent, p.projectId, sent.data!.trackingToken!)).data!.status;
        if (status !== 'queued' && status !== 'running') {
          t.is(status, 'done', `batch ${i}`);
          break;
        }
        if (n > 50) {
          t.fail(`batch ${i} still ${status}`);
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const after = await internalOp(run.operationId);
    t.true(after.charged_mc > 0 && after.charged_mc <= 3000, `charged ${after.charged_mc}`);
    t.is(after.reserved_mc, 0);
  },
);

test.serial('deny: the page shows denied and the batch is 409 operation_not_approved', async (t) => {
  const run = await askToTranslate([['Delete everything']]);
  const page = browserPage;
  await page.goto(run.approvalUrl);
  t.is(page.url(), run.approvalUrl, 'still signed in');
  t.deepEqual(await buttons(page), [1, 1]);
  await page.getByRole('button', { name: 'Deny' }).click();
  await page.waitForURL(run.approvalUrl);
  t.is(await page.locator('.state').textContent(), 'denied');
  t.deepEqual(await buttons(page), [0, 0]);
  t.regex(await page.locator('main').innerText(), /There is nothing to decide/);
  t.like(await internalOp(run.operationId), { state: 'denied', decided_by: userId });
  const sent = await sendBatch(run, 0, 'denied-batch-0');
  t.is(sent.response.status, 409);
  t.like(sent.error, { error: 'operation_not_approved' });
});

test.serial(
  'an operation the agent cancelled: a page left open cannot approve it, the page shows it cancelled with nothing to click, the queue no longer lists it',
  async (t) => {
    // A project of its own: its queue holds only this operation.
    const q = await createTestProject(svc, { languages: [{ code: 'de' }] });
    const asker = svc.client(await createTestKey(svc, q.projectId, ['translate', 'read'], true));
    const units = [{ source: 'Withdrawn <b>before</b> anyone decided' }];
    const preview = await previewTranslate(asker, q.projectId, { units });
    const manifest = await batchManifest([{ sha256: preview.data!.batchSha256!, unit_count: 1 }]);
    const created = await asker.POST('/operations', {
      body: { action: 'translate', max_credits: 2, scope: { project_id: q.projectId, unit_count: 1, ...manifest } },
    });
    const op = created.data!;
    const page = browserPage;
    const queue = `${origin}/projects/${q.projectId}/operations`;
    const pendingRows = () => page.locator('section[aria-labelledby=pending] tr[data-operation]');
    await page.goto(queue);
    t.is(await pendingRows().count(), 1);
    t.is(await pendingRows().first().getAttribute('data-operation'), op.operation_id);
    // The person opens the page: pending, Approve and Deny, and the navigation counts it.
    await page.goto(op.approval_url);
    t.is(await page.locator('.state').textContent(), 'pending approval');
    t.deepEqual(await buttons(page), [1, 1]);
    t.is(await page.getByRole('link', { name: 'Operations 1 waiting for approval' }).count(), 1);
    // Meanwhile the agent withdraws it (its call was abandoned).
    const cancelled = await asker.POST('/operations/{operationId}/cancel', {
      params: { path: { operationId: op.operation_id } },
    });
    t.is(cancelled.data?.state, 'cancelled');
    // Approve on the page left open: refused, nothing authorized, and the page now says what happened.
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForLoadState();
    t.regex(await page.locator('p.error[role=alert]').innerText(), /no longer pending approval; nothing changed/);
    t.is(await page.locator('.state').textContent(), 'cancelled by the agent that asked');
    t.deepEqual(await buttons(page), [0, 0]);
    t.like(await internalOp(op.operation_id), { state: 'cancelled', authorized_mc: 0, decided_by: null });
    // Opened afresh: cancelled, no form, nothing to decide, and nothing waiting in the navigation.
    await page.goto(op.approval_url);
    t.is(await page.locator('.state').textContent(), 'cancelled by the agent that asked');
    t.regex(
      await page.locator('main').innerText(),
      /This operation is cancelled by the agent that asked\.\s*There is nothing to decide/,
    );
    t.is(await page.locator('main form').count(), 0);
    t.is(await page.getByRole('link', { name: /waiting for approval/ }).count(), 0);
    // The queue lists nothing waiting; the list of all operations still shows it, cancelled.
    await page.goto(queue);
    t.is(await pendingRows().count(), 0);
    t.regex(await page.locator('section[aria-labelledby=pending]').innerText(), /Nothing is waiting/);
    const row = page.locator(`section[aria-labelledby=recent] tr[data-operation="${op.operation_id}"]`);
    t.is(await row.locator('.state').textContent(), 'cancelled by the agent that asked');
    // The agent's batch under it is refused.
    const sent = await translate(asker, q.projectId, {
      units,
      operationId: op.operation_id,
      requestId: 'after-cancel',
      attemptId: 'a1',
      batchIndex: 0,
      batchSha256: preview.data!.batchSha256!,
    });
    t.is(sent.response.status, 409);
    t.like(sent.error, { error: 'operation_not_approved' });
  },
);

test.serial('an expired operation says so and offers nothing to click; an unknown one is a 404 page', async (t) => {
  // A ceiling above what the workspace holds is pointed out.
  const run = await askToTranslate([['Too late']], 5000);
  const page = browserPage;
  await page.goto(run.approvalUrl);
  t.regex(await page.locator('main').innerText(), /The ceiling is above the balance available now/);
  t.deepEqual(await buttons(page), [1, 1]);
  // The person waits past the 30 minutes; the sweep runs with a simulated clock.
  const ran = await svc.admin.POST('/jobs/run-due', {
    body: { now: new Date(Date.now() + 31 * 60_000).toISOString() },
  });
  t.is(ran.response.status, 200);
  await page.reload();
  t.is(await page.locator('.state').textContent(), 'expired');
  t.regex(await page.locator('main').innerText(), /it expired at .*; the agent must ask again/);
  t.deepEqual(await buttons(page), [0, 0]);
  t.is(await page.locator('main form').count(), 0);

  const missing = await page.goto(`${origin}/approve/op_doesnotexist`);
  t.is(missing!.status(), 404);
  t.regex(await page.locator('main').innerText(), /Operation not found/);
  const malformed = await page.goto(`${origin}/approve/${encodeURIComponent('<script>')}`);
  t.is(malformed!.status(), 404);
});

test.serial('publish and rollback plans: flags, counts against the current version, from/to versions', async (t) => {
  const page = browserPage;
  const push = (source: string) =>
    p.client.POST('/projects/{projectId}/translate', {
      params: { path: { projectId: p.projectId } },
      body: { units: [{ source }] },
    });
  await push('First published string');
  const v1 = await p.client.POST('/projects/{projectId}/publish', {
    params: { path: { projectId: p.projectId } },
    body: {},
  });
  t.truthy(v1.data, JSON.stringify(v1.error));
  await push('Second string');
  await push('Third string');
  const pub = await agent.POST('/operations', {
    body: { action: 'publish', scope: { project_id: p.projectId, require_complete: false, approved_only: true } },
  });
  t.is(pub.response.status, 201, JSON.stringify(pub.error));
  await page.goto(pub.data!.approval_url);
  let text = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
  t.regex(text, /Action publish/);
  t.regex(text, /Approved cells only yes/);
  t.regex(text, /Require complete no/);
  t.regex(text, new RegExp(`Current version ${v1.data!.versionId.replace(/\./g, '\\.')}`));
  t.regex(text, /Keys \d+ would be published; 2 added, changed or removed against the current version/);
  t.is(await page.getByLabel(/Budget/).count(), 0, 'a publish asks for no credits');
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.waitForURL(pub.data!.approval_url);
  t.is(await page.locator('.state').textContent(), 'approved');

  const v2 = await p.client.POST('/projects/{projectId}/publish', {
    params: { path: { projectId: p.projectId } },
    body: {},
  });
  t.truthy(v2.data, JSON.stringify(v2.error));
  const rb = await agent.POST('/operations', {
    body: { action: 'rollback', scope: { project_id: p.projectId, from_version: 'current', to_version: 'previous' } },
  });
  t.is(rb.response.status, 201, JSON.stringify(rb.error));
  await page.goto(rb.data!.approval_url);
  text = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
  t.regex(text, /Action rollback/);
  t.true(text.includes(`From version ${v2.data!.versionId} (`), text);
  t.true(text.includes(`To version ${v1.data!.versionId} (`), text);
  t.regex(text, /From version \S+ \((\d+) keys\) To version \S+ \((\d+) keys\)/);
  t.notRegex(text, /would be refused/);
  // Published over since: the plan warns that the rollback would be refused.
  await push('Fourth string');
  t.truthy(
    (await p.client.POST('/projects/{projectId}/publish', { params: { path: { projectId: p.projectId } }, body: {} }))
      .data,
  );
  await page.reload();
  t.regex(
    await page.locator('main').innerText(),
    /Another version was published since the agent asked: the rollback would be refused/,
  );
  // A rollback the page says would be refused offers no Approve, and a forged approve changes nothing.
  t.deepEqual(await buttons(page), [0, 1]);
  const csrf = await page.locator('main input[name=csrf]').inputValue();
  const forged = await page.request.post(rb.data!.approval_url, {
    form: { csrf, decision: 'approve' },
    headers: { origin },
    maxRedirects: 0,
  });
  t.is(forged.status(), 409);
  t.is((await internalOp(rb.data!.operation_id)).state, 'pending_approval');
});

test.serial("a publish plan after a restore is the publish page's diff, not a count by timestamps", async (t) => {
  const q = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const qAgent = svc.client(await createTestKey(svc, q.projectId, ['publish', 'read'], true));
  const push = (keys: string[]) =>
    q.client.POST('/projects/{projectId}/translate', {
      params: { path: { projectId: q.projectId } },
      body: { units: keys.map((key) => ({ key, source: `Text of ${key}` })) },
    });
  const publish = async () =>
    (await q.client.POST('/projects/{projectId}/publish', { params: { path: { projectId: q.projectId } }, body: {} }))
      .data!.versionId;
  await push(['r.one', 'r.two']);
  const v1 = await publish();
  await push(['r.three', 'r.four', 'r.five']);
  await publish();
  // Production goes back to two keys; the live content still holds five, none touched since.
  const restored = await svc.admin.POST('/projects/{projectId}/versions/{versionId}/restore', {
    params: { path: { projectId: q.projectId, versionId: v1 } },
  });
  t.is(restored.response.status, 201);
  const pub = await qAgent.POST('/operations', {
    body: { action: 'publish', scope: { project_id: q.projectId } },
  });
  t.is(pub.response.status, 201, JSON.stringify(pub.error));
  const plan = (await internalOp(pub.data!.operation_id)).plan!.publish!;
  const preview = (
    await svc.admin.GET('/projects/{projectId}/publish/preview', { params: { path: { projectId: q.projectId } } })
  ).data!;
  const base = preview.languages.find((d) => d.isBase)!;
  t.is(plan.keys_changed, 3, 'three keys come back into production');
  t.is(plan.keys_changed, base.addedTotal + base.changedTotal + base.removedTotal);
  t.is(
    plan.cells_changed,
    preview.languages.filter((d) => !d.isBase).reduce((n, d) => n + d.addedTotal + d.changedTotal + d.removedTotal, 0),
  );
  t.false(plan.identical);
  await browserPage.goto(pub.data!.approval_url);
  const text = (await browserPage.locator('main').innerText()).replace(/\s+/g, ' ');
  t.regex(text, /3 added, changed or removed against the current version/);
  t.true(text.includes('r.three') && text.includes('r.five'), 'the keys are listed as the publish page lists them');
  // The navigation counts the operations waiting for approval.
  const waiting = (
    await svc.admin.GET('/projects/{projectId}/operations', {
      params: { path: { projectId: q.projectId }, query: { state: 'pending_approval' } },
    })
  ).data!.operations.length;
  t.is(waiting, 1);
  t.regex(await browserPage.getByRole('navigation', { name: 'Main' }).innerText(), /Operations\s*1/);
  t.is(await browserPage.getByRole('link', { name: 'Operations 1 waiting for approval' }).count(), 1);
});

test.serial(
  "a ceiling far above the batches' estimate (millicredits passed as credits) is shown and warned",
  async (t) => {
    const run = await askToTranslate([['Short one'], ['Short two']], 650);
    await browserPage.goto(run.approvalUrl);
    const text = (await browserPage.locator('main').innerText()).replace(/\s+/g, ' ');
    const op = await internalOp(run.operationId);
    const estimate = op.plan!.translate!.estimate_mc!;
    t.true(estimate > 0 && estimate * 10 < 650_000);
    t.regex(text, /Credit ceiling the agent asked for 650 credits/);
    t.regex(text, /The batches' estimate [\d.]+ credits/);
    t.regex(await browserPage.getByRole('alert').innerText(), /more than ten times the batches' estimate/);
  },
);

test.serial(
  'form posts without the CSRF token, with a foreign Origin or from another site change nothing',
  async (t) => {
    const run = await askToTranslate([['Guarded']]);
    const page = browserPage;
    await page.goto(run.approvalUrl);
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const cookie = (await context.cookies(origin)).map((c) => `${c.name}=${c.value}`).join('; ');
    const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(run.approvalUrl, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin, ...headers },
        body: new URLSearchParams(form).toString(),
      });
    const noToken = await post({ decision: 'approve' });
    t.is(noToken.status, 403);
    const wrongToken = await post({ decision: 'approve', csrf: csrf.slice(1) });
    t.is(wrongToken.status, 403);
    const foreign = await post({ decision: 'approve', csrf }, { origin: 'http://evil.example' });
    t.is(foreign.status, 403);
    t.is((await internalOp(run.operationId)).state, 'pending_approval');

    // Another site's page auto-submits a form to the approval URL: SameSite keeps the session cookie home.
    const evil = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<form id="f" method="post" action="${run.approvalUrl}"><input name="decision" value="approve"><input name="csrf" value="${csrf}"></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      // localhost is another site than 127.0.0.1.
      await page.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
      await page.waitForURL(run.approvalUrl);
      // The post arrived without the session cookie (SameSite=Lax), so it was sent to sign in, and the sign-in page,
      // seeing the session on that top-level GET, sent the person on to the approval page: nothing decided, and not
      // the Origin check's refusal either, which a post carrying the session would have met.
      t.is(await page.locator('.state').textContent(), 'pending approval');
      t.notRegex(await page.locator('main').innerText(), /Refused/);
    } finally {
      evil.close();
    }
    t.is((await internalOp(run.operationId)).state, 'pending_approval', 'nothing changed');

    // With the token, from the page itself: it works, and a second post finds nothing pending.
    const ok = await post({ decision: 'deny', csrf });
    t.is(ok.status, 303);
    const late = await post({ decision: 'approve', csrf, credits: '1' });
    t.is(late.status, 409);
    t.regex(await late.text(), /no longer pending/);
    t.is((await internalOp(run.operationId)).state, 'denied');
  },
);

test.serial('a budget above the request or not a whole number is refused; sign-out ends the session', async (t) => {
  const run = await askToTranslate([['Budget check']], 4);
  const page = browserPage;
  await page.goto(run.approvalUrl);
  const csrf = await page.locator('input[name=csrf]').first().inputValue();
  const cookie = (await context.cookies(origin)).map((c) => `${c.name}=${c.value}`).join('; ');
  const post = (form: Record<string, string>) =>
    fetch(run.approvalUrl, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ csrf, ...form }).toString(),
    });
  for (const credits of ['5', '1.5', '-1', 'ten']) {
    const r = await post({ decision: 'approve', credits });
    t.is(r.status, 400, credits);
    t.regex(await r.text(), /whole number of credits from 0 to 4/);
  }
  t.is((await post({ decision: 'maybe' })).status, 400);
  t.is((await internalOp(run.operationId)).state, 'pending_approval');
  t.is((await post({ decision: 'approve' })).status, 303, 'no budget field: what was requested');
  t.like(await internalOp(run.operationId), { state: 'approved', authorized_mc: 4000 });
  const missing = await fetch(`${origin}/approve/op_doesnotexist`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({ csrf, decision: 'approve' }).toString(),
  });
  t.is(missing.status, 404);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL((u) => u.pathname === '/signin');
  await page.goto(run.approvalUrl);
  t.is(new URL(page.url()).pathname, '/signin', 'signed out');
  const anonymous = await post({ decision: 'deny' });
  t.is(anonymous.status, 303, 'the old cookie is no session');
  t.is(anonymous.headers.get('location'), `/signin?next=${encodeURIComponent(`/approve/${run.operationId}`)}`);
});
