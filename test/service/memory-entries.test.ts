// The memory's entries as the TMX import and export will use them (server/domain/memory/entries.ts `addEntries`,
// `pageEntries`), and as the API then reads them: imported entries pre-translate and are suggested; a page walk
// reads every entry once, in a stable order; an entry follows its cell's review status.
import test from 'ava';
import { translate } from '../../packages/client/src/index.js';
import { addEntries, pageEntries, type EntryView, type NewEntry } from '../../server/domain/memory/entries.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';
import { json, type Schemas } from '../helpers/typed.js';

let svc: TestService;

/** The answer's body, or a failure that says what the service answered instead. */
function ok<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined) throw new Error(`${r.response.status}: ${JSON.stringify(r.error)}`);
  return r.data;
}
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const db = () => svc.service.app.db;
const projectRow = async (p: TestProject) => (await db()('projects').where({ id: p.projectId }).first())!;

async function sibling(p: TestProject): Promise<TestProject> {
  const made = await svc.admin.POST('/projects', {
    body: { workspaceId: p.workspaceId, name: 'Sibling', baseLang: 'en', languages: [{ code: 'de' }] },
  });
  const projectId = made.data!.projectId;
  const apiKey = await createTestKey(svc, projectId, ['admin']);
  return { projectId, workspaceId: p.workspaceId, apiKey, client: svc.client(apiKey) };
}

async function all(of: Parameters<typeof pageEntries>[1], limit: number): Promise<EntryView[]> {
  const out: EntryView[] = [];
  let cursor: string | null = null;
  do {
    const page = await pageEntries(db(), of, cursor, limit);
    out.push(...page.entries);
    cursor = page.next;
  } while (cursor);
  return out;
}

test('entries imported into the workspace pre-translate and are suggested; the same import twice adds nothing', async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const entries: NewEntry[] = [
    {
      sourceLang: 'en',
      targetLang: 'de',
      source: 'Import me, {name}',
      target: 'Importiere mich, {name}',
      status: 'approved' as const,
    },
    { sourceLang: 'en', targetLang: 'de', source: 'Leave me', target: 'Lass mich', status: 'translated' },
    { sourceLang: 'en', targetLang: 'fr', source: 'Leave me', target: 'Laisse-moi', status: 'translated' },
  ];
  t.deepEqual(await addEntries(db(), { workspaceId: p.workspaceId }, entries), { added: 3, unchanged: 0, updated: 0 });
  t.deepEqual(await addEntries(db(), { workspaceId: p.workspaceId }, entries), { added: 0, unchanged: 3, updated: 0 });
  t.deepEqual(await addEntries(db(), { workspaceId: p.workspaceId }, [{ ...entries[1], status: 'approved' }]), {
    added: 0,
    unchanged: 0,
    updated: 1,
  });
  const pushed = ok(await translate(p.client, p.projectId, { units: [{ source: 'Import me, {who}' }] }));
  t.deepEqual(pushed.units[0].translated, ['de']);
  t.is(pushed.estimatedCredits, 0);
  const res = await fetch(
    `${svc.baseUrl}/projects/${p.projectId}/memory?${new URLSearchParams({ lang: 'de', source: 'Leave me' })}`,
    { headers: { authorization: `Bearer ${p.apiKey}` } },
  );
  const body = await json<Schemas['MemorySuggestions']>(res);
  t.like(body.matches[0], {
    score: 100,
    origin: 'import',
    status: 'approved',
    project: null,
    key: null,
    preTranslates: true,
  });
});

test("entries imported into an isolated project are that project's alone", async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }] });
  const iso = await sibling(p);
  await svc.admin.PATCH('/projects/{projectId}', {
    params: { path: { projectId: iso.projectId } },
    body: { memorySharing: 'isolated' },
  });
  const added = await addEntries(db(), { project: await projectRow(iso) }, [
    {
      sourceLang: 'en',
      targetLang: 'de',
      source: 'Only for the isolated',
      target: 'Nur für die Isolierte',
      status: 'approved',
    },
  ]);
  t.is(added.added, 1);
  const mine = ok(await translate(iso.client, iso.projectId, { units: [{ source: 'Only for the isolated' }] }));
  t.deepEqual(mine.units[0].translated, ['de']);
  const theirs = ok(await translate(p.client, p.projectId, { units: [{ source: 'Only for the isolated' }] }));
  t.deepEqual(theirs.units[0].pending, ['de']);
  const page = await all({ project: await projectRow(iso) }, 10);
  t.true(page.some((e) => e.source === 'Only for the isolated' && e.projectId === iso.projectId && e.key === null));
});

test("a page walk reads every entry once, in a stable order; a cell's entry follows its review", async (t) => {
  const p = await createTestProject(svc, { languages: [{ code: 'de' }, { code: 'fr' }] });
  const r = ok(
    await translate(p.client, p.projectId, {
      units: [{ source: 'Page one' }, { source: 'Page two' }, { source: 'Page three' }],
    }),
  );
  await svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
  await addEntries(db(), { workspaceId: p.workspaceId }, [
    { sourceLang: 'en', targetLang: 'de', source: 'Page four', target: 'Seite vier', status: 'reviewed' },
  ]);
  const whole = await all({ workspaceId: p.workspaceId }, 1_000);
  const walked = await all({ workspaceId: p.workspaceId }, 2);
  t.deepEqual(walked, whole);
  t.is(new Set(walked.map((e) => e.id)).size, walked.length);
  t.is(walked.length, 7, 'three keys in two languages, and one imported entry');
  const ofProject = await all({ project: await projectRow(p) }, 3);
  t.is(ofProject.length, 6);
  t.true(ofProject.every((e) => e.projectId === p.projectId && e.origin === 'ai' && e.key !== null));
  // Approved, the cell's entry is approved, not a second one.
  await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
    params: { path: { projectId: p.projectId, key: r.units[0].key, lang: 'de' } },
    body: { status: 'approved' },
  });
  const after = await all({ project: await projectRow(p) }, 100);
  t.is(after.length, 6);
  t.like(
    after.find((e) => e.key === r.units[0].key && e.targetLang === 'de'),
    { status: 'approved', origin: 'ai', source: 'Page one' },
  );
});
