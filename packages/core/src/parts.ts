// A snapshot stored in parts: a head (the keys, their sources and the synced file meta) and one part per language
// (that language's cells, aligned with the head's keys). A publish, a restore and a pull then hold the keys and one
// language at a time, never the whole project: the memory a large project needs grows with its keys, not with keys
// times languages. Parts are addressed by content: a language whose cells did not change is stored once.
import { createHash } from 'node:crypto';
import type { Snapshot, SnapshotCell, SnapshotKey } from './snapshot.js';

export type KeyHead = Omit<SnapshotKey, 'cells'>;

/** What a snapshot holds besides its cells; `parts` names each target language's part by its digest. */
export interface SnapshotHead extends Omit<Snapshot, 'keys'> {
  keys: KeyHead[];
  parts: Record<string, string>;
  /** The digest of everything but the parts: two heads with the same render each language alike from the same part. */
  keysDigest?: string;
}

/** One cell of a part: value and status, and how it entered when that matters to rendering or restoring. */
export type PartCell = [value: string, status: string] | [value: string, status: string, how: 'fallback' | 'imported'];

/** A language's cells, one per head key (null: the key has none in that language). */
export type Part = Array<PartCell | null>;

export const digestOf = (body: string) => createHash('sha256').update(body).digest('hex');

function partCell(c: SnapshotCell): PartCell {
  if (c.fallback) return [c.value, c.status, 'fallback'];
  if (c.imported) return [c.value, c.status, 'imported'];
  return [c.value, c.status];
}

function snapshotCell(p: PartCell): SnapshotCell {
  const cell: SnapshotCell = { value: p[0], status: p[1] };
  if (p[2] === 'fallback') cell.fallback = true;
  else if (p[2] === 'imported') cell.imported = true;
  return cell;
}

/**
 * The snapshot of one language: the head's keys with that language's cells (none for the base language, whose
 * text is the source), what every per-language file and bundle renders from. The keys are not copied: each head
 * key's cells are set to this language's, in place. For a head owned by one synchronous render at a time (a
 * worker's parsed copy, server/domain/publish/tasks.ts); the snapshot is valid until the next call on the same head.
 */
export function languageSnapshotInPlace(head: SnapshotHead, lang: string, part: Part | null): Snapshot {
  const keys = head.keys as SnapshotKey[];
  const none: Record<string, SnapshotCell> = {};
  for (let i = 0; i < keys.length; i++) {
    const c = part?.[i];
    keys[i].cells = c ? { [lang]: snapshotCell(c) } : none;
  }
  return { baseLang: head.baseLang, languages: head.languages, keys, catalogs: head.catalogs };
}

/** The whole snapshot, every language's cells: only for files that hold every language (xcstrings). */
export function wholeSnapshot(head: SnapshotHead, parts: Record<string, Part>): Snapshot {
  const keys = head.keys.map((k, i) => {
    const cells: Record<string, SnapshotCell> = {};
    for (const lang of head.languages) {
      const c = parts[lang]?.[i];
      if (c) cells[lang] = snapshotCell(c);
    }
    return { ...k, cells };
  });
  return { baseLang: head.baseLang, languages: head.languages, keys, catalogs: head.catalogs };
}

/** Splits a whole snapshot (the stored form before parts) into a head and parts. */
export function splitSnapshot(s: Snapshot): { head: Omit<SnapshotHead, 'parts'>; parts: Record<string, Part> } {
  const parts: Record<string, Part> = {};
  for (const lang of s.languages) parts[lang] = s.keys.map((k) => (k.cells[lang] ? partCell(k.cells[lang]) : null));
  const keys = s.keys.map(({ cells: _cells, ...k }) => k);
  return { head: { baseLang: s.baseLang, languages: s.languages, keys, catalogs: s.catalogs }, parts };
}
