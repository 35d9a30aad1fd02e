// Outdated translations (docs/decisions/0019-outdated-translations.md): a changed source marks its translations
// outdated (sync, translate by key), they keep serving but count as not done (GET /status, require_complete), a
// person's edit or approval clears it, and re-translating (retranslateOutdated, the bulk action, the project's
// `retranslate` mode) queues them again with the old value kept in history.
import test from 'ava';
import { previewSync, sync as syncCall, translate, type SyncRequest } from '../../packages/client/src/index.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { errorOf, readKey } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const jsonFile = (obj: unknown): SyncRequest => ({ contentBase64: b64(JSON.stringify(obj)), fileName: 'en.json' });
const syncJson = (p: TestProject, obj: unknown) => syncCall(p.client, p.projectId, jsonFile(obj));
const runDue = (p: TestProject) => svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
const status = async (p: TestProject) =>
  (await p.client.GET('/projects/{projectId}/status', { params: { path: { projectId: p.projectId } } })).data!;
const lang = async (p: TestProject, code: string) => (await status(p)).languages.find((l) => l.code === code)!;
const cell = async (p: TestProject, ref: string, code: string) =>
  (await readKey(p.client, p.projectId, ref, code)).data!.translations[code];
const detail = async (p: TestProject, key: string) =>
  (await svc.admin.GET('/projects/{projectId}/keys/{key}', { params: { path: { projectId: p.projectId, key } } }))
    .data!;
const listed = async (p: TestProject, query: { status?: 'outdated' | 'translated'; lang?: string }) =>
  (await svc.admin.GET('/projects/{projectId}/keys', { params: { path: { projectId: p.projectId }, query } })).data!;
const retranslate = (p: TestProject, body?: { langs?: string[]; keys?: string[] }) =>
  p.client.POST('/projects/{projectId}/outdated/retranslate', {
    params: { path: { projectId: p.projectId } },
    body: body ?? {},
  });
const publish = (p: TestProject, requireComplete: boolean) =>
  p.client.POST('/projects/{projectId}/publish', {
    params: { path: { projectId: p.projectId } },
    body: { require_complete: requireComplete, incompleteMode: 'skip' },
  });

/** A project whose `save` key says `Save`, translated into de and fr by the engine. */
async function translated(opts: { mode?: 'keep' | 'retranslate' } = {}) {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
  if (opts.mode)
    await svc.admin.PATCH('/projects/{projectId}', {
      params: { path: { projectId: p.projectId } },
      body: { outdatedMode: opts.mode },
    });
  await syncJson(p, { save: 'Save', cancel: 'Cancel' });
  await runDue(p);
  return p;
}

test('a sync that changes a source marks its translations outdated: still served, not done', async (t) => {
  const p = await translated();
  const before = await cell(p, 'save', 'de');
  t.is(before.status, 'translated');
  t.false('outdated' in before, 'a current value reads as before');
  const fresh = await lang(p, 'de');
  t.true(fresh.complete);
  t.false('outdated' in fresh, 'no outdated count while nothing is outdated');

  const r = await syncJson(p, { save: 'Save changes', cancel: 'Cancel' });
  t.like(r.data, { updatedSources: 1, matchedSources: 1, estimatedCredits: 0, trackingToken: null });
  // The value stays and keeps serving: the read gives it, flagged.
  t.deepEqual(await cell(p, 'save', 'de'), { ...before, outdated: true });
  t.false('outdated' in (await cell(p, 'cancel', 'de')));
  t.like(await lang(p, 'de'), { complete: false, translated: 1, outdated: 1, missing: 0 });
  t.like(await lang(p, 'fr'), { complete: false, translated: 1, outdated: 1 });

  // The key list filters them, the editor shows old and new source side by side.
  const list = await listed(p, { status: 'outdated', lang: 'de' });
  t.deepEqual(
    list.keys.map((k) => k.key),
    ['save'],
  );
  t.true(list.keys[0].cells.every((c) => c.outdated === true));
  t.is((await listed(p, { status: 'translated', lang: 'de' })).total, 2, 'outdated cells keep their status');
  const d = await detail(p, 'save');
  t.is(d.source, 'Save changes');
  t.like(
    d.cells.find((c) => c.lang === 'de'),
    { outdated: true, outdatedSource: 'Save', value: before.value },
  );

  // require_complete refuses, naming them; a publish without it still serves the old value.
  const refused = await publish(p, true);
  t.is(refused.response.status, 409);
  t.like(errorOf(refused), { error: 'fill_incomplete', outdated: 2, pending: 0 });
  t.is((await publish(p, false)).response.status, 201);

  // A second change keeps the source the value was written for.
  await syncJson(p, { save: 'Save all changes', cancel: 'Cancel' });
  t.like(
    (await detail(p, 'save')).cells.find((c) => c.lang === 'de'),
    { outdatedSource: 'Save' },
  );
});

test('retranslateOutdated queues the outdated cells again and keeps the old value in history', async (t) => {
  const p = await translated();
  const old = (await cell(p, 'save', 'de')).value;
  await syncJson(p, { save: 'Save changes', cancel: 'Cancel' });
  const r = await retranslate(p, { langs: ['de'] });
  t.is(r.response.status, 200);
  t.like(r.data, { queued: 1 });
  t.truthy(r.data!.trackingToken);
  t.true(r.data!.estimatedCredits > 0);
  t.like(await cell(p, 'save', 'de'), { status: 'pending' });
  t.like(await lang(p, 'fr'), { outdated: 1 }, 'only the languages asked for');
  await runDue(p);
  const now = await cell(p, 'save', 'de');
  t.is(now.status, 'translated');
  t.false('outdated' in now);
  t.not(now.value, old);
  t.like(await lang(p, 'de'), { complete: true, translated: 2 });
  const history = (await detail(p, 'save')).history.filter((h) => h.lang === 'de');
  t.like(
    history.find((h) => h.status === 'outdated'),
    { value: old },
  );
  // Nothing outdated left in de: nothing queued, nothing held.
  t.like((await retranslate(p, { langs: ['de'] })).data, { queued: 0, trackingToken: null, estimatedCredits: 0 });
  // Every language by default.
  t.like((await retranslate(p)).data, { queued: 1 });
});

test('retranslateOutdated refuses bad input with nothing written', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'ja', fillMode: 'manual' }] });
  await syncJson(p, { save: 'Save' });
  await runDue(p);
  await syncJson(p, { save: 'Save changes' });
  const unknown = await retranslate(p, { langs: ['xx'] });
  t.is(unknown.response.status, 400);
  t.is(errorOf(unknown)?.error, 'invalid_argument');
  const manual = await retranslate(p, { langs: ['ja'] });
  t.is(manual.response.status, 400);
  t.is(errorOf(manual)?.error, 'fill_mode_manual');
  const extra = await p.client.POST('/projects/{projectId}/outdated/retranslate', {
    params: { path: { projectId: p.projectId } },
    body: { lang: 'de' } as never,
  });
  t.is(extra.response.status, 400);
  t.like(await cell(p, 'save', 'de'), { status: 'translated', outdated: true });
  // A key name the project does not have queues nothing.
  t.like((await retranslate(p, { keys: ['nope'] })).data, { queued: 0 });
  // A workspace without credits: 402, the cell untouched.
  await svc.admin.POST('/workspaces/{workspaceId}/credits', {
    params: { path: { workspaceId: p.workspaceId } },
    body: {
      mc: -Number(
        (await svc.service.app.db('workspaces').where({ id: p.workspaceId }).first('balance_mc'))!.balance_mc,
      ),
    },
  });
  const poor = await retranslate(p);
  t.is(poor.response.status, 402);
  t.is(errorOf(poor)?.error, 'insufficient_credits');
  t.like(await cell(p, 'save', 'de'), { status: 'translated', outdated: true });
  t.false(
    (await detail(p, 'save')).history.some((h) => h.status === 'outdated'),
    'no history of a refused retirement',
  );
});

test("a person's edit or approval clears outdated; a bulk approve of the outdated filter confirms them", async (t) => {
  const p = await translated();
  await syncJson(p, { save: 'Save changes', cancel: 'Cancel changes' });
  t.like(await lang(p, 'de'), { outdated: 2 });
  const put = await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key: 'save', lang: 'de' } },
    body: { value: 'Änderungen speichern' },
  });
  t.is(put.response.status, 200);
  t.false('outdated' in (await cell(p, 'save', 'de')));
  const bulk = await svc.admin.POST('/projects/{projectId}/keys/bulk-review', {
    params: { path: { projectId: p.projectId } },
    body: { filter: { status: 'outdated' }, action: 'approve' },
  });
  t.is(bulk.data?.affected, 3, 'the outdated cells of cancel (de, fr) and save (fr)');
  t.like(await lang(p, 'de'), { complete: true, approved: 1, translated: 1 });
  t.like(await lang(p, 'fr'), { complete: true, approved: 2 });
  t.is((await listed(p, { status: 'outdated' })).total, 0);

  // An approved value whose source changes again is outdated; approving it again confirms it.
  await syncJson(p, { save: 'Save changes', cancel: 'Cancel now' });
  t.like(await lang(p, 'fr'), { outdated: 1, approved: 1 });
  const again = await svc.admin.POST('/projects/{projectId}/keys/bulk-review', {
    params: { path: { projectId: p.projectId } },
    body: { filter: {}, action: 'approve', lang: 'fr' },
  });
  t.is(again.data?.affected, 1);
  t.like(await lang(p, 'fr'), { complete: true, approved: 2 });
});

test('translate: a unit naming its key with a new source marks outdated; a copy edit carries them over', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  await translate(p.client, p.projectId, {
    units: [
      { key: 'a', source: 'Save' },
      { key: 'b', source: 'Open' },
    ],
  });
  await runDue(p);
  const r = await translate(p.client, p.projectId, {
    units: [
      { key: 'a', source: 'Save changes' },
      { key: 'b', source: 'Open…', previousSource: 'Open' },
    ],
  });
  t.deepEqual(
    r.data?.units.map((u) => [u.key, u.outcome, u.translated, u.pending]),
    [
      ['a', 'carriedOver', ['de'], []],
      ['b', 'carriedOver', ['de'], []],
    ],
  );
  t.like(await cell(p, 'a', 'de'), { status: 'translated', outdated: true });
  t.false('outdated' in (await cell(p, 'b', 'de')));
  t.like(await lang(p, 'de'), { outdated: 1, translated: 1, complete: false });
});

test('outdatedMode retranslate: engine values are queued again at once, a person’s stay outdated', async (t) => {
  const p = await translated({ mode: 'retranslate' });
  const project = await svc.admin.GET('/projects/{projectId}', { params: { path: { projectId: p.projectId } } });
  t.is(project.data?.outdatedMode, 'retranslate');
  await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key: 'save', lang: 'fr' } },
    body: { value: 'Enregistrer' },
  });
  const preview = await previewSync(p.client, p.projectId, jsonFile({ save: 'Save changes', cancel: 'Cancel' }));
  t.true(preview.data!.estimatedCredits > 0, 'the dry run counts the re-translation');
  const r = await syncJson(p, { save: 'Save changes', cancel: 'Cancel' });
  t.truthy(r.data?.trackingToken);
  t.is(r.data?.estimatedCredits, preview.data!.estimatedCredits);
  t.like(await cell(p, 'save', 'de'), { status: 'pending' });
  t.like(await cell(p, 'save', 'fr'), { status: 'translated', value: 'Enregistrer', outdated: true });
  await runDue(p);
  t.like(await lang(p, 'de'), { complete: true, translated: 2 });
  t.like(await lang(p, 'fr'), { complete: false, outdated: 1 });
  t.true((await detail(p, 'save')).history.some((h) => h.lang === 'de' && h.status === 'outdated'));

  // The translate path too.
  const q = await translate(p.client, p.projectId, { units: [{ key: 'cancel', source: 'Cancel all' }] });
  t.deepEqual(q.data?.units[0].pending.sort(), ['de', 'fr']);
  t.true(q.data!.estimatedCredits > 0);
  await runDue(p);
  t.like(await lang(p, 'de'), { complete: true });
});

test('the dashboard bulk action retranslate queues the outdated cells of the filtered keys', async (t) => {
  const p = await translated();
  await syncJson(p, { save: 'Save changes', cancel: 'Cancel changes' });
  const r = await svc.admin.POST('/projects/{projectId}/keys/bulk', {
    params: { path: { projectId: p.projectId } },
    body: { filter: { q: 'save', status: 'outdated' }, action: 'retranslate', lang: 'de' },
  });
  t.is(r.response.status, 200);
  t.is(r.data?.affected, 1);
  t.truthy(r.data?.trackingToken);
  await runDue(p);
  t.like(await lang(p, 'de'), { outdated: 1, translated: 1 });
  t.false('outdated' in (await cell(p, 'save', 'de')));
});

test('a multi-language sync: a target value the file changes with its source is current, one it keeps is outdated', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
  const xc = (source: string, de: string, fr: string) => ({
    contentBase64: b64(
      JSON.stringify({
        sourceLanguage: 'en',
        version: '1.0',
        strings: {
          save: {
            localizations: Object.fromEntries(
              Object.entries({ en: source, de, fr }).map(([l, value]) => [
                l,
                { stringUnit: { state: 'translated', value } },
              ]),
            ),
          },
        },
      }),
    ),
    fileName: 'Localizable.xcstrings',
  });
  await syncCall(p.client, p.projectId, xc('Save', 'Speichern', 'Enregistrer'));
  const r = await syncCall(p.client, p.projectId, xc('Save changes', 'Änderungen speichern', 'Enregistrer'));
  t.like(r.data, { updatedSources: 1, updatedTranslations: 1, unchangedTranslations: 1 });
  t.deepEqual(await cell(p, 'save', 'de'), { status: 'translated', value: 'Änderungen speichern' });
  t.deepEqual(await cell(p, 'save', 'fr'), { status: 'translated', value: 'Enregistrer', outdated: true });
  t.like(await lang(p, 'de'), { complete: true });
  t.like(await lang(p, 'fr'), { complete: false, outdated: 1 });
  // The next sync that carries a new fr value makes it current.
  await syncCall(p.client, p.projectId, xc('Save changes', 'Änderungen speichern', 'Enregistrer les modifications'));
  t.like(await lang(p, 'fr'), { complete: true, translated: 1 });
});

test('an agent key may not buy a re-translation without an approved operation', async (t) => {
  const p = await translated();
  await syncJson(p, { save: 'Save changes', cancel: 'Cancel' });
  const agent = svc.client(await createTestKey(svc, p.projectId, ['translate'], true));
  const r = await agent.POST('/projects/{projectId}/outdated/retranslate', {
    params: { path: { projectId: p.projectId } },
    body: {},
  });
  t.is(r.response.status, 403);
  t.like(errorOf(r), { error: 'authorization_required' });
  t.true((errorOf(r)?.estimatedCredits as number) > 0);
  t.like(await cell(p, 'save', 'de'), { status: 'translated', outdated: true });
  // A key with only the read scope may not ask at all.
  const reader = svc.client(await createTestKey(svc, p.projectId, ['read']));
  const refused = await reader.POST('/projects/{projectId}/outdated/retranslate', {
    params: { path: { projectId: p.projectId } },
    body: {},
  });
  t.is(refused.response.status, 403);
  t.is(errorOf(refused)?.error, 'forbidden');
});

test('outdatedMode retranslate leaves a switched-off key its value (marked outdated), never an unqueued marker', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: p.projectId } },
    body: { outdatedMode: 'retranslate' },
  });
  await translate(p.client, p.projectId, { units: [{ key: 'a', source: 'Save' }] });
  await runDue(p);
  await svc.admin.PATCH('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key: 'a' } },
    body: { enabled: false },
  });
  const r = await translate(p.client, p.projectId, { units: [{ key: 'a', source: 'Save changes' }] });
  t.like(r.data?.units[0], { outcome: 'carriedOver', disabled: true, pending: [] });
  t.is(r.data?.trackingToken, null);
  t.like(await cell(p, 'a', 'de'), { status: 'translated', outdated: true });
});

test('an imported value (POST /imports) is written for the current source: it clears outdated', async (t) => {
  const p = await translated();
  await syncJson(p, { save: 'Save changes', cancel: 'Cancel' });
  t.true((await cell(p, 'save', 'de')).outdated);
  const r = await p.client.POST('/projects/{projectId}/imports', {
    params: { path: { projectId: p.projectId } },
    body: {
      contentBase64: b64(JSON.stringify({ save: 'Änderungen speichern' })),
      fileName: 'de.json',
      lang: 'de',
      onConflict: 'file',
    },
  });
  t.like(r.data, { updated: 1 });
  t.deepEqual(await cell(p, 'save', 'de'), { status: 'translated', value: 'Änderungen speichern' });
  t.is((await lang(p, 'de')).outdated, undefined, 'nothing outdated is left in de');
});
