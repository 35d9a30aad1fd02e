// The dashboard's key list through the internal API (internalListKeys, internalBulkReview; the grid of
// server/web/grid.ts reads it): its sort orders on both databases, each cell's version, and a bulk action over
// chosen rows. The public API keeps its documented shapes. The grid itself is test/e2e/consumers/dashboard-grid.test.ts.
import test from 'ava';
import { keyCell, putCell } from '../helpers/cells.js';
import { translate } from '../../packages/client/src/index.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => svc?.stop());

/** A project in English with de filled by hand (so every cell starts missing), and `n` keys. */
async function gridProject(n: number): Promise<TestProject> {
  const p = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }] });
  const units = Array.from({ length: n }, (_, i) => ({ key: `k${String(i).padStart(3, '0')}`, source: `Item ${i}` }));
  const r = await translate(p.client, p.projectId, { units });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return p;
}

const cell = (p: TestProject, key: string, lang: string) => keyCell(svc, p, key, lang);

const put = (p: TestProject, key: string, lang: string, value: string) => putCell(svc, p, key, lang, value);

test('the list sorts, carries each cell version, and a bulk filter of tokens touches those keys only', async (t) => {
  const p = await gridProject(3);
  await put(p, 'k001', 'de', 'Zwei');
  await new Promise((r) => setTimeout(r, 5));
  await put(p, 'k000', 'de', 'Eins');
  const list = async (query: Record<string, string>) => {
    const r = await svc.admin.GET('/projects/{projectId}/keys', {
      params: { path: { projectId: p.projectId }, query },
    });
    return r;
  };
  const names = async (query: Record<string, string>) => (await list(query)).data!.keys.map((k) => k.key);
  t.deepEqual(await names({}), ['k000', 'k001', 'k002']);
  t.deepEqual(await names({ sort: '-name' }), ['k002', 'k001', 'k000']);
  t.deepEqual(await names({ sort: '-updated', sortLang: 'de' }), ['k000', 'k001', 'k002']);
  t.deepEqual(await names({ sort: 'updated', sortLang: 'de' }), ['k002', 'k001', 'k000'], 'a cell never written first');
  t.is((await list({ sort: 'updated', sortLang: 'xx' })).response.status, 400);
  t.is((await list({ sort: 'sideways' })).response.status, 400);
  const page1 = (await list({})).data!;
  const de = page1.keys[0].cells.find((c) => c.lang === 'de')!;
  t.is(de.updatedAt, (await cell(p, 'k000', 'de')).updatedAt);
  t.is(page1.keys[2].cells.find((c) => c.lang === 'de')!.updatedAt, null);

  // The list of selected rows: one token (a plain query value) or several (the parameter repeated).
  t.deepEqual(await names({ tokens: page1.keys[1].token }), ['k001']);
  const two = await svc.admin.GET('/projects/{projectId}/keys', {
    params: { path: { projectId: p.projectId }, query: { tokens: [page1.keys[0].token, page1.keys[2].token] } },
  });
  t.deepEqual(
    two.data!.keys.map((k) => k.key),
    ['k000', 'k002'],
  );
  const tokens = [page1.keys[0].token];
  const r = await svc.admin.POST('/projects/{projectId}/keys/bulk-review', {
    params: { path: { projectId: p.projectId } },
    body: { filter: { tokens }, action: 'review', lang: 'de' },
  });
  t.is(r.data?.affected, 1);
  t.is((await cell(p, 'k000', 'de')).status, 'reviewed');
  t.is((await cell(p, 'k001', 'de')).status, 'translated');

  // The public API keeps its documented shapes: no cell version in its list or its save's answer.
  const pub = await p.client.GET('/projects/{projectId}/keys', { params: { path: { projectId: p.projectId } } });
  t.false(pub.data!.keys.some((k) => k.cells.some((c) => 'updatedAt' in c)));
  const saved = await p.client.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key: 'k002', lang: 'de' } },
    body: { value: 'Drei' },
  });
  t.is(saved.response.status, 200);
  t.false('updatedAt' in saved.data!);
});
