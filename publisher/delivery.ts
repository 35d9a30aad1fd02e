// Renders a version's delivery objects (every configured file format per language and one i18next bundle per
// language) and the manifest that names them. Writing them to a store is the caller's (handlers/publish/store.ts).
import { createHash } from 'node:crypto';
import type { FormatId } from './catalog.js';
import { REGISTRY } from './formats/index.js';
import { bundleFor } from './bundle.js';
import { snapshotCatalog, type Snapshot } from './snapshot.js';

/** Renders one file of a version: every language for catalog formats, else `lang` alone. */
export function renderFile(s: Snapshot, format: FormatId, lang: string): string {
  const { module, multiLanguage } = REGISTRY[format];
  if (multiLanguage)
    return module.render(snapshotCatalog(s, format), {
      languages: [s.baseLang, ...s.languages],
      baseLanguage: s.baseLang,
    });
  const isBase = lang === s.baseLang;
  const catalog = snapshotCatalog(s, format, isBase ? [] : [lang], isBase);
  catalog.language = lang;
  return module.render(catalog, { languages: [lang], baseLanguage: s.baseLang });
}

const hashOf = (body: string) => createHash('sha256').update(body).digest('hex');

export interface ManifestObject {
  url: string;
  hash: string;
  size: number;
}

/** A version's delivery objects, rendered: what writeDelivery puts under the version's id. */
export interface RenderedDelivery {
  baseLang: string;
  langs: string[];
  objects: Array<{ file: string; body: string; contentType: string }>;
  bundles: Record<string, ManifestObject>;
  files: Record<string, Record<string, ManifestObject>>;
}

/** The same without the bodies: what a prepared publish keeps, its objects already in the store. */
export type DeliveryIndex = Omit<RenderedDelivery, 'objects'> & {
  objects: Array<{ file: string; contentType: string }>;
};

export const withoutBodies = (r: RenderedDelivery): DeliveryIndex => ({
  ...r,
  objects: r.objects.map(({ file, contentType }) => ({ file, contentType })),
});

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
    out.bundles[lang] = stage(
      (h) => `${lang}.${h}.json`,
      JSON.stringify(bundleFor(s, lang)),
      'application/json; charset=utf-8',
    );
  }
  for (const format of formats) {
    const { extension, contentType, multiLanguage } = REGISTRY[format];
    out.files[format] = {};
    for (const lang of multiLanguage ? [s.baseLang] : langs) {
      await yieldTurn();
      const obj = stage((h) => `${format}.${lang}.${h}.${extension}`, renderFile(s, format, lang), contentType);
      if (multiLanguage) for (const l of langs) out.files[format][l] = obj;
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
  const files = Object.fromEntries(
    Object.entries(r.files).map(([format, byLang]) => [
      format,
      Object.fromEntries(Object.entries(byLang).map(([l, o]) => [l, url(o)])),
    ]),
  );
  return JSON.stringify({
    projectId,
    versionId,
    snapshotAt: new Date(snapshotAt).toISOString(),
    baseLang: r.baseLang,
    languages: r.langs.map((code) => ({ code, isBase: code === r.baseLang })),
    bundles: Object.fromEntries(Object.entries(r.bundles).map(([l, o]) => [l, url(o)])),
    files,
  });
}
