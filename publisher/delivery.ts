// Writes a version's delivery objects: every configured file format per language, one i18next bundle per
// language, and the manifest last, so a reader never sees a manifest naming a missing object.
import { createHash } from 'node:crypto';
import { IMMUTABLE, MANIFEST_CACHE, objectKeys, type ObjectStore } from '../handlers/platform/objects.js';
import type { FormatId } from './catalog.js';
import { getFormat } from './formats/index.js';
import { bundleFor } from './bundle.js';
import { snapshotCatalog, type Snapshot } from './snapshot.js';

export const CONTENT_TYPES: Record<FormatId, string> = {
  json: 'application/json; charset=utf-8',
  nested_json: 'application/json; charset=utf-8',
  angular_json: 'application/json; charset=utf-8',
  arb: 'application/json; charset=utf-8',
  xcstrings: 'application/json; charset=utf-8',
  ios_strings: 'text/plain; charset=utf-8',
  android_xml: 'application/xml; charset=utf-8',
  po: 'text/x-gettext-translation; charset=utf-8',
};

const EXTENSIONS: Record<FormatId, string> = {
  json: 'json', nested_json: 'json', angular_json: 'json', arb: 'arb', xcstrings: 'xcstrings', ios_strings: 'strings', android_xml: 'xml', po: 'po',
};

/** Formats that hold every language in one file. */
const MULTI = new Set<FormatId>(['xcstrings']);

/** Renders one file of a version: every language for catalog formats, else `lang` alone. */
export function renderFile(s: Snapshot, format: FormatId, lang: string): string {
  if (MULTI.has(format)) return getFormat(format).render(snapshotCatalog(s, format), { languages: [s.baseLang, ...s.languages], baseLanguage: s.baseLang });
  const isBase = lang === s.baseLang;
  const catalog = snapshotCatalog(s, format, isBase ? [] : [lang], isBase);
  catalog.language = lang;
  return getFormat(format).render(catalog, { languages: [lang], baseLanguage: s.baseLang });
}

const hashOf = (body: string) => createHash('sha256').update(body).digest('hex');

export interface ManifestObject { url: string; hash: string; size: number }

/** Runs `tasks` with at most `limit` in flight. */
async function bounded(tasks: Array<() => Promise<void>>, limit: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, async () => {
    while (next < tasks.length) await tasks[next++]();
  }));
}

export async function writeDelivery(objects: ObjectStore, projectId: string, versionId: string, snapshotAt: number, s: Snapshot, formats: FormatId[]) {
  const langs = [s.baseLang, ...s.languages];
  const bundles: Record<string, ManifestObject> = {};
  const files: Record<string, Record<string, ManifestObject>> = {};
  const writes: Array<() => Promise<void>> = [];
  const stage = (file: string, body: string, contentType: string): ManifestObject => {
    writes.push(() => objects.put(objectKeys.bundle(projectId, versionId, file), body, { contentType, cacheControl: IMMUTABLE }));
    return { url: `bundles/${versionId}/${file}`, hash: hashOf(body), size: Buffer.byteLength(body) };
  };
  for (const lang of langs) {
    const body = JSON.stringify(bundleFor(s, lang));
    bundles[lang] = stage(`${lang}.${hashOf(body).slice(0, 16)}.json`, body, 'application/json; charset=utf-8');
  }
  for (const format of formats) {
    files[format] = {};
    for (const lang of MULTI.has(format) ? [s.baseLang] : langs) {
      const body = renderFile(s, format, lang);
      const obj = stage(`${format}.${lang}.${hashOf(body).slice(0, 16)}.${EXTENSIONS[format]}`, body, CONTENT_TYPES[format]);
      if (MULTI.has(format)) for (const l of langs) files[format][l] = obj;
      else files[format][lang] = obj;
    }
  }
  // Immutable objects in parallel (their waits on the disk or the network overlap), the manifest strictly last.
  await bounded(writes, 8);
  const manifest = {
    projectId, versionId, snapshotAt: new Date(snapshotAt).toISOString(), baseLang: s.baseLang,
    languages: langs.map((code) => ({ code, isBase: code === s.baseLang })), bundles, files,
  };
  await objects.put(objectKeys.manifest(projectId), JSON.stringify(manifest), { contentType: 'application/json; charset=utf-8', cacheControl: MANIFEST_CACHE });
  return manifest;
}
