// The live content of a project as the publisher reads it: keys, cells and synced file meta from the database,
// turned into the publisher's plain snapshot types (packages/core/src/snapshot.ts).
import type { Catalog, FormatId } from '../../../packages/core/src/catalog.js';
import {
  catalogKey,
  snapshotCatalog,
  type CatalogMeta,
  type Snapshot,
  type SnapshotCell,
  type SnapshotKey,
} from '../../../packages/core/src/snapshot.js';
import type { Db } from '../../infra/db.js';
import { parseJson } from '../../infra/db.js';
import type { KeyRow } from '../../infra/tables.js';

/** Every enabled, non-captured key and its stored cells, as they are now. `cell` decides what enters. */
async function readLive(db: Db, projectId: string) {
  const project = await db('projects').where({ id: projectId }).first('base_lang');
  const languages = (
    await db('project_languages')
      .where({ project_id: projectId })
      .whereNull('removed_at')
      .orderBy('code')
      .select('code')
  ).map((r) => r.code);
  const keys = await db('keys')
    .where({ project_id: projectId, enabled: true, captured: false })
    .orderBy('id')
    .select('id', 'name', 'file_key', 'comment', 'meta', 'ctx', 'source', 'forms', 'namespace');
  const rows = await db('translations')
    .where({ project_id: projectId })
    .whereIn('lang', languages)
    .select('key_id', 'lang', 'value', 'status', 'origin', 'job_id');
  const catalogs = await catalogMetas(db, projectId);
  return { baseLang: project!.base_lang, languages, keys, rows, catalogs };
}

/** The synced files' meta of a project, by snapshot.ts `catalogKey` (format, and namespace when it is a named one). */
export async function catalogMetas(db: Db, projectId: string): Promise<Record<string, CatalogMeta>> {
  return Object.fromEntries(
    (await db('project_catalogs').where({ project_id: projectId }).select('format', 'namespace', 'meta')).map((r) => [
      catalogKey(r.format, r.namespace ?? ''),
      parseJson<CatalogMeta>(r.meta, {}),
    ]),
  );
}

export function toSnapshotKey(
  k: Pick<KeyRow, 'name' | 'file_key' | 'comment' | 'meta' | 'ctx' | 'source' | 'forms' | 'namespace'>,
  cells: Record<string, SnapshotCell>,
): SnapshotKey {
  return {
    name: k.name,
    fileKey: k.file_key ?? null,
    comment: k.comment ?? null,
    meta: parseJson<SnapshotKey['meta']>(k.meta, null),
    ctx: k.ctx ?? null,
    source: k.source,
    forms: parseJson<SnapshotKey['forms']>(k.forms, null),
    cells,
    // Only a named namespace is written: a snapshot of a project without any is byte for byte what it was.
    ...(k.namespace ? { namespace: k.namespace } : {}),
  };
}

/**
 * Every stored cell of the project that has a value, ungated (what a sync put in, for comparing round trips; what
 * the key list's `warnings` filter renders).
 */
export async function liveSnapshot(db: Db, projectId: string): Promise<Snapshot> {
  const live = await readLive(db, projectId);
  const cells = new Map<number, Record<string, SnapshotCell>>();
  for (const r of live.rows) {
    if (r.status === 'pending' || r.value == null) continue;
    const id = Number(r.key_id);
    cells.set(id, { ...(cells.get(id) ?? {}), [r.lang]: { value: r.value, status: r.status } });
  }
  return {
    baseLang: live.baseLang,
    languages: live.languages,
    keys: live.keys.map((k) => toSnapshotKey(k, cells.get(Number(k.id)) ?? {})),
    catalogs: live.catalogs,
  };
}

/** A project's live state as a catalog of one format (what a sync put in, rendered back). */
export async function liveCatalog(db: Db, projectId: string, format: FormatId, languages?: string[]): Promise<Catalog> {
  return snapshotCatalog(await liveSnapshot(db, projectId), format, languages);
}
