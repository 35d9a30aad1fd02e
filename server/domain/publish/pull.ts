// Version file pulls: GET /translations?version=...&format=...&lang=... (spec: `getTranslations`) returns a published
// version as one file: the object its publish stored when it rendered that format, else rendered from its snapshot
// after the same collision check a publish runs. Without `lang` (a format of one file per language): every language of
// the version in one zip archive, each file at its platform path (bulk export).
import { createRequire } from 'node:module';
import type { Zippable } from 'fflate';
import pLimit from 'p-limit';
import type { FormatId } from '../../../packages/core/src/catalog.js';
import { own } from '../../../packages/core/src/catalog.js';
import type { ManifestObject } from '../../../packages/core/src/delivery.js';
import { bcp47 } from '../../../packages/core/src/languages.js';
import { REGISTRY } from '../../../packages/core/src/formats/index.js';
import { normalizeLanguage } from '../project/languages.js';
import type { ProjectRow, VersionRow } from '../../infra/tables.js';
import { parseJson } from '../../infra/db.js';
import { bytes, type Bytes } from '../../infra/objects.js';
import { objectKeys, type ObjectStore } from '../../infra/objects.js';
import { invalidArgument, notFound } from '../../infra/errors.js';
import { openVersion, type StoredSnapshot } from './parts-store.js';
import { runTask, threadsFor } from './pool.js';
import { refuseCollisions, type PublishEnv } from './stream.js';
import { projectFormats, resolveVersion } from './versions.js';

// Loaded on first use, not by every process that imports this module (docs/decisions/0035-modules-loaded-on-first-use.md).
const require = createRequire(import.meta.url);

/**
 * The object the version's publish rendered for this pull, when it rendered that format (its manifest, kept on the
 * version row, names it with its warning count): a pull then returns the stored bytes instead of reading the whole
 * version to render them again. Versions published before files carried their count render as before.
 */
type Files = { files?: Record<string, Record<string, ManifestObject>> };

async function storedFile(
  objects: ObjectStore,
  projectId: string,
  v: VersionRow,
  format: FormatId,
  lang: string,
  companion: boolean,
  namespace: string,
): Promise<{ body: Buffer; warnings: number } | null> {
  if (!v.manifest) return null;
  const manifest = JSON.parse(v.manifest) as Files & { namespaces?: Record<string, Files> };
  const files = namespace ? own(manifest.namespaces, namespace)?.files : manifest.files;
  const file = own(own(files, format), bcp47(lang));
  const target = companion ? file?.stringsdict : file;
  if (!target || typeof target.warnings !== 'number') return null;
  const prefix = `bundles/${v.id}/`;
  if (!target.url.startsWith(prefix)) return null;
  const stored = await objects.get(objectKeys.bundle(projectId, v.id, target.url.slice(prefix.length)));
  return stored && { body: stored.body, warnings: target.warnings };
}

/**
 * Renders one file of a stored snapshot from the language it is for (every language for a file that holds them
 * all), after the collision check a publish of that format would run on those cells.
 */
async function renderStored(
  env: PublishEnv,
  s: StoredSnapshot,
  format: FormatId,
  lang: string,
  companion: boolean,
  namespace: string,
) {
  if (namespace && !s.head.keys.some((k) => k.namespace === namespace))
    throw notFound(`The version has no namespace ${namespace}.`);
  if (REGISTRY[format].multiLanguage) {
    const parts: Record<string, string> = {};
    for (const l of s.head.languages) parts[l] = (await s.part(l))!;
    return runTask(threadsFor(env, s.head.keys.length), 'renderWhole', { head: s.ref, parts, format, namespace });
  }
  const part = lang === s.head.baseLang ? null : await s.part(lang);
  const out = await runTask(threadsFor(env, s.head.keys.length), 'renderFile', {
    head: s.ref,
    lang,
    part,
    formats: [format],
    companion,
    namespace,
  });
  refuseCollisions(out.collisions);
  return out.file!;
}

/** Files of one bulk export read or rendered at once. */
const BULK_READS = 6;

function toBytes(body: string | Bytes): Uint8Array {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

/** A pulled file: its bytes, content type, the name a download saves it under, and its format warnings. */
interface PulledFile {
  body: string | Bytes;
  contentType: string;
  fileName: string;
  warnings: number;
}

/** GET /translations?version=...&format=...&lang=...: a published version as a file, stored or rendered. */
export async function pullVersionFile(
  env: PublishEnv,
  project: ProjectRow,
  query: { version: string; format?: string; lang?: string; part?: 'strings' | 'stringsdict'; namespace?: string },
): Promise<PulledFile> {
  const { db, objects } = env;
  const namespace = query.namespace ?? '';
  const v = await resolveVersion(db, project, query.version);
  // A version whose manifest names its namespaces answers for one it lacks before anything is read or rendered.
  if (
    namespace &&
    v.manifest &&
    !own((JSON.parse(v.manifest) as { namespaces?: Record<string, unknown> }).namespaces, namespace)
  )
    throw notFound(`Version ${v.id} has no namespace ${namespace}.`);
  // The project's first format when the pull names none (reading every version's formats).
  const format = (query.format ?? (await projectFormats(db, project))[0]) as FormatId | undefined;
  if (!format) throw invalidArgument('Name a format: the project has no output formats configured.');
  if (query.part === 'stringsdict' && format !== 'ios_strings')
    throw invalidArgument('part=stringsdict is a part of the ios_strings format only.');
  // The version row names its languages; the snapshot is read only when the file must be rendered.
  let snapshot: StoredSnapshot | undefined;
  const refs = parseJson<Array<{ code: string; isBase: boolean }>>(v.languages, []);
  let baseLang = refs.find((r) => r.isBase)?.code;
  let langs = refs.map((r) => r.code);
  if (baseLang === undefined) {
    snapshot = await openVersion(db, project.id, v.id);
    baseLang = snapshot.head.baseLang;
    langs = [snapshot.head.baseLang, ...snapshot.head.languages];
  }
  const info = REGISTRY[format];
  let opening: Promise<StoredSnapshot> | undefined;
  /** One language's file (or its companion): the stored object, else rendered from the snapshot. */
  const fileOf = async (lang: string, companion: boolean): Promise<{ body: string | Bytes; warnings: number }> => {
    const stored = await storedFile(objects, project.id, v, format, lang, companion, namespace);
    if (stored) return { body: bytes(stored.body), warnings: stored.warnings };
    // One read of the snapshot for every file a bulk export renders at once.
    opening ??= snapshot ? Promise.resolve(snapshot) : openVersion(db, project.id, v.id);
    return renderStored(env, await opening, format, lang, companion, namespace);
  };
  if (query.lang === undefined && !info.multiLanguage) {
    // Bulk export: each language's file at its platform path, base first, in one archive. `part` picks one of
    // the two files of ios_strings; without it both are in.
    const entries: Zippable = {};
    let warnings = 0;
    const mtime = new Date(Number(v.snapshot_at));
    const wanted: Array<{ name: string; lang: string; companion: boolean }> = [];
    for (const lang of langs) {
      if (query.part !== 'stringsdict')
        wanted.push({ name: info.path(lang, lang === baseLang), lang, companion: false });
      if (info.companion && query.part !== 'strings')
        wanted.push({ name: info.companion.path(lang), lang, companion: true });
    }
    // Several object reads (or renders, on the pool) at once; the entries keep the languages' order.
    const limit = pLimit(BULK_READS);
    const files = await Promise.all(wanted.map((w) => limit(() => fileOf(w.lang, w.companion))));
    for (const [i, w] of wanted.entries()) {
      entries[w.name] = [toBytes(files[i].body), { mtime }];
      warnings += files[i].warnings;
    }
    const name = `${project.id}-${v.id}-${format}${namespace ? `-${namespace}` : ''}${query.part === 'stringsdict' ? '-stringsdict' : ''}.zip`;
    return {
      body: bytes(Buffer.from((require('fflate') as typeof import('fflate')).zipSync(entries, { level: 6 }))),
      contentType: 'application/zip',
      fileName: name,
      warnings,
    };
  }
  const lang = query.lang !== undefined ? normalizeLanguage(query.lang) : baseLang;
  if (!langs.includes(lang)) throw notFound(`Version ${v.id} has no ${lang}.`);
  const companion = query.part !== undefined && query.part !== 'strings' ? info.companion : undefined;
  const { body, warnings } = await fileOf(lang, companion !== undefined);
  return {
    body,
    contentType: companion?.contentType ?? info.contentType,
    fileName: companion?.path(lang) ?? info.path(lang, lang === baseLang),
    warnings,
  };
}
