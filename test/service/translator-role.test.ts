// The translator role and roles per project (docs/decisions/0032-translator-role.md, 0033-project-roles.md) through
// the internal API, as signed-in people, on SQLite and MySQL: grants name a project's target languages (anything
// else is refused, nothing written); a translator lists only the projects granted, reads another project as
// unknown, saves values only in their languages and only as `translated`, and is refused every route outside the
// translator's x-roles; a project's owner or reviewer does what that role does in that project only; a role change
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
type Grants = Array<{ projectId: string; role?: 'owner' | 'reviewer' | 'translator'; langs?: string[] }>;
async function translator(grants: Grants): Promise<Actor> {
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
    [[{ projectId: p.projectId, langs: [] }], 'translator', /needs at least one language/],
    [[{ projectId: p.projectId }], 'translator', /needs at least one language/],
    [[{ projectId: p.projectId, role: 'reviewer', langs: ['de'] }], 'translator', /give no langs/],
    [
      [
        { projectId: p.projectId, role: 'owner' },
        { projectId: p.projectId, langs: ['de'] },
      ],
      'translator',
      /named twice/,
    ],
  ] as const) {
    refused.push(`x${++n}@example.test`);
    const r = await svc.admin.POST('/users', {
      body: {
        name: 'X',
        email: refused.at(-1)!,
        password: 'a long enough password',
        role,
        grants: grants as unknown as Grants,
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
  t.deepEqual(listed.grants, [{ projectId: p.projectId, role: 'translator', langs: ['de'] }]);
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

test('a project owner or reviewer does what the role does in that project, and nothing outside it', async (t) => {
  const owned = await withKeys();
  const reviewed = await withKeys();
  const translated = await withKeys();
  const other = await withKeys();
  const tara = await translator([
    { projectId: owned.projectId, role: 'owner' },
    { projectId: reviewed.projectId, role: 'reviewer' },
    { projectId: translated.projectId, langs: ['fr'] },
  ]);
  const listed = (await svc.admin.GET('/users')).data!.users.find((u) => u.userId === tara.userId)!;
  // In code order, as the database orders the ids (binary collation on both).
  const byId = (a: { projectId: string }, b: { projectId: string }) => (a.projectId < b.projectId ? -1 : 1);
  t.deepEqual(
    listed.grants,
    [
      { projectId: owned.projectId, role: 'owner', langs: [] },
      { projectId: reviewed.projectId, role: 'reviewer', langs: [] },
      { projectId: translated.projectId, role: 'translator', langs: ['fr'] },
    ].sort(byId),
    'in project order',
  );
  const as = (method: string, url: string, body?: unknown) => asPerson(svc, tara, method, url, body);
  const projects = (await as('GET', '/projects')).body.projects as Array<{ projectId: string }>;
  t.deepEqual(
    projects.map((x) => x.projectId).sort(),
    [owned.projectId, reviewed.projectId, translated.projectId].sort(),
  );

  // Owner of `owned`: an owner's routes of the project (settings, API keys, publishing), any language, any status.
  const settled = await as('PATCH', `/projects/${owned.projectId}`, { costWarningMc: 1234 });
  t.is(settled.status, 200, JSON.stringify(settled.body));
  t.is((await as('POST', `/projects/${owned.projectId}/api-keys`, { name: 'ci', scopes: ['read'] })).status, 201);
  t.is((await as('GET', `/projects/${owned.projectId}/versions`)).status, 200);
  const approve = { value: 'Speichern', status: 'approved' };
  t.is((await as('PUT', `/projects/${owned.projectId}/keys/save/translations/de`, approve)).status, 200);
  t.false('translatorLangs' in (await as('GET', `/projects/${owned.projectId}/keys`)).body);

  // Reviewer of `reviewed`: reviews every language, no owner's route.
  t.is((await as('PUT', `/projects/${reviewed.projectId}/keys/save/translations/fr`, approve)).status, 200);
  const bulk = await as('POST', `/projects/${reviewed.projectId}/keys/bulk-review`, { filter: {}, action: 'approve' });
  t.is(bulk.status, 200, JSON.stringify(bulk.body));
  t.is((await as('PATCH', `/projects/${reviewed.projectId}`, { costWarningMc: 99 })).status, 403);
  t.is((await as('POST', `/projects/${reviewed.projectId}/api-keys`, { name: 'x', scopes: ['read'] })).status, 403);

  // Translator of `translated`, as before; another project is unknown; the service's own routes stay the owners'.
  t.is((await as('PUT', `/projects/${translated.projectId}/keys/save/translations/fr`, approve)).status, 403);
  t.is((await as('PATCH', `/projects/${translated.projectId}`, { costWarningMc: 99 })).status, 403);
  t.is((await as('GET', `/projects/${other.projectId}/keys`)).status, 404);
  t.is((await as('PATCH', `/projects/${other.projectId}`, { costWarningMc: 99 })).status, 404);
  t.is((await as('GET', '/users')).status, 403);
  t.is((await as('POST', '/projects', { name: 'New', baseLang: 'en' })).status, 403);

  const warnings = await Promise.all(
    [owned, reviewed, other].map(
      async (x) =>
        (await svc.admin.GET('/projects/{projectId}', { params: { path: { projectId: x.projectId } } })).data!
          .costWarningMc,
    ),
  );
  t.deepEqual(warnings, [1234, null, null], 'only the owned project changed');
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
  t.deepEqual(granted.data?.grants, [{ projectId: p.projectId, role: 'translator', langs: ['de', 'fr'] }]);

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
