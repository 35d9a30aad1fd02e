// A person's edit of a key's source (internalUpdateKey `source`), on SQLite and MySQL: the key keeps its name and
// says something new, its translations become outdated (or stay current for a copy edit), the old source goes to
// its history, a `retranslate` project asks the engine again for its own values, and an edit made from a source the
// key no longer says, or to a source another key says, writes nothing.
import test from 'ava';
import { translate } from '../../packages/client/src/index.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';
import { hostile } from '../helpers/typed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const runDue = (p: TestProject) => svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });

type Edit = { source?: string; copyEdit?: boolean; sourceBase?: string; sourceVerified?: boolean };
const edit = (p: TestProject, key: string, body: Edit) =>
  svc.admin.PATCH('/projects/{projectId}/keys/{key}', { params: { path: { projectId: p.projectId, key } }, body });

async function detail(p: TestProject, key: string) {
  const r = await svc.admin.GET('/projects/{projectId}/keys/{key}', {
    params: { path: { projectId: p.projectId, key } },
  });
  return r.data!;
}

async function filled(sources: Record<string, string>, opts: Parameters<typeof createTestProject>[1] = {}) {
  const p = await createTestProject(svc, opts);
  await translate(p.client, p.projectId, {
    units: Object.entries(sources).map(([key, source]) => ({ key, source })),
  });
  await runDue(p);
  return p;
}

test('a new source keeps the key; its translations are outdated and still served; the old source is in history', async (t) => {
  const p = await filled({ save: 'Save', cancel: 'Cancel' });
  const before = await detail(p, 'save');
  const de = before.cells.find((c) => c.lang === 'de')!;
  t.is(de.status, 'translated');
  const r = await edit(p, 'save', { source: 'Save changes', sourceBase: 'Save' });
  t.is(r.response.status, 200, JSON.stringify(r.error));
  t.like(r.data, { key: 'save', source: 'Save changes', outdated: 2, sourceVerified: true, trackingToken: null });
  t.false('queued' in r.data!, 'nothing to queue in a keep project');
  const after = await detail(p, 'save');
  t.is(after.source, 'Save changes');
  t.not(after.token, before.token, 'the content token follows the source');
  t.like(
    after.cells.find((c) => c.lang === 'de'),
    { value: de.value, outdated: true },
  );
  const db = svc.service.app.db;
  const { id } = (await db('keys').where({ project_id: p.projectId, name: 'save' }).first('id'))!;
  t.deepEqual(await db('key_history').where({ key_id: id }).pluck('source'), ['Save']);
  // A push of the new source finds the same key; one of the old source makes a new key.
  const pushed = await translate(p.client, p.projectId, { units: [{ source: 'Save changes' }, { source: 'Save' }] });
  t.deepEqual(
    pushed.data!.units.map((u) => [u.key, u.outcome]),
    [
      ['save', 'matched'],
      ['save_2', 'created'],
    ],
  );
  t.deepEqual(
    (await detail(p, 'cancel')).cells.map((c) => c.outdated ?? false),
    [false, false],
    'other keys untouched',
  );
});

test('a copy edit keeps the translations current', async (t) => {
  const p = await filled({ welcome: 'Welcome hom' });
  const r = await edit(p, 'welcome', { source: 'Welcome home', copyEdit: true, sourceBase: 'Welcome hom' });
  t.like(r.data, { source: 'Welcome home', outdated: 0 });
  const d = await detail(p, 'welcome');
  t.is(d.source, 'Welcome home');
  t.true(d.cells.every((c) => c.status === 'translated' && !c.outdated));
});

test('an edit made from an older source, or to a source another key says, writes nothing', async (t) => {
  const p = await filled({ a: 'Alpha', b: 'Beta' });
  const stale = await edit(p, 'a', { source: 'Alpha one', sourceBase: 'Alpha (old)' });
  t.is(stale.response.status, 409);
  t.like(stale.error, { error: 'edit_conflict', currentSource: 'Alpha' });
  const taken = await edit(p, 'a', { source: 'Beta', sourceBase: 'Alpha' });
  t.is(taken.response.status, 409);
  t.is(taken.error?.error, 'source_taken');
  t.regex(taken.error!.message, /Key b already says this/);
  const lonely = await edit(p, 'a', { copyEdit: true });
  t.is(lonely.response.status, 400);
  const long = await edit(p, 'a', { source: 'x'.repeat(5001) });
  t.is(long.error?.error, 'source_too_long');
  const empty = await edit(p, 'a', { source: hostile('') }); // deliberately empty
  t.is(empty.response.status, 400);
  const d = await detail(p, 'a');
  t.is(d.source, 'Alpha');
  t.true(d.cells.every((c) => !c.outdated));
});

test('a plural key takes its sources from a push or a sync', async (t) => {
  const p = await createTestProject(svc);
  await translate(p.client, p.projectId, {
    units: [{ key: 'items', forms: { one: '{count} item', other: '{count} items' } }],
  });
  const r = await edit(p, 'items', { source: '{count} things' });
  t.is(r.response.status, 400);
  t.regex(r.error!.message, /plural key/);
});

test('in a retranslate project the engine values are asked for again; a person’s value stays, outdated', async (t) => {
  const p = await filled({ hello: 'Hello' });
  await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: p.projectId } },
    body: { outdatedMode: 'retranslate' },
  });
  await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key: 'hello', lang: 'fr' } },
    body: { value: 'Bonjour', status: 'approved' },
  });
  const old = (await detail(p, 'hello')).cells.find((c) => c.lang === 'de')!.value;
  const r = await edit(p, 'hello', { source: 'Hello there', sourceBase: 'Hello' });
  t.like(r.data, { queued: true, outdated: 1 });
  t.truthy(r.data!.trackingToken);
  const mid = await detail(p, 'hello');
  t.like(
    mid.cells.find((c) => c.lang === 'de'),
    { status: 'pending', value: null },
  );
  t.like(
    mid.cells.find((c) => c.lang === 'fr'),
    { status: 'approved', value: 'Bonjour', outdated: true },
  );
  await runDue(p);
  const de = (await detail(p, 'hello')).cells.find((c) => c.lang === 'de')!;
  t.is(de.status, 'translated');
  t.truthy(de.value);
  t.not(de.value, old, 'a value for the new source');
});

test('a refused hold does not refuse the edit: the cells wait, pending, for the next fill', async (t) => {
  const p = await filled({ bye: 'Goodbye' });
  await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: p.projectId } },
    body: { outdatedMode: 'retranslate' },
  });
  const overview = await svc.admin.GET('/projects/{projectId}/overview', {
    params: { path: { projectId: p.projectId } },
  });
  const { balanceMc, heldMc } = overview.data!.workspace;
  await svc.admin.POST('/workspaces/{workspaceId}/credits', {
    params: { path: { workspaceId: p.workspaceId } },
    body: { mc: -(balanceMc - heldMc) },
  });
  const r = await edit(p, 'bye', { source: 'Goodbye for now' });
  t.is(r.response.status, 200);
  t.like(r.data, { source: 'Goodbye for now', queued: false, trackingToken: null });
  const d = await detail(p, 'bye');
  t.is(d.source, 'Goodbye for now');
  t.deepEqual(
    d.cells.map((c) => c.status),
    ['pending', 'pending'],
  );
});

test('two people edit the same source at once: one edit is saved, the other is a conflict', async (t) => {
  const p = await filled({ title: 'Orders' });
  const results = await Promise.all(
    ['Your orders', 'All orders', 'Order history'].map((source) => edit(p, 'title', { source, sourceBase: 'Orders' })),
  );
  const saved = results.filter((r) => r.response.status === 200);
  const refused = results.filter((r) => r.response.status === 409);
  t.is(saved.length, 1);
  t.is(refused.length, 2);
  for (const r of refused) t.like(r.error, { error: 'edit_conflict', currentSource: saved[0].data!.source });
  t.is((await detail(p, 'title')).source, saved[0].data!.source!);
  const db = svc.service.app.db;
  const { id } = (await db('keys').where({ project_id: p.projectId, name: 'title' }).first('id'))!;
  t.deepEqual(await db('key_history').where({ key_id: id }).pluck('source'), ['Orders'], 'one edit in the history');
});
