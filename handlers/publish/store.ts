// Puts a version's rendered objects into the object store: under a prepared token (publish/prepare.ts), or under
// the version's id at publish, by copying a prepared set or writing a fresh render.
import pLimit from 'p-limit';
import { manifestFor, type DeliveryIndex, type RenderedDelivery } from '../../publisher/delivery.js';
import { IMMUTABLE, objectKeys, type ObjectStore } from '../platform/objects.js';

/** Writes and copies in flight at once: their waits on the disk or the network overlap. */
const IN_FLIGHT = 8;

const all = (tasks: Array<() => Promise<void>>) => {
  const limit = pLimit(IN_FLIGHT);
  return Promise.all(tasks.map((task) => limit(task)));
};

/** Writes a rendered version's objects under the prepared token (publish/prepare.ts), for a publish to copy. */
export async function writePrepared(
  objects: ObjectStore,
  projectId: string,
  token: string,
  r: RenderedDelivery,
): Promise<void> {
  await all(
    r.objects.map(
      (o) => () =>
        objects.put(objectKeys.prepared(projectId, token, o.file), o.body, {
          contentType: o.contentType,
          cacheControl: IMMUTABLE,
        }),
    ),
  );
}

export async function deletePrepared(objects: ObjectStore, projectId: string, token: string): Promise<void> {
  await objects.deleteTree(objectKeys.preparedTree(projectId, token));
}

/** A version's objects: rendered for it, or a prepared publish's, already in the store under its token. */
type DeliverySource = { rendered: RenderedDelivery } | { prepared: { token: string; index: DeliveryIndex } };

/**
 * Writes a version's immutable objects under its id, in parallel, and returns the manifest that names them. The
 * manifest is not written here: it may only name a committed version (handlers/publish/manifest.ts writes it).
 */
export async function writeDelivery(
  objects: ObjectStore,
  projectId: string,
  versionId: string,
  snapshotAt: number,
  source: DeliverySource,
): Promise<string> {
  const target = (file: string) => objectKeys.bundle(projectId, versionId, file);
  const r: DeliveryIndex = 'rendered' in source ? source.rendered : source.prepared.index;
  await all(
    'rendered' in source
      ? source.rendered.objects.map(
          (o) => () => objects.put(target(o.file), o.body, { contentType: o.contentType, cacheControl: IMMUTABLE }),
        )
      : source.prepared.index.objects.map(
          (o) => () => objects.copy(objectKeys.prepared(projectId, source.prepared.token, o.file), target(o.file)),
        ),
  );
  return manifestFor(projectId, versionId, snapshotAt, r);
}
