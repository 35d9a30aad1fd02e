// A project's versions, newest first, as the dashboard (internalListVersions) and API keys (listVersions) read them.
import { parseJson, type Db } from '../../infra/db.js';
import type { ProjectRow } from '../../infra/tables.js';

const VERSIONS_LISTED = 200;

export async function listProjectVersions(db: Db, project: ProjectRow) {
  const rows = await db('versions')
    .where({ project_id: project.id })
    .orderBy('day', 'desc')
    .orderBy('seq', 'desc')
    .limit(VERSIONS_LISTED + 1)
    .select('id', 'label', 'snapshot_at', 'key_count', 'languages', 'formats', 'restored_from');
  const current = project.current_version;
  return {
    currentVersion: current,
    truncated: rows.length > VERSIONS_LISTED,
    versions: rows.slice(0, VERSIONS_LISTED).map((v) => ({
      versionId: v.id,
      label: v.label,
      snapshotAt: new Date(Number(v.snapshot_at)).toISOString(),
      keyCount: Number(v.key_count),
      languages: parseJson<Array<{ code: string }>>(v.languages, []).map((l) => l.code),
      formats: parseJson<string[]>(v.formats, []),
      restoredFrom: v.restored_from,
      current: v.id === current,
    })),
  };
}
