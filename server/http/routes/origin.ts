// The delivery origin's object routes: the manifest (the only mutable object: short cache, revalidated by ETag)
// and the immutable bundles of published versions, both read from the object store and public (cors.ts lets a
// browser app on any origin read them).
import type { App } from '../../infra/app.js';
import { cachedBundle, keepBundle } from '../../domain/delivery/bundles.js';
import { bytes, type Bytes } from '../../infra/objects.js';
import { hotRow } from '../../infra/db.js';
import { ApiError } from '../../infra/errors.js';
import { IMMUTABLE, MANIFEST_CACHE, isSafeSegment, objectKeys, type StoredObject } from '../../infra/objects.js';
import { etagMatches } from '../etag.js';
import { headerText, type Handler, type RequestView } from '../pipeline.js';

/** The two answers of every delivery object: the stored bytes, or 304 when the client holds them already. */
type ObjectReply =
  | { status: 200; body: Bytes; type: string; headers: Record<string, string> }
  | { status: 304; headers: Record<string, string> };

function serve(request: RequestView, obj: StoredObject, cacheControl: string): ObjectReply {
  const headers = { ETag: obj.etag, 'Cache-Control': cacheControl };
  if (etagMatches(request.headers['if-none-match'], obj.etag)) return { status: 304, headers };
  return { status: 200, body: bytes(obj.body), type: obj.contentType, headers };
}

const projectNotFound = () => new ApiError(404, 'not_found', 'No published version of this project.');

export const getManifest: Handler<'getManifest'> = (ctx) => manifestOf(ctx.app, ctx.request, ctx.params.projectId);

async function manifestOf(app: App, request: RequestView, projectId: string): Promise<ObjectReply> {
  if (!isSafeSegment(projectId)) throw projectNotFound();
  const obj = await app.objects.get(objectKeys.manifest(projectId));
  if (!obj) throw projectNotFound();
  return serve(request, obj, obj.cacheControl || MANIFEST_CACHE);
}

export const getBundle: Handler<'getBundle'> = (ctx) =>
  bundleOf(ctx.app, ctx.request, [ctx.params.projectId, ctx.params.versionId, ctx.params.file]);

async function bundleOf(app: App, request: RequestView, segments: string[]): Promise<ObjectReply> {
  // Request input becomes a key: anything that could climb out of the project's folder is simply not there.
  if (!segments.every(isSafeSegment)) throw new ApiError(404, 'not_found', 'No such bundle.');
  const [projectId, versionId, file] = segments;
  let obj = cachedBundle(projectId, versionId, file);
  if (!obj) {
    obj = (await app.objects.get(objectKeys.bundle(projectId, versionId, file))) ?? undefined;
    if (!obj) throw new ApiError(404, 'not_found', 'No such bundle.');
    keepBundle(projectId, versionId, file, obj);
  }
  // Bundles are named by content hash, so whatever the store holds, the answer may be cached forever.
  return serve(request, obj, IMMUTABLE);
}

/** The project whose custom domain (`deliveryHost`) the request came to; on it the project prefix is dropped. */
async function projectOfHost(app: App, request: RequestView): Promise<string> {
  const host = headerText(request.headers.host).replace(/:\d+$/, '').toLowerCase();
  const row = host
    ? await hotRow<{ id: string }>(app.db, 'SELECT id FROM projects WHERE delivery_host = ? AND deleted_at IS NULL', [
        host,
      ])
    : undefined;
  if (!row) throw new ApiError(404, 'not_found', 'No project is delivered from this domain.');
  return row.id;
}

export const getDomainManifest: Handler<'getDomainManifest'> = async (ctx) =>
  manifestOf(ctx.app, ctx.request, await projectOfHost(ctx.app, ctx.request));
export const getDomainBundle: Handler<'getDomainBundle'> = async (ctx) =>
  bundleOf(ctx.app, ctx.request, [await projectOfHost(ctx.app, ctx.request), ctx.params.versionId, ctx.params.file]);
