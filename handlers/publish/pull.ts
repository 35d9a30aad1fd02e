// Version file pulls: GET /translations?version=...&format=...&lang=... (spec: `getTranslations`) renders a published
// version as one file, after the same collision check a publish runs.
import type { FormatId } from '../../publisher/catalog.js';
import { findCollisions } from '../../publisher/collisions.js';
import { renderFile } from '../../publisher/delivery.js';
import { REGISTRY } from '../../publisher/formats/index.js';
import type { Snapshot } from '../../publisher/snapshot.js';
import { normalizeLanguage } from '../config/languages.js';
import type { ProjectRow } from '../platform/tables.js';
import type { Db } from '../platform/db.js';
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

/** GET /translations?version=...&format=...&lang=...: a published version rendered as a file. */
export async function pullVersionFile(
  db: Db,
  project: ProjectRow,
  query: { version: string; format?: string; lang?: string; part?: 'strings' | 'stringsdict' },
) {
  const v = await resolveVersion(db, project, query.version);
  const snapshot = await loadSnapshot(db, project.id, v.id);
  const formats = await projectFormats(db, project);
  const format = (query.format ?? formats[0]) as FormatId | undefined;
  if (!format) throw invalidArgument('Name a format: the project has no output formats configured.');
  if (query.part === 'stringsdict' && format !== 'ios_strings')
    throw invalidArgument('part=stringsdict is a part of the ios_strings format only.');
  if (!REGISTRY[format].multiLanguage && query.lang === undefined)
    throw invalidArgument('lang is required for this format.');
  const lang = query.lang !== undefined ? normalizeLanguage(query.lang) : snapshot.baseLang;
  if (lang !== snapshot.baseLang && !snapshot.languages.includes(lang))
    throw notFound(`Version ${v.id} has no ${lang}.`);
  collisionCheck(snapshot, [format]);
  const info = REGISTRY[format];
  const companion = query.part !== undefined && query.part !== 'strings' ? info.companion : undefined;
  const file = renderFile(snapshot, format, lang, companion !== undefined);
  return {
    body: file.body,
    type: companion?.contentType ?? info.contentType,
    headers: {
      'Cache-Control': 'private, max-age=60',
      'Content-Disposition': disposition(companion?.path(lang) ?? info.path(lang, lang === snapshot.baseLang)),
      'Glossa-Format-Warnings': String(file.warnings.length),
    },
  };
}
