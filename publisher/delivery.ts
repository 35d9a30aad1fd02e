// Renders a version's delivery objects (every configured file format per language and one i18next bundle per
// language) and the manifest that names them. Writing them to a store is the caller's (handlers/publish/store.ts).
import { createHash } from 'node:crypto';
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

/** A version's delivery objects, rendered: what writeDelivery puts under the version's id. */
export interface RenderedDelivery {
  baseLang: string;
  langs: string[];
  objects: Array<{ file: string; body: string; contentType: string }>;
  bundles: Record<string, ManifestObject>;
  files: Record<string, Record<string, ManifestObject>>;
}

/** The same without the bodies: what a prepared publish keeps, its objects already in the store. */
export type DeliveryIndex = Omit<RenderedDelivery, 'objects'> & { objects: Array<{ file: string; contentType: string }> };

export const withoutBodies = (r: RenderedDelivery): DeliveryIndex => ({ ...r, objects: r.objects.map(({ file, contentType }) => ({ file, contentType })) });

/** Lets other work (requests, on an inline worker) run between the long synchronous steps of a render. */
export const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Renders every object of a version. No object depends on the version's id, so this runs before it is minted.
 * Each object is one synchronous step; the event loop gets a turn between them.
 */
export async function renderDelivery(s: Snapshot, formats: FormatId[]): Promise<RenderedDelivery> {
  const langs = [s.baseLang, ...s.languages];
  const out: RenderedDelivery = { baseLang: s.baseLang, langs, objects: [], bundles: {}, files: {} };
  const stage = (name: (hash: string) => string, body: string, contentType: string): ManifestObject => {
    const hash = hashOf(body);
    const file = name(hash.slice(0, 16));
    out.objects.push({ file, body, contentType });
    return { url: file, hash, size: Buffer.byteLength(body) };
  };
  for (const lang of langs) {
    await yieldTurn();
    out.bundles[lang] = stage((h) => `${lang}.${h}.json`, JSON.stringify(bundleFor(s, lang)), 'application/json; charset=utf-8');
  }
  for (const format of formats) {
    out.files[format] = {};
    for (const lang of MULTI.has(format) ? [s.baseLang] : langs) {
      await yieldTurn();
      const obj = stage((h) => `${format}.${lang}.${h}.${EXTENSIONS[format]}`, renderFile(s, format, lang), CONTENT_TYPES[format]);
      if (MULTI.has(format)) for (const l of langs) out.files[format][l] = obj;
      else out.files[format][lang] = obj;
    }
  }
  return out;
}

/**
 * The manifest of a version whose objects sit under `bundles/<versionId>/` beside it (the delivery origin's
 * layout, handlers/platform/objects.ts `objectKeys`).
 */
export function manifestFor(projectId: string, versionId: string, snapshotAt: number, r: DeliveryIndex): string {
  const url = (o: ManifestObject): ManifestObject => ({ ...o, url: `bundles/${versionId}/${o.url}` });
  const files = Object.fromEntries(Object.entries(r.files).map(([format, byLang]) => [format, Object.fromEntries(Object.entries(byLang).map(([l, o]) => [l, url(o)]))]));
  return JSON.stringify({
    projectId, versionId, snapshotAt: new Date(snapshotAt).toISOString(), baseLang: r.baseLang,
    languages: r.langs.map((code) => ({ code, isBase: code === r.baseLang })),
    bundles: Object.fromEntries(Object.entries(r.bundles).map(([l, o]) => [l, url(o)])),
    files,
  });
}
