// A project's memory settings (migration 027, internalUpdateProject) and which memory it reads and writes.
import type { ProjectRow } from '../../infra/tables.js';
import { bool } from '../../infra/db.js';

/**
 * `shared`: the project reads and adds to its workspace's memory, which every shared project of the workspace
 * pools; `isolated`: it keeps a memory of its own, which no other project reads and which reads no other; `off`:
 * it reads and writes no memory at all (what it wrote before stays in its own memory, as an isolated project's).
 */
export type Sharing = 'shared' | 'isolated' | 'off';

interface MemorySettings {
  sharing: Sharing;
  /** A match of 100 or 101 fills a pair at no charge before the AI fill is planned. */
  preTranslate: boolean;
  /** The least score of a fuzzy match the engine gets as a reference. */
  threshold: number;
}

const DEFAULT_THRESHOLD = 75;

type SettingsRow = Pick<ProjectRow, 'memory_sharing' | 'memory_pretranslate' | 'memory_threshold'>;

export function memorySettings(p: SettingsRow): MemorySettings {
  const sharing = p.memory_sharing === 'isolated' || p.memory_sharing === 'off' ? p.memory_sharing : 'shared';
  return {
    sharing,
    preTranslate: p.memory_pretranslate === undefined ? true : bool(p.memory_pretranslate),
    threshold: p.memory_threshold == null ? DEFAULT_THRESHOLD : Number(p.memory_threshold),
  };
}

/** The memory a project with `sharing` belongs to: its workspace's shared one, or its own. */
export const scopeFor = (p: Pick<ProjectRow, 'id' | 'workspace_id'>, sharing: Sharing): string =>
  sharing === 'shared' ? p.workspace_id : p.id;

/** The memory the project reads and writes now; null when its memory is off. */
export function memoryScope(p: Pick<ProjectRow, 'id' | 'workspace_id'> & SettingsRow): string | null {
  const { sharing } = memorySettings(p);
  return sharing === 'off' ? null : scopeFor(p, sharing);
}
