// A termbase change re-checks the cells whose glossary results depend on it (server/domain/checks/terms.ts): a term
// created, its translation or text changed, deleted, imported, or a workspace term shared by another project; the
// key list's check filter and GET /checks follow, and keys whose sources use no changed term are left alone.
import test from 'ava';
import { translate } from '../../packages/client/src/index.js';
import {
  createTestKey,
  createTestProject,
  startTestService,
  type TestProject,
  type TestService,
} from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const runDue = (p: TestProject) => svc.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });

/** A project of three keys with German values written by hand (no fill): a, b and c. */
async function project(workspaceOf?: TestProject): Promise<TestProject> {
  let p: TestProject;
  if (workspaceOf) {
    const made = await svc.admin.POST('/projects', {
      body: {
        workspaceId: workspaceOf.workspaceId,
        name: 'Sibling',
        baseLang: 'en',
        languages: [{ code: 'de', fillMode: 'manual' }],
      },
    });
    const apiKey = await createTestKey(svc, made.data!.projectId, ['admin']);
    p = { projectId: made.data!.projectId, workspaceId: workspaceOf.workspaceId, apiKey, client: svc.client(apiKey) };
  } else p = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }] });
  const r = await translate(p.client, p.projectId, {
    units: [
      { key: 'a', source: 'Open the file' },
      { key: 'b', source: 'Save your work' },
      { key: 'c', source: 'Delete 3 files' },
    ],
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  const values: Record<string, string> = { a: 'Öffne das Dokument', b: 'Speichere deine Sachen', c: 'Lösche 3 Akten' };
  for (const [key, value] of Object.entries(values)) {
    const put = await p.client.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
      params: { path: { projectId: p.projectId, key, lang: 'de' } },
      body: { value },
    });
    if (!put.data) throw new Error(JSON.stringify(put.error));
  }
  return p;
}

/** The keys GET /checks lists glossary results for, and the dashboard's key list filtered by the glossary check. */
async function failing(p: TestProject) {
  const listed = await p.client.GET('/projects/{projectId}/checks', {
    params: { path: { projectId: p.projectId }, query: { check: 'glossary' } },
  });
  const filtered = await svc.admin.GET('/projects/{projectId}/keys', {
    params: { path: { projectId: p.projectId }, query: { check: 'glossary' } },
  });
  const fromList = [...new Set(listed.data!.results.map((r) => r.key))].sort();
  const fromFilter = filtered.data!.keys.map((k) => k.key).sort();
  return { fromList, fromFilter };
}

const path = (p: TestProject) => ({ path: { projectId: p.projectId } });

test.serial('create, change the translation, change the text, delete: the glossary results follow', async (t) => {
  const p = await project();
  t.deepEqual(await failing(p), { fromList: [], fromFilter: [] });
  const made = await p.client.POST('/projects/{projectId}/terms', {
    params: path(p),
    body: { text: 'file', translations: { de: 'Datei' } },
  });
  t.is(made.response.status, 201);
  await runDue(p);
  // a and c use "file" (c inflected) and lack "Datei"; b uses no term.
  t.deepEqual(await failing(p), { fromList: ['a', 'c'], fromFilter: ['a', 'c'] });
  const termId = made.data!.termId;
  const patch = (body: { text?: string; translations?: Record<string, string> }) =>
    p.client.PATCH('/projects/{projectId}/terms/{termId}', {
      params: { path: { ...path(p).path, termId } },
      body,
    });
  t.is((await patch({ translations: { de: 'Dokument' } })).response.status, 200);
  await runDue(p);
  t.deepEqual(await failing(p), { fromList: ['c'], fromFilter: ['c'] }, 'a says Dokument now');
  // The term now means "work": the keys of its old text lose their results, the key of its new one gains them.
  t.is((await patch({ text: 'work', translations: { de: 'Arbeit' } })).response.status, 200);
  await runDue(p);
  t.deepEqual(await failing(p), { fromList: ['b'], fromFilter: ['b'] });
  const removed = await p.client.DELETE('/projects/{projectId}/terms/{termId}', {
    params: { path: { ...path(p).path, termId } },
  });
  t.is(removed.response.status, 204);
  await runDue(p);
  t.deepEqual(await failing(p), { fromList: [], fromFilter: [] });
});

test.serial('only the keys whose sources use a changed term are checked again', async (t) => {
  const p = await project();
  const db = svc.service.app.db;
  const keyId = async (name: string) =>
    Number((await db('keys').where({ project_id: p.projectId, name }).first<{ id: number }>('id')).id);
  // A stored row of b's cell that no check would write: left alone unless b is checked again.
  const marker = {
    key_id: await keyId('b'),
    lang: 'de',
    project_id: p.projectId,
    errors: 0,
    warnings: 1,
    infos: 0,
    ids: '|end-stop:warning|',
    results: JSON.stringify([{ check: 'end-stop', severity: 'warning', field: 'target', message: 'marker' }]),
    checked_at: 1,
  };
  await db('cell_checks').insert(marker);
  const made = await p.client.POST('/projects/{projectId}/terms', {
    params: path(p),
    body: { text: 'file', translations: { de: 'Datei' } },
  });
  t.is(made.response.status, 201);
  await runDue(p);
  t.like(await db('cell_checks').where({ key_id: marker.key_id, lang: 'de' }).first(), { checked_at: 1 });
  t.deepEqual((await failing(p)).fromList, ['a', 'c']);
  // The same term touching b (its new text): b is checked again, and its marker goes.
  await p.client.PATCH('/projects/{projectId}/terms/{termId}', {
    params: { path: { ...path(p).path, termId: made.data!.termId } },
    body: { text: 'work' },
  });
  await runDue(p);
  const b = await db('cell_checks').where({ key_id: marker.key_id, lang: 'de' }).first<{ ids: string } | undefined>();
  t.regex(b?.ids ?? '', /glossary/);
  t.notRegex(b?.ids ?? '', /end-stop/);
});

test.serial('an import and a workspace term re-check every project they reach', async (t) => {
  const p = await project();
  const other = await project(p);
  const csv = 'term,de\nfile,Datei\n';
  const imported = await p.client.POST('/projects/{projectId}/terms/import', {
    params: path(p),
    body: { format: 'csv', contentBase64: Buffer.from(csv).toString('base64') },
  });
  t.is(imported.response.status, 200, JSON.stringify(imported.error));
  t.like(imported.data, { created: 1 });
  await runDue(p);
  await runDue(other);
  t.deepEqual((await failing(p)).fromList, ['a', 'c']);
  t.deepEqual((await failing(other)).fromList, [], 'a project term is not the other project’s');
  const shared = await p.client.POST('/projects/{projectId}/terms', {
    params: path(p),
    body: { text: 'work', scope: 'workspace', translations: { de: 'Arbeit' } },
  });
  t.is(shared.response.status, 201);
  await runDue(p);
  await runDue(other);
  t.deepEqual((await failing(p)).fromList, ['a', 'b', 'c']);
  t.deepEqual((await failing(other)).fromList, ['b'], 'the workspace term reached the other project');
});

test.serial(
  'a term write and the queueing of its re-check commit together: a refused queue writes no term',
  async (t) => {
    const p = await project();
    const db = svc.service.app.db;
    // The database itself refuses the re-check's job row, as a full disk or a lost connection would at that moment.
    const mysql = process.env.TEST_DB === 'mysql';
    await db.raw(
      mysql
        ? `CREATE TRIGGER refuse_recheck BEFORE INSERT ON jobs FOR EACH ROW BEGIN IF NEW.kind = 'checks.terms' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused'; END IF; END`
        : `CREATE TRIGGER refuse_recheck BEFORE INSERT ON jobs WHEN NEW.kind = 'checks.terms' BEGIN SELECT RAISE(ABORT, 'refused'); END`,
    );
    try {
      const made = await p.client.POST('/projects/{projectId}/terms', {
        params: path(p),
        body: { text: 'file', translations: { de: 'Datei' } },
      });
      t.is(made.response.status, 500);
      const csv = 'term,de\nsave,Speichern\n';
      const imported = await p.client.POST('/projects/{projectId}/terms/import', {
        params: path(p),
        body: { format: 'csv', contentBase64: Buffer.from(csv).toString('base64') },
      });
      t.is(imported.response.status, 500);
      const listed = await p.client.GET('/projects/{projectId}/terms', { params: path(p) });
      t.deepEqual(listed.data!.terms, [], 'neither term was written');
    } finally {
      await db.raw('DROP TRIGGER refuse_recheck');
    }
    const made = await p.client.POST('/projects/{projectId}/terms', {
      params: path(p),
      body: { text: 'file', translations: { de: 'Datei' } },
    });
    t.is(made.response.status, 201);
    await runDue(p);
    t.deepEqual((await failing(p)).fromList, ['a', 'c']);
  },
);
