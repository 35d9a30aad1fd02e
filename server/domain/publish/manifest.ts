// The delivery manifest: the one mutable object, naming the project's current version. It is written only after
// the version's mint committed, from the copy the mint stored on the version row, so it can never name a version
// the database does not hold (a crash before the commit leaves the previous manifest; one after it leaves the
// manifest behind, and `repairManifests` catches it up). `projects.manifest_version` records what the store was
// last seen to hold.
import type { Db } from '../../infra/db.js';
import { MANIFEST_CACHE, objectKeys, type ObjectStore } from '../../infra/objects.js';

/**
 * Writes the project's current version's manifest, then reads the current version again: a mint that committed
 * meanwhile may have had its manifest overwritten by this older one, so the last writer always checks and goes
 * again. Whatever the interleaving, the store ends on the newest version.
 */
export async function writeManifest(db: Db, objects: ObjectStore, projectId: string): Promise<void> {
  for (;;) {
    const row = await db('projects as p')
      .join('versions as v', (j) => j.on('v.project_id', 'p.id').andOn('v.id', 'p.current_version'))
      .where('p.id', projectId)
      .first<{ id: string; manifest: string | null } | undefined>('p.current_version as id', 'v.manifest');
    // Versions minted before manifests were stored on the row: their manifest was written at their mint.
    if (!row?.manifest) return;
    await objects.put(objectKeys.manifest(projectId), row.manifest, {
      contentType: 'application/json; charset=utf-8',
      cacheControl: MANIFEST_CACHE,
    });
    const marked = await db('projects')
      .where({ id: projectId, current_version: row.id })
      .update({ manifest_version: row.id });
    if (marked === 1) return;
  }
}

/** Projects whose manifest in the store is not known to name their current version. */
async function staleManifests(db: Db, projectId?: string, limit = 100): Promise<string[]> {
  return db('projects')
    .where(projectId === undefined ? {} : { id: projectId })
    .whereNotNull('current_version')
    .whereNull('deleted_at')
    .andWhere((w) => {
      w.whereNull('manifest_version').orWhereRaw('manifest_version <> current_version');
    })
    .limit(limit)
    .pluck('id');
}

/** The sweep (and the start of every process): catches every manifest up with its project's current version. */
export async function repairManifests(
  db: Db,
  objects: ObjectStore,
  onError: (err: unknown, projectId: string) => void,
  /** That project's alone (run-due scoped to a project, server/infra/jobs.ts runDueForProject). */
  projectId?: string,
): Promise<number> {
  let repaired = 0;
  for (const id of await staleManifests(db, projectId)) {
    try {
      await writeManifest(db, objects, id);
      repaired++;
    } catch (err) {
      // The store still refuses: the next sweep tries again; one project's store trouble holds up no other.
      onError(err, id);
    }
  }
  return repaired;
}
