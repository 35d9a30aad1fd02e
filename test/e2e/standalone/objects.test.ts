// The object store contract, run on the folder store and on the S3 store against a real S3-protocol server
// (s3rver on loopback); then the choice of store from OBJECT_STORE, and the delivery origin's two handlers.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import test, { type ExecutionContext } from 'ava';
import { getBundle, getManifest } from '../../../server/http/routes/origin.js';
import { etagMatches } from '../../../server/http/etag.js';
import { loadConfig } from '../../../server/infra/config.js';
import { ApiError } from '../../../server/infra/errors.js';
import {
  FolderStore,
  IMMUTABLE,
  MANIFEST_CACHE,
  bodyEtag,
  objectKeys,
  parseObjectStoreUrl,
  type ObjectStore,
} from '../../../server/infra/objects.js';
import { S3Store } from '../../../server/infra/objects-s3.js';
import { createObjectStore } from '../../../server/infra/object-store.js';
import type { Handler, RawCtx, RawHandler, Reply } from '../../../server/http/pipeline.js';
import { startS3rver, type TestS3 } from '../../helpers/s3.js';

let folderRoot: string;
let s3: TestS3;
let s3Client: S3Client;
const stores: Record<string, ObjectStore> = {};

test.before(async () => {
  folderRoot = mkdtempSync(path.join(os.tmpdir(), 'glossa-objects-'));
  stores.folder = new FolderStore(folderRoot);
  s3 = await startS3rver();
  s3Client = s3.client();
  stores.s3 = new S3Store(s3Client, s3.bucket, 'tenant/a');
});

test.after.always(async () => {
  s3Client?.destroy();
  await s3?.close();
  if (folderRoot) rmSync(folderRoot, { recursive: true, force: true });
});

const KINDS = ['folder', 's3'] as const;
const JSON_TYPE = 'application/json; charset=utf-8';
let seq = 0;
const freshKey = (name = 'manifest') => `v1/projects/p${++seq}_${randomBytes(3).toString('hex')}/${name}`;

/** What each store's ETag is: the folder's own SHA-256 prefix, the bucket's MD5. */
const expectedEtag = (kind: string, body: Buffer) =>
  kind === 'folder' ? bodyEtag(body) : `"${createHash('md5').update(body).digest('hex')}"`;

const contract = (title: string, fn: (t: ExecutionContext, store: ObjectStore, kind: string) => Promise<void>) => {
  for (const kind of KINDS) test(`${kind}: ${title}`, (t) => fn(t, stores[kind], kind));
};

contract('put then get returns the body, content type, cache control and a quoted ETag', async (t, store, kind) => {
  const key = freshKey();
  await store.put(key, '{"a":"é"}', { contentType: JSON_TYPE, cacheControl: MANIFEST_CACHE });
  const obj = await store.get(key);
  t.truthy(obj);
  t.true(Buffer.isBuffer(obj!.body));
  t.is(obj!.body.toString('utf8'), '{"a":"é"}');
  t.is(obj!.contentType, JSON_TYPE);
  t.is(obj!.cacheControl, MANIFEST_CACHE);
  t.regex(obj!.etag, /^"[0-9a-f]+"$/);
  t.is(obj!.etag, expectedEtag(kind, obj!.body));
});

contract('an overwrite replaces body and headers and changes the ETag', async (t, store) => {
  const key = freshKey();
  await store.put(key, 'one', { contentType: 'text/plain', cacheControl: 'no-cache' });
  const first = await store.get(key);
  await store.put(key, Buffer.from('two, longer'), { contentType: 'application/xml', cacheControl: IMMUTABLE });
  const second = await store.get(key);
  t.is(second!.body.toString(), 'two, longer');
  t.is(second!.contentType, 'application/xml');
  t.is(second!.cacheControl, IMMUTABLE);
  t.not(second!.etag, first!.etag);
});

contract('delete removes the object; deleting a missing object is not an error', async (t, store) => {
  const key = freshKey();
  await store.put(key, 'x', { contentType: 'text/plain', cacheControl: 'no-cache' });
  await store.delete(key);
  t.is(await store.get(key), null);
  await t.notThrowsAsync(store.delete(key));
  await t.notThrowsAsync(store.delete(freshKey()));
  await store.put(key, 'back', { contentType: 'text/plain', cacheControl: 'no-cache' });
  t.is((await store.get(key))!.body.toString(), 'back');
});

contract(
  "copy gives the target the source's body and headers, replaces an existing target, and leaves the source alone",
  async (t, store, kind) => {
    const [src, dst] = [freshKey('prepared/a.json'), freshKey('bundles/2025.01.31.1/a.json')];
    await store.put(src, '{"copied":true}', { contentType: JSON_TYPE, cacheControl: IMMUTABLE });
    await store.put(dst, 'stale', { contentType: 'text/plain', cacheControl: 'no-cache' });
    await store.copy(src, dst);
    const copied = await store.get(dst);
    t.is(copied!.body.toString(), '{"copied":true}');
    t.is(copied!.contentType, JSON_TYPE);
    t.is(copied!.cacheControl, IMMUTABLE);
    t.is(copied!.etag, expectedEtag(kind, copied!.body));
    await store.delete(src);
    t.is((await store.get(dst))!.body.toString(), '{"copied":true}', 'the copy outlives its source');
    await t.throwsAsync(store.copy(freshKey('missing'), freshKey('target')));
  },
);

contract('deleteTree removes every object under the prefix and nothing beside it', async (t, store) => {
  const base = freshKey('prepared');
  const opts = { contentType: 'text/plain', cacheControl: IMMUTABLE };
  const inside = [`${base}/tok/a.json`, `${base}/tok/deep/b.xml`];
  const beside = [`${base}/tok2/a.json`, `${base}/tokx`];
  for (const k of [...inside, ...beside]) await store.put(k, k, opts);
  await store.deleteTree(`${base}/tok`);
  for (const k of inside) t.is(await store.get(k), null, k);
  for (const k of beside) t.is((await store.get(k))!.body.toString(), k, k);
  await t.notThrowsAsync(store.deleteTree(`${base}/missing`));
});

contract('a missing object is null, including keys under or above an existing one', async (t, store) => {
  const key = freshKey('bundles/2025.01.31.1/en.0123456789abcdef.json');
  t.is(await store.get(key), null);
  await store.put(key, '{}', { contentType: JSON_TYPE, cacheControl: IMMUTABLE });
  t.is(await store.get(`${key}/deeper`), null, 'a key below an object');
  t.is(await store.get(key.slice(0, key.lastIndexOf('/'))), null, 'a key that is a folder of objects');
});

contract('the ETag is the same for equal bodies and differs for different bodies', async (t, store) => {
  const [a, b, c] = [freshKey(), freshKey(), freshKey()];
  const opts = { contentType: JSON_TYPE, cacheControl: MANIFEST_CACHE };
  await store.put(a, '{"v":1}', opts);
  await store.put(b, Buffer.from('{"v":1}'), { contentType: 'text/plain', cacheControl: 'no-store' });
  await store.put(c, '{"v":2}', opts);
  const [ea, eb, ec] = await Promise.all([a, b, c].map(async (k) => (await store.get(k))!.etag));
  t.is(ea, eb);
  t.not(ea, ec);
  await store.put(a, '{"v":1}', opts);
  t.is((await store.get(a))!.etag, ea, 'rewriting the same bytes keeps the ETag');
});

contract('binary bodies round-trip byte for byte, empty ones too', async (t, store, kind) => {
  const all = Buffer.alloc(256 * 4);
  for (let i = 0; i < all.length; i++) all[i] = i % 256;
  const big = Buffer.concat([all, randomBytes(300_000)]);
  for (const body of [all, big, Buffer.alloc(0)]) {
    const key = freshKey('bundles/2025.01.31.1/blob.0123456789abcdef.bin');
    await store.put(key, body, { contentType: 'application/octet-stream', cacheControl: IMMUTABLE });
    const obj = await store.get(key);
    t.is(obj!.body.length, body.length);
    t.true(obj!.body.equals(body));
    t.is(obj!.etag, expectedEtag(kind, body));
  }
});

// Only the folder store makes this guarantee itself (temp file + rename). On S3 it is the service's
// (PutObject is atomic); s3rver writes in place, so concurrent puts to one key can tear there.
test('folder: concurrent overwrites leave one whole object', async (t) => {
  const store = stores.folder;
  const key = freshKey();
  const bodies = Array.from({ length: 16 }, (_, i) => Buffer.alloc(64 * 1024, 0x41 + i));
  await Promise.all(
    bodies.map((b) => store.put(key, b, { contentType: 'application/octet-stream', cacheControl: 'no-cache' })),
  );
  const last = await store.get(key);
  t.true(bodies.some((b) => b.equals(last!.body)));
});

// s3rver writes objects in place (real S3 never shows a partial PutObject), so what a reader sees during
// overwrites, and whether the headers are the same writer's as the body, can only be checked on the folder.
test('folder: readers during concurrent overwrites only see whole objects, with the ETag of the bytes read', async (t) => {
  const store = stores.folder;
  const key = freshKey();
  const bodies = Array.from({ length: 16 }, (_, i) => Buffer.alloc(64 * 1024 + i * 1000, 0x41 + i));
  const typeOf = (b: Buffer) => `application/x-writer-${b[0] - 0x41}`;
  await store.put(key, bodies[0], { contentType: typeOf(bodies[0]), cacheControl: 'no-cache' });
  const isWhole = (b: Buffer) => bodies.some((c) => c.equals(b));
  let reads = 0;
  let writing = true;
  const reader = (async () => {
    while (writing) {
      const obj = await store.get(key);
      t.truthy(obj, 'an overwritten object never disappears');
      t.true(isWhole(obj!.body), `read ${reads}: a torn body of ${obj!.body.length} bytes`);
      t.is(obj!.etag, bodyEtag(obj!.body));
      reads++;
    }
  })();
  await Promise.all(bodies.map((b) => store.put(key, b, { contentType: typeOf(b), cacheControl: 'no-cache' })));
  writing = false;
  await reader;
  const last = await store.get(key);
  t.true(isWhole(last!.body));
  t.is(last!.contentType, typeOf(last!.body), "the headers are the same writer's as the body");
  t.true(reads > 0);
});

contract('keys that could escape the layout are refused', async (t, store) => {
  const opts = { contentType: 'text/plain', cacheControl: 'no-cache' };
  for (const key of [
    '',
    '../x',
    'v1/../../x',
    'a//b',
    '/a',
    'a/',
    './a',
    'a/.hidden',
    'a/b c',
    'a\\b',
    'a/x.meta.json',
  ]) {
    await t.throwsAsync(store.put(key, 'x', opts), { message: /Invalid object key/ }, JSON.stringify(key));
    await t.throwsAsync(store.get(key), { message: /Invalid object key/ }, JSON.stringify(key));
  }
});

test('folder: objects are plain files with a sidecar, and no temp file is left behind', async (t) => {
  const store = stores.folder as FolderStore;
  const key = freshKey('bundles/2025.01.31.1/fr.0123456789abcdef.json');
  await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      store.put(key, `{"n":${i}}`, { contentType: JSON_TYPE, cacheControl: IMMUTABLE }),
    ),
  );
  const dir = path.join(store.root, ...key.split('/').slice(0, -1));
  t.deepEqual(readdirSync(dir).sort(), ['fr.0123456789abcdef.json', 'fr.0123456789abcdef.json.meta.json']);
});

test('s3: objects live under the prefix, with the headers S3 serves to a CDN', async (t) => {
  const key = freshKey();
  await stores.s3.put(key, '{"m":1}', { contentType: JSON_TYPE, cacheControl: MANIFEST_CACHE });
  const raw = await s3Client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `tenant/a/${key}` }));
  t.is(await raw.Body!.transformToString(), '{"m":1}');
  t.is(raw.ContentType, JSON_TYPE);
  t.is(raw.CacheControl, MANIFEST_CACHE);
});

test('s3: a missing bucket is an error, not a missing object', async (t) => {
  const store = new S3Store(s3Client, 'no-such-bucket');
  await t.throwsAsync(store.get('v1/projects/p/manifest'));
});

test('OBJECT_STORE chooses the store; anything else is a clear startup error', async (t) => {
  t.deepEqual(parseObjectStoreUrl('file:///srv/objects'), { kind: 'file', root: '/srv/objects' });
  t.deepEqual(parseObjectStoreUrl('file://data/objects'), { kind: 'file', root: path.resolve('data/objects') });
  t.deepEqual(parseObjectStoreUrl('s3://bucket'), { kind: 's3', bucket: 'bucket', prefix: '' });
  t.deepEqual(parseObjectStoreUrl('s3://my.bucket/a/b/'), { kind: 's3', bucket: 'my.bucket', prefix: 'a/b' });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'glossa-cfg-'));
  try {
    const folder = await createObjectStore(loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: 'x' }));
    t.true(folder instanceof FolderStore);
    t.is((folder as FolderStore).root, path.join(dataDir, 'objects'));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const s3store = await createObjectStore(
    loadConfig({ OBJECT_STORE: 's3://b/p', S3_ENDPOINT: 'http://127.0.0.1:9', ADMIN_TOKEN: 'x' }),
  );
  t.true(s3store instanceof S3Store);
  t.like(s3store, { bucket: 'b', prefix: 'p/' });
  (s3store as S3Store).client.destroy();
  for (const url of [
    '/srv/objects',
    'http://bucket/x',
    'gs://bucket',
    's3://',
    's3:///prefix',
    'file://',
    's3://b/../x',
    'S3://b',
  ]) {
    await t.throwsAsync(
      async () => createObjectStore(loadConfig({ OBJECT_STORE: url, ADMIN_TOKEN: 'x' })),
      { message: /OBJECT_STORE/ },
      url,
    );
  }
});

test.serial(
  "s3: createObjectStore reaches the bucket with S3_* settings and the SDK's credential variables",
  async (t) => {
    const env = s3.env('from-config');
    const saved = { ...process.env };
    // The SDK reads credentials from the process environment, not from Config.
    process.env.AWS_ACCESS_KEY_ID = env.AWS_ACCESS_KEY_ID;
    process.env.AWS_SECRET_ACCESS_KEY = env.AWS_SECRET_ACCESS_KEY;
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    try {
      const store = (await createObjectStore(loadConfig({ ...env, ADMIN_TOKEN: 'x' }))) as S3Store;
      const key = freshKey();
      await store.put(key, 'hello', { contentType: 'text/plain; charset=utf-8', cacheControl: 'no-cache' });
      t.is((await store.get(key))!.body.toString(), 'hello');
      const raw = await s3Client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `from-config/${key}` }));
      t.is(await raw.Body!.transformToString(), 'hello');
      store.client.destroy();
    } finally {
      for (const k of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  },
);

// ---------------------------------------------------------------- delivery origin handlers over each store

const ctxFor = (objects: ObjectStore, params: Record<string, string>, headers: Record<string, string> = {}) =>
  ({ app: { objects }, params, query: {}, request: { headers }, dryRun: false }) as unknown as RawCtx;

/** Calls a delivery handler directly, outside the pipeline, with a hand-built context (only what they read). */
const call = async (h: Handler<'getManifest'> | Handler<'getBundle'>, ctx: RawCtx): Promise<Reply> =>
  (h as unknown as RawHandler)(ctx);

test('etagMatches follows If-None-Match: lists, W/ on either side, *, unquoted tags', (t) => {
  const tag = '"abc123"';
  for (const h of ['"abc123"', 'W/"abc123"', '"x", "abc123"', '"x",W/"abc123" ', '*', 'abc123', ['"x"', '"abc123"']])
    t.true(etagMatches(h, tag), String(h));
  for (const h of [undefined, '', '"abc12"', '"abc1234"', '"x", "y"', 'W/"x"']) t.false(etagMatches(h, tag), String(h));
  t.true(etagMatches('"abc123"', 'W/"abc123"'));
});

for (const kind of KINDS) {
  test(`${kind}: getManifest serves the stored manifest, 304 on a matching If-None-Match, 404 when missing`, async (t) => {
    const store = stores[kind];
    const projectId = `p_${randomBytes(4).toString('hex')}`;
    await t.throwsAsync(call(getManifest, ctxFor(store, { projectId })), {
      instanceOf: ApiError,
      message: /No published version/,
    });
    const body = JSON.stringify({ projectId, versionId: '2025.01.31.1' });
    await store.put(objectKeys.manifest(projectId), body, { contentType: JSON_TYPE, cacheControl: MANIFEST_CACHE });
    const ok = await call(getManifest, ctxFor(store, { projectId }));
    t.is(ok.status, 200);
    t.is(ok.type, JSON_TYPE);
    t.is(Buffer.from(ok.body as Buffer).toString(), body);
    t.is(ok.headers!['Cache-Control'], MANIFEST_CACHE);
    const etag = ok.headers!.ETag;
    t.regex(etag, /^"[0-9a-f]+"$/);
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const nm = await call(getManifest, ctxFor(store, { projectId }, { 'if-none-match': inm }));
      t.is(nm.status, 304);
      t.is(nm.body, undefined);
      t.deepEqual(nm.headers, { ETag: etag, 'Cache-Control': MANIFEST_CACHE });
    }
    const stale = await call(getManifest, ctxFor(store, { projectId }, { 'if-none-match': '"stale"' }));
    t.is(stale.status, 200);
    const err = await t.throwsAsync(call(getManifest, ctxFor(store, { projectId: '..' })), { instanceOf: ApiError });
    t.is(err.status, 404);
  });

  test(`${kind}: getBundle serves immutable objects and refuses path tricks with 404`, async (t) => {
    const store = stores[kind];
    const projectId = `p_${randomBytes(4).toString('hex')}`;
    const file = 'android_xml.fr.0cc175b9c0f1b6a8.xml';
    await store.put(objectKeys.bundle(projectId, '2025.01.31.1', file), '<resources/>', {
      contentType: 'application/xml',
      cacheControl: 'whatever',
    });
    await store.put(objectKeys.manifest(projectId), '{}', { contentType: JSON_TYPE, cacheControl: MANIFEST_CACHE });
    const ok = await call(getBundle, ctxFor(store, { projectId, versionId: '2025.01.31.1', file }));
    t.is(ok.status, 200);
    t.is(ok.type, 'application/xml');
    t.is(Buffer.from(ok.body as Buffer).toString(), '<resources/>');
    t.is(ok.headers!['Cache-Control'], IMMUTABLE);
    const nm = await call(
      getBundle,
      ctxFor(store, { projectId, versionId: '2025.01.31.1', file }, { 'if-none-match': ok.headers!.ETag }),
    );
    t.is(nm.status, 304);
    t.is(nm.body, undefined);
    const tricks: Record<string, string>[] = [
      { projectId, versionId: '2025.01.31.2', file },
      { projectId, versionId: '..', file: 'manifest' },
      { projectId, versionId: '2025.01.31.1', file: '..%2Fmanifest' },
      { projectId, versionId: '2025.01.31.1', file: '../manifest' },
      { projectId, versionId: '2025.01.31.1/..', file },
      { projectId: '..', versionId: '2025.01.31.1', file },
      { projectId, versionId: '2025.01.31.1', file: `${file}.meta.json` },
      { projectId, versionId: '2025.01.31.1', file: `.${file}.0011223344556677.tmp` },
    ];
    for (const params of tricks) {
      const err = await t.throwsAsync(
        call(getBundle, ctxFor(store, params)),
        { instanceOf: ApiError },
        JSON.stringify(params),
      );
      t.is(err.status, 404);
      t.is(err.code, 'not_found');
    }
  });
}
