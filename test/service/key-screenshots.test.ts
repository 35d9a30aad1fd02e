// Screenshots of a key through the internal API (SQLite and MySQL): PNG files with the key's region marked are
// kept in the object store and read back byte for byte with their type, `nosniff` and a sandbox; whatever is not a
// PNG, JPEG or WebP (an SVG or an HTML page that would run in the dashboard's origin, a GIF, a cut file, a side over
// 8,000 pixels, a region outside the image, text that is not base64) is refused with nothing written; only whoever
// added one, or an owner, removes it. An OpenAI-compatible engine that reads images (OPENAI_IMAGES) gets the key's
// first screenshot with the key, as an image part numbered in the item; without the setting it gets none.
import test from 'ava';
import { translate } from '../../packages/client/src/index.js';
import { asPerson } from '../helpers/actor.js';
import { openAiEnv, requestItems, startFakeOpenAI, systemOf, type FakeOpenAI } from '../helpers/fake-openai.js';
import { png, pngHeaderOnly } from '../helpers/png.js';
import { createTestProject, startTestService, type TestProject, type TestService } from '../helpers/service.js';

let svc: TestService;
let seeing: TestService;
let fake: FakeOpenAI;
const people: Record<'owner' | 'rita' | 'ravi', { userId: string; name: string; role: 'owner' | 'reviewer' }> =
  {} as never;

test.before(async () => {
  fake = await startFakeOpenAI();
  svc = await startTestService(openAiEnv(fake));
  seeing = await startTestService({ ...openAiEnv(fake), OPENAI_IMAGES: 'true' });
  for (const [who, role, email] of [
    ['owner', 'owner', 'shot-owner@example.test'],
    ['rita', 'reviewer', 'shot-rita@example.test'],
    ['ravi', 'reviewer', 'shot-ravi@example.test'],
  ] as const) {
    const r = await svc.admin.POST('/users', { body: { name: who, email, password: 'a long enough password', role } });
    people[who] = { userId: r.data!.userId, name: who, role };
  }
});
test.after.always(async () => {
  await svc?.stop();
  await seeing?.stop();
  await fake?.close();
});

/** A project with one key; with `ai`, its German fill is queued and runs at the next run-due. */
async function withKey(on: TestService = svc, fillMode: 'ai' | 'manual' = 'manual'): Promise<TestProject> {
  const p = await createTestProject(on, { languages: [{ code: 'de', fillMode }] });
  await translate(p.client, p.projectId, { units: [{ key: 'checkout.pay', source: 'Pay now' }] });
  return p;
}

const url = (p: TestProject, rest = '') => `/projects/${p.projectId}/keys/checkout.pay/screenshots${rest}`;
const listed = async (p: TestProject) =>
  (
    await svc.admin.GET('/projects/{projectId}/keys/{key}/screenshots', {
      params: { path: { projectId: p.projectId, key: 'checkout.pay' } },
    })
  ).data!.screenshots;

test('a PNG with its region is kept, listed, read back byte for byte, and removed by whoever added it or an owner', async (t) => {
  const p = await withKey();
  const image = png(40, 30);
  const added = await asPerson(svc, people.rita, 'POST', url(p), {
    image: image.toString('base64'),
    region: { x: 5, y: 10, width: 30, height: 12 },
  });
  t.is(added.status, 201, JSON.stringify(added.body));
  t.like(added.body, {
    contentType: 'image/png',
    width: 40,
    height: 30,
    bytes: image.length,
    region: { x: 5, y: 10, width: 30, height: 12 },
    addedBy: people.rita.userId,
  });
  const id = added.body.id as number;
  t.deepEqual(
    (await listed(p)).map((s) => s.id),
    [id],
  );

  const read = await svc.service.main.inject({
    url: `/internal/v1${url(p, `/${id}`)}`,
    headers: { authorization: `Bearer ${svc.service.app.config.adminToken}` },
  });
  t.is(read.statusCode, 200);
  t.is(read.headers['content-type'], 'image/png');
  t.is(read.headers['x-content-type-options'], 'nosniff');
  t.regex(String(read.headers['content-security-policy']), /default-src 'none'; sandbox/);
  t.deepEqual(read.rawPayload, image);

  // Ravi did not add it and is no owner; Olga is.
  t.is((await asPerson(svc, people.ravi, 'DELETE', url(p, `/${id}`))).status, 403);
  t.is((await asPerson(svc, people.owner, 'DELETE', url(p, `/${id}`))).status, 204);
  t.deepEqual(await listed(p), []);
  const gone = await svc.service.main.inject({
    url: `/internal/v1${url(p, `/${id}`)}`,
    headers: { authorization: `Bearer ${svc.service.app.config.adminToken}` },
  });
  t.is(gone.statusCode, 404);
  t.is((await asPerson(svc, people.rita, 'DELETE', url(p, '/999999'))).status, 404);
});

test('what is not a PNG, JPEG or WebP is refused with nothing written; a key takes ten', async (t) => {
  const p = await withKey();
  const hostile: Array<[string, string | Buffer, RegExp]> = [
    [
      'an SVG with a size',
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="alert(1)"><script>alert(2)</script></svg>',
      /not svg/,
    ],
    ['an SVG', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(2)</script></svg>', /not an image this service/],
    ['an HTML page', '<!doctype html><script>alert(1)</script>', /not an image this service reads/],
    ['a GIF', Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64'), /not gif/],
    ['a cut PNG', png(4, 4).subarray(0, 12), /not an image this service reads/],
    ['a side over 8,000 pixels', pngHeaderOnly(8001, 10), /at most 8000 pixels/],
  ];
  for (const [what, file, why] of hostile) {
    const r = await asPerson(svc, people.rita, 'POST', url(p), { image: Buffer.from(file).toString('base64') });
    t.is(r.status, 400, what);
    t.regex(String(r.body.message), why, what);
  }
  const outside = await asPerson(svc, people.rita, 'POST', url(p), {
    image: png(10, 10).toString('base64'),
    region: { x: 5, y: 5, width: 6, height: 2 },
  });
  t.is(outside.status, 400);
  t.regex(String(outside.body.message), /inside the 10×10 image/);
  const text = await asPerson(svc, people.rita, 'POST', url(p), { image: 'not base64 at all!' });
  t.is(text.status, 400);
  t.deepEqual(await listed(p), [], 'nothing was written');

  for (let n = 0; n < 10; n++)
    t.is((await asPerson(svc, people.rita, 'POST', url(p), { image: png(2, 2).toString('base64') })).status, 201);
  const eleventh = await asPerson(svc, people.rita, 'POST', url(p), { image: png(2, 2).toString('base64') });
  t.is(eleventh.status, 409);
  t.is(eleventh.body.error, 'too_many_screenshots');
  t.is((await listed(p)).length, 10);
});

test('an engine that reads images gets the key’s first screenshot with its region; one that does not, none', async (t) => {
  for (const [on, images] of [
    [seeing, true],
    [svc, false],
  ] as const) {
    const p = await withKey(on, 'ai');
    for (const [w, h] of [
      [64, 48],
      [8, 8],
    ])
      await on.admin.POST('/projects/{projectId}/keys/{key}/screenshots', {
        params: { path: { projectId: p.projectId, key: 'checkout.pay' } },
        body: { image: png(w, h).toString('base64'), region: { x: 1, y: 2, width: 3, height: 4 } },
      });
    const before = fake.requests.length;
    await on.admin.POST('/jobs/run-due', { body: { projectId: p.projectId } });
    const sent = fake.requests.slice(before).filter((r) => requestItems(r).some((i) => i.key === 'checkout.pay'));
    t.is(sent.length, 1, `one engine request (images: ${images})`);
    const user = sent[0].body!.messages.find((m) => m.role === 'user')!.content;
    const item = requestItems(sent[0]).find((i) => i.key === 'checkout.pay') as unknown as Record<string, unknown>;
    if (images) {
      t.true(Array.isArray(user));
      const parts = user as Array<{ type: string; text?: string; image_url?: { url: string } }>;
      const pictures = parts.filter((x) => x.type === 'image_url');
      t.is(pictures.length, 1, 'the first screenshot only');
      t.is(pictures[0].image_url!.url, `data:image/png;base64,${png(64, 48).toString('base64')}`);
      t.true(parts.some((x) => x.text === 'Screenshot 1 (64×48 pixels):'));
      t.is(item.screenshot, 1);
      t.deepEqual(item.region, { x: 1, y: 2, width: 3, height: 4 });
      t.regex(systemOf(sent[0]), /"screenshot" is the number of an image/);
    } else {
      t.is(typeof user, 'string');
      t.false('screenshot' in item);
      t.notRegex(systemOf(sent[0]), /screenshot/);
    }
  }
});
