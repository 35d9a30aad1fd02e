// A project's live state as a catalog of one format (what a sync put in, rendered back).
import type { Db } from '../handlers/platform/db.js';
import type { Catalog, FormatId } from './catalog.js';
import { liveSnapshot, snapshotCatalog } from './snapshot.js';

export async function liveCatalog(db: Db, projectId: string, format: FormatId, languages?: string[]): Promise<Catalog> {
  return snapshotCatalog(await liveSnapshot(db, projectId), format, languages);
}
