// The object store behind publishing and delivery: a folder (embedded default) or an S3 bucket (any
// S3-compatible store). Objects are written whole; a reader sees either the old or the new object.
import { createHash, randomBytes } from 'node:crypto';
import { copyFile, link, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** Bytes checked when they were written (delivery objects, read back from the object store), answered as they are. */
export type Bytes = Buffer & { readonly __bytes: true };
export const bytes = (body: Buffer): Bytes => body as Bytes;

export interface StoredObject {
  body: Buffer;
  contentType: string;
  cacheControl: string;
  /** Strong ETag of the body (quoted). */
  etag: string;
}

export interface PutOptions {
  contentType: string;
  cacheControl: string;
}

export interface ObjectStore {
  put(key: string, body: Buffer | string, opts: PutOptions): Promise<void>;
  /** Null when the object does not exist. */
  get(key: string): Promise<StoredObject | null>;
  delete(key: string): Promise<void>;
  /** Copies an object, headers included, within the store (the source must exist). */
  copy(from: string, to: string): Promise<void>;
  /** Deletes every object whose key starts with `prefix/`. */
  deleteTree(prefix: string): Promise<void>;
}

/** Object keys: one layout for the folder, the bucket and the CDN in front of it. */
export const objectKeys = {
  manifest: (projectId: string) => `v1/projects/${projectId}/manifest`,
  bundle: (projectId: string, versionId: string, file: string) =>
    `v1/projects/${projectId}/bundles/${versionId}/${file}`,
  /** A prepared publish's objects (publish/prepare.ts): unpublished content, outside the delivered `v1/` tree. */
  prepared: (projectId: string, token: string, file: string) => `prepared/${projectId}/${token}/${file}`,
  preparedTree: (projectId: string, token: string) => `prepared/${projectId}/${token}`,
};

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const MANIFEST_CACHE = 'public, max-age=60, must-revalidate';

/**
 * `mkdir -p`. Node's recursive mkdir answers ENOENT when a missing level cannot be made (on a read-only file system,
 * test/e2e/full-disk.test.ts): then each level is made in turn, so the error is the real cause (EROFS), which a
 * publish answers as 503 (db.ts `isStoreRefusal`).
 */
async function makeDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOENT') throw err;
    const levels: string[] = [];
    for (let d = dir; path.dirname(d) !== d; d = path.dirname(d)) levels.unshift(d);
    for (const d of levels) {
      try {
        await mkdir(d);
      } catch (e) {
        if ((e as { code?: string }).code !== 'EEXIST') throw e;
      }
    }
  }
}

// The folder store keeps an object's headers beside it under this suffix; reserving it in every store keeps
// one key layout valid everywhere, so a folder can be copied into a bucket (or back) as it is.
const META_SUFFIX = '.meta.json';

/**
 * True when `s` can be one segment of a key. No leading dot: that rules out `.` and `..` and keeps the folder
 * store's temp files (`.<name>.<random>.tmp`) out of reach of any key built from request input.
 */
export function isSafeSegment(s: string): boolean {
  return s.length <= MAX_SEGMENT && /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(s) && !s.endsWith(META_SUFFIX);
}

/**
 * Every file system the folder store may sit on takes names of 255 bytes; a segment of 200 leaves room for the
 * sidecar suffix and the temp name (`.<name>.<16 hex>.tmp`), so no key built from a request can fail with
 * ENAMETOOLONG. Nothing we write comes near it (the longest is `<format>.<lang>.<hash16>.<ext>`).
 */
const MAX_SEGMENT = 200;

function isValidKey(key: string): boolean {
  return key.length > 0 && key.length <= 1024 && key.split('/').every(isSafeSegment);
}

export function assertKey(key: string): void {
  if (!isValidKey(key))
    throw new Error(
      `Invalid object key ${JSON.stringify(key)}: segments of [A-Za-z0-9._-], none starting with a dot or ending in ${META_SUFFIX}`,
    );
}

/** The folder store's ETag: a quoted hex prefix of the body's SHA-256 (128 bits: collisions are not a concern). */
export function bodyEtag(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
}

export const toBuffer = (body: Buffer | string) => (typeof body === 'string' ? Buffer.from(body, 'utf8') : body);

const isMissing = (err: unknown) =>
  ['ENOENT', 'ENOTDIR', 'EISDIR', 'ENAMETOOLONG'].includes((err as NodeJS.ErrnoException)?.code ?? '');

/**
 * Temp file in the target's own folder (rename is only atomic within one file system), synced before the rename
 * so a crash cannot leave an empty file under the real name.
 */
async function writeAtomic(file: string, data: Buffer): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(8).toString('hex')}.tmp`);
  try {
    const fh = await open(tmp, 'wx');
    try {
      await fh.writeFile(data);
      await fh.datasync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/**
 * `dst` becomes a second name of `src` (the same bytes, written once), or a copy where the file system has no
 * hard links; through a temp name, so an existing `dst` is replaced whole. Sound because no object is ever
 * rewritten in place: a put renames a new file over the old name.
 */
async function linkAtomic(src: string, dst: string): Promise<void> {
  const tmp = path.join(path.dirname(dst), `.${path.basename(dst)}.${randomBytes(8).toString('hex')}.tmp`);
  try {
    await link(src, tmp).catch(async (err) => {
      if (!['EXDEV', 'EPERM', 'ENOTSUP', 'EMLINK'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
      await copyFile(src, tmp);
    });
    await rename(tmp, dst);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/**
 * Objects as plain files under `root` (the key's segments are folders), each with its content type and cache
 * control in `<file>.meta.json`. Put writes the sidecar first and the body second, delete removes the body first:
 * a body on disk therefore always has its sidecar, and a body without one is treated as absent. The ETag is
 * derived from the body read, so it always describes the bytes returned. Writes to one key are serialized within
 * the process so concurrent puts cannot pair one writer's body with another's headers; across processes sharing
 * the folder, the body is still always whole but its headers may be the other writer's until the next put.
 */
export class FolderStore implements ObjectStore {
  readonly root: string;
  private readonly tails = new Map<string, Promise<void>>();

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  private file(key: string): string {
    assertKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  private serial(key: string, fn: () => Promise<void>): Promise<void> {
    const run = (this.tails.get(key) ?? Promise.resolve()).then(fn);
    const tail = run.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return run;
  }

  async put(key: string, body: Buffer | string, opts: PutOptions): Promise<void> {
    const file = this.file(key);
    const data = toBuffer(body);
    const meta = Buffer.from(JSON.stringify({ contentType: opts.contentType, cacheControl: opts.cacheControl }));
    await this.serial(key, async () => {
      await makeDir(path.dirname(file));
      await writeAtomic(file + META_SUFFIX, meta);
      await writeAtomic(file, data);
    });
  }

  async get(key: string): Promise<StoredObject | null> {
    const file = this.file(key);
    let body: Buffer;
    let meta: { contentType?: unknown; cacheControl?: unknown };
    try {
      body = await readFile(file);
      meta = JSON.parse(await readFile(file + META_SUFFIX, 'utf8')) as typeof meta;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    return {
      body,
      contentType: typeof meta.contentType === 'string' ? meta.contentType : 'application/octet-stream',
      cacheControl: typeof meta.cacheControl === 'string' ? meta.cacheControl : '',
      etag: bodyEtag(body),
    };
  }

  async delete(key: string): Promise<void> {
    const file = this.file(key);
    await this.serial(key, async () => {
      await rm(file, { force: true });
      await rm(file + META_SUFFIX, { force: true });
    });
  }

  async deleteTree(prefix: string): Promise<void> {
    await rm(this.file(prefix), { recursive: true, force: true });
  }

  async copy(from: string, to: string): Promise<void> {
    const src = this.file(from);
    const dst = this.file(to);
    await this.serial(to, async () => {
      await makeDir(path.dirname(dst));
      await linkAtomic(src + META_SUFFIX, dst + META_SUFFIX);
      await linkAtomic(src, dst);
    });
  }
}

type ObjectStoreLocation = { kind: 'file'; root: string } | { kind: 's3'; bucket: string; prefix: string };

/**
 * `file://<path>` (the rest taken literally as a path, relative to the working folder unless absolute:
 * `file:///srv/objects`, `file://./data/objects`) or `s3://bucket[/prefix]`.
 */
export function parseObjectStoreUrl(url: string): ObjectStoreLocation {
  const hint = 'use file://<folder> or s3://<bucket>[/<prefix>]';
  if (url.startsWith('file://')) {
    const root = url.slice('file://'.length);
    if (!root) throw new Error(`OBJECT_STORE ${JSON.stringify(url)} names no folder: ${hint}`);
    return { kind: 'file', root: path.resolve(root) };
  }
  const m = /^s3:\/\/([^/]*)(?:\/(.*))?$/.exec(url);
  if (m) {
    const bucket = m[1];
    if (!/^[A-Za-z0-9._-]+$/.test(bucket))
      throw new Error(`OBJECT_STORE ${JSON.stringify(url)} has no valid bucket name: ${hint}`);
    const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
    if (prefix && prefix.split('/').some((s) => !isSafeSegment(s))) {
      throw new Error(
        `OBJECT_STORE ${JSON.stringify(url)}: the prefix must be segments of [A-Za-z0-9._-], none starting with a dot`,
      );
    }
    return { kind: 's3', bucket, prefix };
  }
  throw new Error(`OBJECT_STORE ${JSON.stringify(url)} is not supported: ${hint}`);
}
