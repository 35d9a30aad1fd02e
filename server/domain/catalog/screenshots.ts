// Screenshots of where a key is shown (migration 036, spec/internal.yaml `internalAddKeyScreenshot`): context for
// the people translating it (the key editor draws the marked region over the image) and for an engine that takes
// images (the fill sends a key's first screenshot with it, server/domain/fill/fill.ts). Images live in the object
// store; their type and size are read from their bytes by image-size, never taken from a name or a header, and only
// PNG, JPEG and WebP are kept: the dashboard serves them back as images, so anything a browser could run (SVG,
// HTML) never gets in.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Db } from '../../infra/db.js';
import { conflict, invalidArgument, notFound, Refusal } from '../../infra/errors.js';
import type { ItemScreenshot } from '../../infra/engines/types.js';
import type { ObjectStore } from '../../infra/objects.js';

// Loaded on first use, not by every process that imports this module (docs/decisions/0035-modules-loaded-on-first-use.md).
const require = createRequire(import.meta.url);

/** Screenshots one key takes (`409 too_many_screenshots`). */
const MAX_PER_KEY = 10;
/** The largest image kept, in bytes, and its largest side, in pixels. */
const MAX_BYTES = 2 * 1024 * 1024;
const MAX_SIDE = 8000;

const TYPES = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' } as const;
type ImageType = (typeof TYPES)[keyof typeof TYPES];

interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface ScreenshotRow {
  id: number;
  key_id: number | string;
  object_key: string;
  content_type: string;
  width: number;
  height: number;
  bytes: number;
  region_x: number | null;
  region_y: number | null;
  region_w: number | null;
  region_h: number | null;
  added_by: string;
  created_at: number | string;
}

interface KeyScreenshot {
  id: number;
  contentType: ImageType;
  width: number;
  height: number;
  bytes: number;
  region: Region | null;
  addedBy: string;
  createdAt: string;
}

const regionOf = (r: ScreenshotRow): Region | null =>
  r.region_x == null || r.region_y == null || r.region_w == null || r.region_h == null
    ? null
    : { x: Number(r.region_x), y: Number(r.region_y), width: Number(r.region_w), height: Number(r.region_h) };

const toScreenshot = (r: ScreenshotRow): KeyScreenshot => ({
  id: Number(r.id),
  contentType: r.content_type as ImageType,
  width: Number(r.width),
  height: Number(r.height),
  bytes: Number(r.bytes),
  region: regionOf(r),
  addedBy: r.added_by,
  createdAt: new Date(Number(r.created_at)).toISOString(),
});

/** The image's type and size from its bytes, or a refusal saying why it is not one this service keeps. */
function readImage(data: Buffer): { contentType: ImageType; width: number; height: number } {
  if (data.length > MAX_BYTES) throw invalidArgument(`The image is larger than ${MAX_BYTES / 1024 / 1024} MiB.`);
  let size: { type?: string; width?: number; height?: number };
  try {
    size = (require('image-size') as typeof import('image-size')).imageSize(data);
  } catch {
    throw invalidArgument('The file is not an image this service reads (PNG, JPEG or WebP).');
  }
  const contentType = TYPES[size.type as keyof typeof TYPES];
  if (!contentType) throw invalidArgument(`A screenshot is a PNG, JPEG or WebP image, not ${size.type ?? 'this'}.`);
  const { width, height } = size;
  if (!width || !height) throw invalidArgument('The image has no size.');
  if (width > MAX_SIDE || height > MAX_SIDE)
    throw invalidArgument(`The image is ${width}×${height}; a side may be at most ${MAX_SIDE} pixels.`);
  return { contentType, width, height };
}

/** Base64 as JSON carries it: refused unless it is only the base64 alphabet (padding at the end). */
export function decodeImage(base64: string): Buffer {
  const compact = base64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1)
    throw invalidArgument('image must be the file in base64.');
  return Buffer.from(compact, 'base64');
}

export async function listScreenshots(db: Db, keyId: number): Promise<KeyScreenshot[]> {
  const rows = await db('key_screenshots').where({ key_id: keyId }).orderBy('id').limit(MAX_PER_KEY);
  return (rows as ScreenshotRow[]).map(toScreenshot);
}

export async function addScreenshot(
  db: Db,
  objects: ObjectStore,
  projectId: string,
  keyId: number,
  addedBy: string,
  input: { data: Buffer; region?: Region },
  now = Date.now(),
): Promise<KeyScreenshot> {
  const image = readImage(input.data);
  const r = input.region;
  if (r && (r.x + r.width > image.width || r.y + r.height > image.height))
    throw invalidArgument(`The region must lie inside the ${image.width}×${image.height} image.`);
  const objectKey = `screenshots/${projectId}/${keyId}-${randomBytes(12).toString('hex')}`;
  // The image first: a row never names an object that is not there. Refused after it, the object goes again.
  await objects.put(objectKey, input.data, { contentType: image.contentType, cacheControl: 'private, max-age=3600' });
  try {
    const id = await db.transaction(async (trx) => {
      const [{ n }] = await trx('key_screenshots')
        .where({ key_id: keyId })
        .count<Array<{ n: number | string }>>({ n: '*' });
      if (Number(n) >= MAX_PER_KEY)
        throw conflict('too_many_screenshots', `This key has ${MAX_PER_KEY} screenshots; nothing was added.`);
      const [inserted] = await trx('key_screenshots').insert({
        project_id: projectId,
        key_id: keyId,
        object_key: objectKey,
        content_type: image.contentType,
        width: image.width,
        height: image.height,
        bytes: input.data.length,
        region_x: r?.x ?? null,
        region_y: r?.y ?? null,
        region_w: r?.width ?? null,
        region_h: r?.height ?? null,
        added_by: addedBy,
        created_at: now,
      });
      return Number(inserted);
    });
    return toScreenshot((await db('key_screenshots').where({ id }).first()) as ScreenshotRow);
  } catch (err) {
    await objects.delete(objectKey).catch(() => undefined);
    throw err;
  }
}

async function rowOf(db: Db, keyId: number, id: number): Promise<ScreenshotRow> {
  const row = (await db('key_screenshots').where({ id, key_id: keyId }).first()) as ScreenshotRow | undefined;
  if (!row) throw notFound('No such screenshot of this key.');
  return row;
}

export async function readScreenshot(
  db: Db,
  objects: ObjectStore,
  keyId: number,
  id: number,
): Promise<{ body: Buffer; contentType: ImageType }> {
  const row = await rowOf(db, keyId, id);
  const object = await objects.get(row.object_key);
  if (!object) throw notFound('The screenshot image is missing from the object store.');
  return { body: object.body, contentType: row.content_type as ImageType };
}

/** Removes a screenshot of the key: by whoever added it, or by anyone `mayDeleteOthers` (an owner). */
export async function deleteScreenshot(
  db: Db,
  objects: ObjectStore,
  keyId: number,
  id: number,
  by: string,
  mayDeleteOthers: boolean,
): Promise<void> {
  const row = await rowOf(db, keyId, id);
  if (row.added_by !== by && !mayDeleteOthers)
    throw new Refusal('forbidden', 'Only whoever added a screenshot, or an owner, may remove it.');
  await db('key_screenshots').where({ id: row.id }).del();
  // After the row: a failed delete leaves an object nothing names, never a row naming nothing.
  await objects.delete(row.object_key).catch(() => undefined);
}

/**
 * What an engine that takes images receives with a key: each key's first screenshot (by key id), read from the
 * object store, at most `limit` keys' images.
 */
export async function firstScreenshots(
  db: Db,
  objects: ObjectStore,
  keyIds: number[],
  limit: number,
): Promise<Map<number, ItemScreenshot>> {
  const out = new Map<number, ItemScreenshot>();
  if (!keyIds.length) return out;
  const rows = (await db('key_screenshots')
    .whereIn('id', db('key_screenshots').min('id').whereIn('key_id', keyIds).groupBy('key_id'))
    .orderBy('id')
    .limit(limit)) as ScreenshotRow[];
  for (const row of rows) {
    const object = await objects.get(row.object_key);
    if (!object) continue;
    out.set(Number(row.key_id), {
      contentType: row.content_type,
      data: object.body,
      width: Number(row.width),
      height: Number(row.height),
      region: regionOf(row),
    });
  }
  return out;
}
