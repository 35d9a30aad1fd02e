// Bundles held in memory, shared by the bundle route (origin.routes.ts) and the answer sent before Hapi
// (memory.ts). Bundles never change once written (their names carry the version and a content hash), so keeping
// recent ones is correct in every process: no invalidation is ever needed. Bounded by total bytes.
import { LRUCache } from 'lru-cache';
import { objectKeys, type StoredObject } from '../../infra/objects.js';

const CACHE_BYTES = 64 * 1024 * 1024;
const immutable = new LRUCache<string, StoredObject>({
  maxSize: CACHE_BYTES,
  maxEntrySize: CACHE_BYTES / 8,
  sizeCalculation: (o) => Math.max(1, o.body.length),
});

/** A bundle held in memory, if it is; segments as the route's path gives them (already found safe). */
export const cachedBundle = (projectId: string, versionId: string, file: string): StoredObject | undefined =>
  immutable.get(objectKeys.bundle(projectId, versionId, file));

export const keepBundle = (projectId: string, versionId: string, file: string, obj: StoredObject): void => {
  immutable.set(objectKeys.bundle(projectId, versionId, file), obj);
};
