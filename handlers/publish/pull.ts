// Version file pulls: GET /translations?version=...&format=...&lang=... (spec: `getTranslations`) returns a published
// version as one file: the object its publish stored when it rendered that format, else rendered from its snapshot
// after the same collision check a publish runs.
import type { FormatId } from '../../publisher/catalog.js';
import { findCollisions } from '../../publisher/collisions.js';
import { own } from '../../publisher/catalog.js';
import { renderFile, type ManifestObject } from '../../publisher/delivery.js';
import { bcp47 } from '../../publisher/languages.js';
import { REGISTRY } from '../../publisher/formats/index.js';
import type { Snapshot } from '../../publisher/snapshot.js';
import { normalizeLanguage } from '../config/languages.js';
import type { ProjectRow, VersionRow } from '../platform/tables.js';
import { parseJson, type Db } from '../platform/db.js';
import { bytes, type Bytes } from '../platform/contract.js';
import { objectKeys, type ObjectStore } from '../platform/objects.js';
import { conflict, invalidArgument, notFound } from '../platform/errors.js';
import { loadSnapshot, projectFormats, resolveVersion } from './versions.js';

export function collisionCheck(snapshot: Snapshot, formats: FormatId[]) {
  const groups = findCollisions(snapshot, formats);
  if (groups.length)
    throw conflict('export_collision', 'Keys collapse to one name in a configured output format.', { groups });
}

/** The `Content-Disposition` of a pulled file: its platform path as the file name (RFC 6266, with RFC 5987 for non-ASCII). */
function disposition(path: string): string {
  const ascii = path.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(path)}`;
}

/**
 * The object the version's publish rendered for this pull, when it rendered that format (its manifest, kept on the
 * version row, names it with its warning count): a pull then returns the stored bytes instead of reading the whole
 * version to render them again. Versions published before files carried their count render as before.
 */
async function storedFile(
  objects: ObjectStore,
  projectId: string,
  v: VersionRow,
  format: FormatId,
  lang: string,
  companion: boolean,
): Promise<{ body: Buffer; warnings: number } | null> {
  if (!v.manifest) return null;
  const manifest = JSON.parse(v.manifest) as { files?: Record<string, Record<string, ManifestObject>> };
  const file = own(own(manifest.files, format), bcp47(lang));
  const target = companion ? file?.stringsdict : file;
  if (!target || typeof target.warnings !== 'number') return null;
  const prefix = `bundles/${v.id}/`;
  if (!target.url.startsWith(prefix)) return null;
  const stored = await objects.get(objectKeys.bundle(projectId, v.id, target.url.slice(prefix.length)));
  return stored && { body: stored.body, warnings: target.warnings };
}

/** GET /translations?version=...&format=...&lang=...: a published version as a file, stored or rendered. */
export async function pullVersionFile(
  db: Db,
  objects: ObjectStore,
  project: ProjectRow,
  query: { version: string; format?: string; lang?: string; part?: 'strings' | 'stringsdict' },
) {
  const v = await resolveVersion(db, project, query.version);
  const formats = await projectFormats(db, project);
  const format = (query.format ?? formats[0]) as FormatId | undefined;
  if (!format) throw invalidArgument('Name a format: the project has no output formats configured.');
  if (query.part === 'stringsdict' && format !== 'ios_strings')
    throw invalidArgument('part=stringsdict is a part of the ios_strings format only.');
  if (!REGISTRY[format].multiLanguage && query.lang === undefined)
    throw invalidArgument('lang is required for this format.');
  // The version row names its languages; the snapshot is read only when the file must be rendered.
  let snapshot: Snapshot | undefined;
  const refs = parseJson<Array<{ code: string; isBase: boolean }>>(v.languages, []);
  let baseLang = refs.find((r) => r.isBase)?.code;
  let langs = refs.map((r) => r.code);
  if (baseLang === undefined) {
    snapshot = await loadSnapshot(db, project.id, v.id);
    baseLang = snapshot.baseLang;
    langs = [snapshot.baseLang, ...snapshot.languages];
  }
  const lang = query.lang !== undefined ? normalizeLanguage(query.lang) : baseLang;
  if (!langs.includes(lang)) throw notFound(`Version ${v.id} has no ${lang}.`);
  const info = REGISTRY[format];
  const companion = query.part !== undefined && query.part !== 'strings' ? info.companion : undefined;
  const stored = await storedFile(objects, project.id, v, format, lang, companion !== undefined);
  let body: string | Bytes;
  let warnings: number;
  if (stored) {
    body = bytes(stored.body);
    warnings = stored.warnings;
  } else {
    snapshot ??= await loadSnapshot(db, project.id, v.id);
    collisionCheck(snapshot, [format]);
    const file = renderFile(snapshot, format, lang, companion !== undefined);
    body = file.body;
    warnings = file.warnings.length;
  }
  return {
    body,
    type: companion?.contentType ?? info.contentType,
    headers: {
      'Cache-Control': 'private, max-age=60',
      'Content-Disposition': disposition(companion?.path(lang) ?? info.path(lang, lang === baseLang)),
      'Glossa-Format-Warnings': String(warnings),
    },
  };
}
