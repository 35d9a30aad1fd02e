// Comments on a key through the internal API, as signed-in people (SQLite and MySQL): threads one level deep,
// mentions of active dashboard people by `@email`, deletion by the author or an owner that keeps the thread, and the
// refusals (empty, too long, a reply to a reply, another key's thread) writing nothing.
import test from 'ava';
import { translate } from '../../packages/client/src/index.js';
import { asPerson } from '../helpers/actor.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';

let svc: TestService;
const people: Record<'owner' | 'rita' | 'ravi' | 'gone', { userId: string; name: string; role: 'owner' | 'reviewer' }> =
  {} as never;
test.before(async () => {
  svc = await startTestService();
  for (const [who, role, email] of [
    ['owner', 'owner', 'olga@example.test'],
    ['rita', 'reviewer', 'rita@example.test'],
    ['ravi', 'reviewer', 'ravi@example.test'],
    ['gone', 'reviewer', 'gone@example.test'],
  ] as const) {
    const name = `${who[0].toUpperCase()}${who.slice(1)} <b>${role}</b>`;
    const r = await svc.admin.POST('/users', { body: { name, email, password: 'a long enough password', role } });
    people[who] = { userId: r.data!.userId, name, role };
  }
  await svc.admin.PATCH('/users/{userId}', {
    params: { path: { userId: people.gone.userId } },
    body: { active: false },
  });
});
test.after.always(async () => {
  await svc?.stop();
});

async function withKeys(): Promise<TestProject> {
  const p = await createTestProject(svc, { languages: [{ code: 'de', fillMode: 'manual' }] });
  await translate(p.client, p.projectId, {
    units: [
      { key: 'save', source: 'Save' },
      { key: 'cancel', source: 'Cancel' },
    ],
  });
  return p;
}

const url = (p: TestProject, key: string, rest = '') => `/projects/${p.projectId}/keys/${key}/comments${rest}`;
const comments = async (p: TestProject, key: string) =>
  (
    await svc.admin.GET('/projects/{projectId}/keys/{key}/comments', {
      params: { path: { projectId: p.projectId, key } },
    })
  ).data!;

test('a thread: a comment with mentions, replies, and a reply to a reply refused', async (t) => {
  const p = await withKeys();
  const hostile =
    'Is "Save" right here? <img src=x onerror=alert(1)> @olga@example.test, @gone@example.test and @nobody@example.test';
  const first = await asPerson(svc, people.rita, 'POST', url(p, 'save'), { body: hostile });
  t.is(first.status, 201);
  t.like(first.body, {
    parentId: null,
    author: { userId: people.rita.userId, name: people.rita.name },
    body: hostile,
    deleted: false,
  });
  t.deepEqual(
    first.body.mentions,
    [{ userId: people.owner.userId, name: people.owner.name, email: 'olga@example.test' }],
    'an active person is mentioned; a deactivated one and an unknown address are text',
  );
  const id = first.body.id as number;
  const reply = await asPerson(svc, people.owner, 'POST', url(p, 'save'), { body: 'Yes, keep it.', parentId: id });
  t.is(reply.status, 201);
  t.is(reply.body.parentId, id);
  const nested = await asPerson(svc, people.ravi, 'POST', url(p, 'save'), {
    body: 'A reply to a reply',
    parentId: reply.body.id,
  });
  t.is(nested.status, 400);
  t.is(nested.body.error, 'invalid_argument');
  const elsewhere = await asPerson(svc, people.ravi, 'POST', url(p, 'cancel'), { body: 'Wrong key', parentId: id });
  t.is(elsewhere.status, 400, "another key's thread");
  for (const body of ['', 'x'.repeat(2001)])
    t.is((await asPerson(svc, people.ravi, 'POST', url(p, 'save'), { body })).status, 400);
  t.is((await asPerson(svc, people.ravi, 'POST', url(p, 'nothing'), { body: 'Hello' })).status, 404);

  const listed = await comments(p, 'save');
  t.deepEqual(
    listed.comments.map((c) => [c.author.userId, c.parentId, c.body.slice(0, 14)]),
    [
      [people.rita.userId, null, hostile.slice(0, 14)],
      [people.owner.userId, id, 'Yes, keep it.'],
    ],
  );
  t.false(listed.truncated);
  t.deepEqual((await comments(p, 'cancel')).comments, []);
});

test("deleting: the author's own, an owner's any; the thread stays; someone else's is refused", async (t) => {
  const p = await withKeys();
  const first = await asPerson(svc, people.rita, 'POST', url(p, 'save'), { body: 'Check the length' });
  const id = first.body.id as number;
  const reply = await asPerson(svc, people.ravi, 'POST', url(p, 'save'), { body: 'Fits', parentId: id });
  const refused = await asPerson(svc, people.ravi, 'DELETE', url(p, 'save', `/${id}`));
  t.is(refused.status, 403);
  t.is(refused.body.error, 'forbidden');
  t.is((await asPerson(svc, people.rita, 'DELETE', url(p, 'save', `/${id}`))).status, 204);
  t.is((await asPerson(svc, people.rita, 'DELETE', url(p, 'save', `/${id}`))).status, 204, 'again: a no-op');
  const after = (await comments(p, 'save')).comments;
  t.like(after[0], { id, body: '', mentions: [], deleted: true });
  t.like(after[1], { body: 'Fits', deleted: false });
  t.is((await asPerson(svc, people.owner, 'DELETE', url(p, 'save', `/${reply.body.id as number}`))).status, 204);
  t.true((await comments(p, 'save')).comments.every((c) => c.deleted));
  t.is((await asPerson(svc, people.owner, 'DELETE', url(p, 'cancel', `/${id}`))).status, 404, 'not on this key');
});
