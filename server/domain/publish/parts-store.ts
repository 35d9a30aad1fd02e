// Snapshots in the database, in parts (packages/core/src/parts.ts; migration 009): the head in `snapshot_bodies` under the
// snapshot's digest, each language's part in `snapshot_parts` under its own, and which parts each head names in
// `snapshot_part_refs`. Snapshots stored whole before parts are read as they are.
import type { Snapshot } from '../../../packages/core/src/snapshot.js';
import { digestOf, splitSnapshot, type SnapshotHead } from '../../../packages/core/src/parts.js';
import type { Db } from '../../infra/db.js';
import type { HeadRef } from './tasks.js';

/** How long a part no head names is kept: a publish that stored it may still be on its way to minting. */
const PART_GRACE_MS = 60 * 60 * 1000;

/** Stores a language's part once per project and digest (a publish stores its parts before it decides to mint). */
export async function storePart(db: Db, projectId: string, digest: string, body: string, now: number): Promise<void> {
  // Most parts of a publish are stored already (unchanged languages): refreshed without sending their bodies again.
  const refreshed = await db('snapshot_parts').where({ project_id: projectId, digest }).update({ created_at: now });
  if (refreshed) return;
  await db('snapshot_parts')
    .insert({ project_id: projectId, digest, body, created_at: now })
    .onConflict(['project_id', 'digest'])
    // A part stored again is young again: the grace period runs from the last publish that needs it.
    .merge(['created_at']);
}

/** Stores a snapshot's head once per project and digest, with the parts it names. */
export async function storeHead(trx: Db, projectId: string, digest: string, body: string): Promise<void> {
  const stored = await trx('snapshot_bodies').where({ project_id: projectId, digest }).first('digest');
  if (stored) return;
  await trx('snapshot_bodies').insert({ project_id: projectId, digest, body });
  const head = JSON.parse(body) as Partial<SnapshotHead>;
  const parts = [...new Set(Object.values(head.parts ?? {}))];
  if (parts.length)
    await trx('snapshot_part_refs').insert(
      parts.map((part_digest) => ({ project_id: projectId, head_digest: digest, part_digest })),
    );
}

/** Deletes a head no version names (a replaced prepared publish's), and the parts only it named, once stale. */
export async function deleteHead(trx: Db, projectId: string, digest: string, now: number): Promise<void> {
  await trx('snapshot_bodies').where({ project_id: projectId, digest }).delete();
  await trx('snapshot_part_refs').where({ project_id: projectId, head_digest: digest }).delete();
  await collectParts(trx, projectId, now);
}

/** Deletes the project's parts that no head names and that no publish can still be minting from. */
export async function collectParts(db: Db, projectId: string, now: number): Promise<void> {
  await db('snapshot_parts')
    .where({ project_id: projectId })
    .andWhere('created_at', '<', now - PART_GRACE_MS)
    .whereNotExists((q) => {
      void q
        .select(db.raw('1'))
        .from('snapshot_part_refs as r')
        .where('r.project_id', projectId)
        .andWhereRaw('r.part_digest = snapshot_parts.digest');
    })
    .delete();
}

/** A stored snapshot, read a language at a time. */
export interface StoredSnapshot {
  head: SnapshotHead;
  ref: HeadRef;
  /** A target language's part as stored (null: not one of the snapshot's languages). */
  part(lang: string): Promise<string | null>;
}

/**
 * A snapshot whose parts are stored (its head need not be yet: a publish renders before it mints); `ref` is the head
 * the tasks parse (with or without its parts: they read the keys).
 */
export function storedSnapshot(db: Db, projectId: string, head: SnapshotHead, ref: HeadRef): StoredSnapshot {
  return {
    head,
    ref,
    async part(lang) {
      const partDigest = Object.hasOwn(head.parts, lang) ? head.parts[lang] : undefined;
      if (partDigest === undefined) return null;
      const p = await db('snapshot_parts').where({ project_id: projectId, digest: partDigest }).first('body');
      return p!.body;
    },
  };
}

/** The snapshot stored under `digest`: a head and its parts, or a whole one (stored before parts) split in memory. */
export async function openSnapshot(db: Db, projectId: string, digest: string): Promise<StoredSnapshot> {
  const row = await db('snapshot_bodies').where({ project_id: projectId, digest }).first('body');
  const stored = JSON.parse(row!.body) as SnapshotHead | Snapshot;
  if ('parts' in stored) return storedSnapshot(db, projectId, stored, { digest, body: row!.body });
  const { head: h, parts } = splitSnapshot(stored);
  const bodies = Object.fromEntries(Object.entries(parts).map(([lang, p]) => [lang, JSON.stringify(p)]));
  const head: SnapshotHead = {
    ...h,
    parts: Object.fromEntries(Object.entries(bodies).map(([l, b]) => [l, digestOf(b)])),
  };
  const headBody = JSON.stringify(head);
  return {
    head,
    ref: { digest: digestOf(headBody), body: headBody },
    part: (lang) => Promise.resolve(Object.hasOwn(bodies, lang) ? bodies[lang] : null),
  };
}

/** The snapshot of a version. */
export async function openVersion(db: Db, projectId: string, versionId: string): Promise<StoredSnapshot> {
  const v = await db('versions').where({ project_id: projectId, id: versionId }).first('digest');
  return openSnapshot(db, projectId, v!.digest);
}
