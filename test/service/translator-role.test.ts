// The translator role (docs/decisions/0032-translator-role.md) through the internal API, as signed-in people, on
// SQLite and MySQL: grants name a project's target languages (anything else is refused, nothing written); a
// translator lists only the projects granted, reads another project as unknown, saves values only in their
// languages and only as `translated`, and is refused every route outside the translator's x-roles; a role change
// drops the grants, and the last owner cannot become a translator.
import test from 'ava';
import { translate } from '../../packages/client/src/index.js';
import type { Actor } from '../../server/http/pipeline.js';
import { asPerson } from '../helpers/actor.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => svc?.stop());

async function withKeys(): Promise<TestProject> {
  const p = await createTestProject(svc, {
    languages: [
      { code: 'de', fillMode: 'manual' },
      { code: 'fr', fillMode: 'manual' },
    ],
  });
  await translate(p.client, p.projectId, { units: [{ key: 'save', source: 'Save' }] });
  return p;
}

let n = 0;
async function translator(grants: Array<{ projectId: string; langs: string[] }>): Promise<Actor> {
  const r = await svc.admin.POST('/users', {
    body: {
      name: 'Tara',
      email: `tara${++n}@example.test`,
      password: 'a long enough password',
      role: 'translator',
      grants,
    },
  });
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return { userId: r.data.userId, name: 'Tara', role: 'translator' };
}

test('grants name target languages of existing projects, with the translator role only; nothing else is written', async (t) => {
  const p = await withKeys();
  const refused: string[] = [];
  for (const [grants, role, why] of [
    [[{ projectId: 'p_none', langs: ['de'] }], 'translator', /no project p_none/],
    [[{ projectId: p.projectId, langs: ['en'] }], 'translator', /en is not a target language/],
    [[{ projectId: p.projectId, langs: ['ja'] }], 'translator', /ja is not a target language/],
    [[{ projectId: p.projectId, langs: ['de'] }], 'reviewer', /translator role only/],
  ] as const) {
    refused.push(`x${++n}@example.test`);
    const r = await svc.admin.POST('/users', {
      body: {
        name: 'X',
        email: refused.at(-1)!,
        password: 'a long enough password',
        role,
        grants: grants as unknown as Array<{ projectId: string; langs: string[] }>,
      },
    });
    t.is(r.response.status, 400);
    t.regex(r.error!.message, why);
  }
  const emails = (await svc.admin.GET('/users')).data!.users.map((u) => u.email);
  t.false(
    refused.some((e) => emails.includes(e)),
    'no user was added',
  );

  const tara = await translator([{ projectId: p.projectId, langs: ['de', 'de'] }]);
  const listed = (await svc.admin.GET('/users')).data!.users.find((u) => u.userId === tara.userId)!;
  t.deepEqual(listed.grants, [{ projectId: p.projectId, langs: ['de'] }]);
});

test('a translator sees their projects, saves values in their languages as translated, and nothing else', async (t) => {
  const mine = await withKeys();
  const other = await withKeys();
  const tara = await translator([{ projectId: mine.projectId, langs: ['de'] }]);
  const as = (method: string, url: string, body?: unknown) => asPerson(svc, tara, method, url, body);

  const projects = await as('GET', '/projects');
  t.deepEqual(
    (projects.body.projects as Array<{ projectId: string }>).map((x) => x.projectId),
    [mine.projectId],
  );
  t.is((await as('GET', `/projects/${other.projectId}/keys`)).status, 404, 'another project reads as unknown');
  t.is((await as('GET', `/projects/${other.projectId}/keys/save`)).status, 404);
  const keys = await as('GET', `/projects/${mine.projectId}/keys`);
  t.is(keys.status, 200);
  t.deepEqual(keys.body.translatorLangs, ['de']);
  const detail = await as('GET', `/projects/${mine.projectId}/keys/save`);
  t.deepEqual(detail.body.translatorLangs, ['de']);

  const put = (lang: string, body: Record<string, unknown>) =>
    as('PUT', `/projects/${mine.projectId}/keys/save/translations/${lang}`, body);
  t.is((await put('de', { value: 'Speichern' })).status, 200);
  t.is((await put('de', { value: 'Sichern', status: 'translated' })).status, 200);
  t.is((await put('fr', { value: 'Enregistrer' })).status, 403, 'not their language');
  t.is((await put('de', { value: 'Speichern', status: 'approved' })).status, 403, 'reviewing is not theirs');
  t.is((await put('de', { status: 'reviewed' })).status, 403);
  const cells = (
    await svc.admin.GET('/projects/{projectId}/keys/{key}', {
      params: { path: { projectId: mine.projectId, key: 'save' } },
    })
  ).data!.cells;
  t.like(
    cells.find((c) => c.lang === 'de'),
    { value: 'Sichern', status: 'translated' },
  );
  t.is(cells.find((c) => c.lang === 'fr')!.value ?? null, null);

  // Outside the translator's routes: bulk actions, publishing, settings, the users.
  t.is((await as('POST', `/projects/${mine.projectId}/keys/bulk`, { filter: {}, action: 'approve' })).status, 403);
  t.is((await as('GET', `/projects/${mine.projectId}/versions`)).status, 403);
  t.is((await as('GET', '/users')).status, 403);
  // The admin token sees no translatorLangs: they are the signed-in translator's only.
  const admin = await svc.admin.GET('/projects/{projectId}/keys', { params: { path: { projectId: mine.projectId } } });
  t.false('translatorLangs' in admin.data!);
});

test('a role change drops the grants; the last owner cannot become a translator', async (t) => {
  const p = await withKeys();
  const tara = await translator([{ projectId: p.projectId, langs: ['fr'] }]);
  const moved = await svc.admin.PATCH('/users/{userId}', {
    params: { path: { userId: tara.userId } },
    body: { role: 'reviewer' },
  });
  t.is(moved.data?.role, 'reviewer');
  t.false('grants' in moved.data!);
  const back = await svc.admin.PATCH('/users/{userId}', {
    params: { path: { userId: tara.userId } },
    body: { role: 'translator' },
  });
  t.deepEqual(back.data?.grants, [], 'a translator again, with no project until granted');
  const granted = await svc.admin.PATCH('/users/{userId}', {
    params: { path: { userId: tara.userId } },
    body: { grants: [{ projectId: p.projectId, langs: ['de', 'fr'] }] },
  });
  t.deepEqual(granted.data?.grants, [{ projectId: p.projectId, langs: ['de', 'fr'] }]);

  const owners = (await svc.admin.GET('/users')).data!.users.filter((u) => u.role === 'owner' && !u.deactivatedAt);
  if (owners.length === 0) {
    const o = await svc.admin.POST('/users', {
      body: { name: 'Only', email: 'only-owner@example.test', password: 'a long enough password', role: 'owner' },
    });
    owners.push(o.data!);
  }
  if (owners.length === 1) {
    const r = await svc.admin.PATCH('/users/{userId}', {
      params: { path: { userId: owners[0].userId } },
      body: { role: 'translator' },
    });
    t.is(r.error?.error, 'last_owner');
  } else t.pass('another test made a second owner');
});
