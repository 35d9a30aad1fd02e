// Puts a version's rendered objects into the object store: staged under a token (a prepared publish's, or a
// publish's own while it renders: publish/stream.ts), then copied under the version's id when it is minted.
import pLimit from 'p-limit';
import { manifestFor, type DeliveryIndex, type StagedObject } from '../../../packages/core/src/delivery.js';
import { IMMUTABLE, objectKeys, type ObjectStore } from '../../infra/objects.js';

/** Writes and copies in flight at once: their waits on the disk or the network overlap. */
const IN_FLIGHT = 8;

const all = (tasks: Array<() => Promise<void>>, inFlight = IN_FLIGHT) => {
  const limit = pLimit(inFlight);
  return Promise.all(tasks.map((task) => limit(task)));
};

/** Writes rendered objects under a staging token, for a mint to copy. */
export async function writeStaged(
  objects: ObjectStore,
  projectId: string,
  token: string,
  staged: StagedObject[],
  inFlight = IN_FLIGHT,
): Promise<void> {
  await all(
    staged.map(
      (o) => () =>
        objects.put(objectKeys.prepared(projectId, token, o.file), o.body, {
          contentType: o.contentType,
          cacheControl: IMMUTABLE,
        }),
    ),
    inFlight,
  );
}

export async function deleteStaged(objects: ObjectStore, projectId: string, token: string): Promise<void> {
  await objects.deleteTree(objectKeys.preparedTree(projectId, token));
}

/** Objects staged under a token, and their index. */
export interface StagedDelivery {
  token: string;
  index: DeliveryIndex;
}

/**
 * Copies a version's staged objects under its id, in parallel, and returns the manifest that names them. The
 * manifest is not written here: it may only name a committed version (server/domain/publish/manifest.ts writes it).
 */
export async function writeDelivery(
  objects: ObjectStore,
  projectId: string,
  versionId: string,
  snapshotAt: number,
  staged: StagedDelivery,
): Promise<string> {
  await all(
    staged.index.objects.map(
      (o) => () =>
        objects.copy(
          objectKeys.prepared(projectId, staged.token, o.file),
          objectKeys.bundle(projectId, versionId, o.file),
        ),
    ),
  );
  return manifestFor(projectId, versionId, snapshotAt, staged.index);
}
