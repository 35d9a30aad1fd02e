// The delivery origin's object routes: the manifest (the only mutable object: short cache, revalidated by ETag)
// and the immutable bundles of published versions, both read from the object store and public.
import { hotRow } from '../platform/db.js';
import { ApiError } from '../platform/errors.js';
import { IMMUTABLE, MANIFEST_CACHE, isSafeSegment, objectKeys, type ObjectStore, type StoredObject } from '../platform/objects.js';
import type { Ctx, Handler, Reply } from '../platform/pipeline.js';

const store = (ctx: Ctx): ObjectStore => ctx.app.objects;

/**
 * If-None-Match uses the weak comparison (RFC 9110 13.1.2): `W/` is ignored on both sides. The header may be a
 * list, may repeat, and sloppy clients send tags unquoted, so each tag is normalized to its quoted form.
 */
export function etagMatches(header: unknown, etag: string): boolean {
  const value = Array.isArray(header) ? header.join(',') : typeof header === 'string' ? header : '';
  if (!value) return false;
  if (value.trim() === '*') return true;
  const opaque = (t: string) => {
    const bare = t.replace(/^W\//, '');
    return bare.startsWith('"') ? bare : `"${bare}"`;
  };
  const mine = opaque(etag);
  for (const m of value.matchAll(/(?:W\/)?(?:"[^"]*"|[^\s,"]+)/g)) {
    if (opaque(m[0]) === mine) return true;
  }
  return false;
}

function serve(ctx: Ctx, obj: StoredObject, cacheControl: string): Reply {
  const headers = { ETag: obj.etag, 'Cache-Control': cacheControl };
  if (etagMatches(ctx.request.headers['if-none-match'], obj.etag)) return { status: 304, headers };
  return { status: 200, body: obj.body, type: obj.contentType, headers };
}

const projectNotFound = () => new ApiError(404, 'not_found', 'No published version of this project.');

export const getManifest: Handler = (ctx) => manifestOf(ctx, String(ctx.params.projectId));

async function manifestOf(ctx: Ctx, projectId: string): Promise<Reply> {
  if (!isSafeSegment(projectId)) throw projectNotFound();
  const obj = await store(ctx).get(objectKeys.manifest(projectId));
  if (!obj) throw projectNotFound();
  return serve(ctx, obj, obj.cacheControl || MANIFEST_CACHE);
}

// Bundles never change once written (their names carry the version and a content hash), so keeping recent ones
// in memory is correct in every process: no invalidation is ever needed. Bounded by total bytes.
const immutable = new Map<string, StoredObject>();
const CACHE_BYTES = 64 * 1024 * 1024;
let cachedBytes = 0;

function remember(key: string, obj: StoredObject) {
  if (obj.body.length > CACHE_BYTES / 8) return;
  while (cachedBytes + obj.body.length > CACHE_BYTES && immutable.size) {
    const [oldest, old] = immutable.entries().next().value as [string, StoredObject];
    immutable.delete(oldest);
    cachedBytes -= old.body.length;
  }
  immutable.set(key, obj);
  cachedBytes += obj.body.length;
}

export const getBundle: Handler = (ctx) => bundleOf(ctx, String(ctx.params.projectId));

async function bundleOf(ctx: Ctx, projectId: string): Promise<Reply> {
  const segments = [projectId, ctx.params.versionId, ctx.params.file].map(String);
  // Request input becomes a key: anything that could climb out of the project's folder is simply not there.
  if (!segments.every(isSafeSegment)) throw new ApiError(404, 'not_found', 'No such bundle.');
  const key = objectKeys.bundle(segments[0], segments[1], segments[2]);
  let obj = immutable.get(key);
  if (!obj) {
    obj = (await store(ctx).get(key)) ?? undefined;
    if (!obj) throw new ApiError(404, 'not_found', 'No such bundle.');
    remember(key, obj);
  }
  // Bundles are named by content hash, so whatever the store holds, the answer may be cached forever.
  return serve(ctx, obj, IMMUTABLE);
}

/** The project whose custom domain (`deliveryHost`) the request came to; on it the project prefix is dropped. */
async function projectOfHost(ctx: Ctx): Promise<string> {
  const host = String(ctx.request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
  const row = host ? await hotRow<{ id: string }>(ctx.app.db, 'SELECT id FROM projects WHERE delivery_host = ? AND deleted_at IS NULL', [host]) : undefined;
  if (!row) throw new ApiError(404, 'not_found', 'No project is delivered from this domain.');
  return row.id;
}

export const getDomainManifest: Handler = async (ctx) => manifestOf(ctx, await projectOfHost(ctx));
export const getDomainBundle: Handler = async (ctx) => bundleOf(ctx, await projectOfHost(ctx));
