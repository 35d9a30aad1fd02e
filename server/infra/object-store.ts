// Which object store the configuration names (OBJECT_STORE): objects.ts's folder, or objects-s3.ts's bucket.
import type { Config } from './config.js';
import { FolderStore, parseObjectStoreUrl, type ObjectStore } from './objects.js';

/**
 * The store `config.objectStore` names. The S3 store's module (and the AWS SDK under it, about a megabyte of code)
 * is loaded only when a bucket is configured: a service on a folder never parses it.
 */
export async function createObjectStore(config: Config): Promise<ObjectStore> {
  const loc = parseObjectStoreUrl(config.objectStore);
  if (loc.kind === 'file') return new FolderStore(loc.root);
  const { s3Store } = await import('./objects-s3.js');
  return s3Store(config.s3, loc.bucket, loc.prefix);
}
