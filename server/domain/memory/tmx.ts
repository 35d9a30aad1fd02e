// A memory as a TMX file and back (spec: exportMemory, importMemory; docs/guides/memory.md "TMX"; the file format is
// packages/core/src/formats/tmx.ts, docs/decisions/0022-tmx.md). Export streams the memory one page of entries at a
// time (entries.ts pageEntries), so a million entries are never one string. Import parses the file on a thread of
// its own (tmx-pool.ts), refuses it before anything is written, then adds its pairs as entries (entries.ts
// addEntries, origin `import`, no key): never cells.
import { tmxStream, TMX_MAX_BYTES, type TmxEntry } from '../../../packages/core/src/formats/tmx.js';
import type { Db } from '../../infra/db.js';
import { retryContended } from '../../infra/db.js';
import { invalidArgument, Refusal } from '../../infra/errors.js';
import { listLanguages } from '../project/projects.js';
import { addEntries, pageEntries, type EntryStatus, type MemoryProject, type NewEntry } from './entries.js';
import { memorySettings } from './settings.js';
import { parseTmxOffThread } from './tmx-pool.js';

/** The most pairs one import takes: a 50 MB file of short UI strings, written in a minute or so. */
const TMX_MAX_PAIRS = 250_000;

/**
 * Pairs per transaction of an import: short transactions (tens of milliseconds), with a turn of the event loop
 * between them, so pushes and saves interleave with a large import. On SQLite every statement runs synchronously
 * (better-sqlite3) and a transaction's awaits are microtasks only, so without the turn nothing else would run
 * until the whole file was written.
 */
const WRITE_SLICE = 200;

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const STATUSES: readonly string[] = ['translated', 'reviewed', 'approved'];

/** The entries of `scope` (`memory`: the memory the project uses; `project`: what it wrote or imported), in order. */
async function* entriesOf(db: Db, p: MemoryProject, scope: 'memory' | 'project'): AsyncGenerator<TmxEntry> {
  const of =
    scope === 'memory' && memorySettings(p).sharing === 'shared' ? { workspaceId: p.workspace_id } : { project: p };
  let cursor: string | null = null;
  do {
    const page = await pageEntries(db, of, cursor);
    for (const e of page.entries)
      yield {
        sourceLanguage: e.sourceLang,
        targetLanguage: e.targetLang,
        source: e.source,
        target: e.target,
        ctx: e.ctx,
        key: e.key,
        project: e.projectId,
        origin: e.origin,
        status: e.status,
        updatedAt: e.updatedAt,
      };
    cursor = page.next;
  } while (cursor);
}

/** The export as chunks of TMX text (about 64 KB each), read from the database as they are sent. */
export function exportTmx(db: Db, p: MemoryProject, scope: 'memory' | 'project' = 'memory'): AsyncGenerator<string> {
  return tmxStream({ sourceLanguage: p.base_lang }, entriesOf(db, p, scope));
}

interface TmxImportRequest {
  contentBase64: string;
  scope?: 'project' | 'workspace';
  status?: EntryStatus;
}

/** Reads a TMX file into the memory (importMemory). Throws a Refusal, having written nothing, for a refused file. */
export async function importTmx(db: Db, p: MemoryProject, req: TmxImportRequest) {
  const scope = req.scope ?? 'project';
  if (scope === 'workspace' && memorySettings(p).sharing !== 'shared')
    throw invalidArgument(
      `scope: this project's memory is ${memorySettings(p).sharing}, so it may not import into the workspace's shared memory.`,
    );
  const targets = scope === 'project' ? (await listLanguages(db, p.id)).map((l) => l.code) : undefined;
  const { out, pairs } = await parseTmxOffThread({
    contentBase64: req.contentBase64,
    maxBytes: TMX_MAX_BYTES,
    maxEntries: TMX_MAX_PAIRS,
    sourceLanguage: p.base_lang,
    targetLanguages: targets,
  });
  if (out.refused) throw new Refusal(out.refused.code, out.refused.message);
  if (!pairs.length && out.skipped.length)
    throw new Refusal(
      'language_mismatch',
      `The file holds no pair from ${p.base_lang} into ${scope === 'project' ? 'a language of this project' : 'another language'}; it holds ${out.skipped
        .slice(0, 10)
        .map((s) => `${s.sourceLanguage} → ${s.targetLanguage} (${s.count})`)
        .join(', ')}.`,
    );
  const entries: NewEntry[] = pairs.map((e) => ({
    sourceLang: e.sourceLanguage,
    targetLang: e.targetLanguage,
    source: e.source,
    target: e.target,
    ctx: e.ctx,
    status: req.status ?? (e.status && STATUSES.includes(e.status) ? (e.status as EntryStatus) : 'translated'),
  }));
  const into = scope === 'workspace' ? { workspaceId: p.workspace_id } : { project: p };
  const counts = { added: 0, updated: 0, unchanged: 0 };
  const now = Date.now();
  for (let i = 0; i < entries.length; i += WRITE_SLICE) {
    const part = entries.slice(i, i + WRITE_SLICE);
    const c = await retryContended(() => db.transaction((trx) => addEntries(trx, into, part, now)));
    counts.added += c.added;
    counts.updated += c.updated;
    counts.unchanged += c.unchanged;
    await yieldTurn();
  }
  return {
    units: out.units,
    entries: out.entries,
    ...counts,
    empty: out.empty,
    skipped: out.skipped.map((s) => ({ sourceLang: s.sourceLanguage, targetLang: s.targetLanguage, count: s.count })),
    creationTool: out.creationTool,
  };
}
