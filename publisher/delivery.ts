// Renders a version's delivery objects (every configured file format per language and one i18next bundle per
// language) and the manifest that names them. Writing them to a store is the caller's (handlers/publish/store.ts).
// Manifests and bundles name languages in canonical BCP 47 (`pt-BR`), as i18next and the browser ask for them; the
// API's own codes stay lowercase (spec: addLanguage).
import { createHash } from 'node:crypto';
import type { FormatId, FormatModule, FormatWarning } from './catalog.js';
import { REGISTRY } from './formats/index.js';
import { bundleFor } from './bundle.js';
import { bcp47 } from './languages.js';
import { snapshotCatalog, type Snapshot } from './snapshot.js';

/** A rendered file and the cells it wrote in a documented fallback (publisher/convert.ts). */
interface RenderedFile {
  body: string;
  warnings: FormatWarning[];
}

/**
 * Renders one file of a version: every language for catalog formats, else `lang` alone; `companion`: the format's
 * companion file instead (REGISTRY `companion`, Apple's `.stringsdict`), from the same catalog.
 */
export function renderFile(s: Snapshot, format: FormatId, lang: string, companion = false): RenderedFile {
  const info = REGISTRY[format];
  const part = companion ? info.companion : undefined;
  const render: FormatModule['render'] = (catalog, opts) =>
    part ? part.render(catalog, opts) : info.module.render(catalog, opts);
  const warnings: FormatWarning[] = [];
  const warn = (w: FormatWarning) => warnings.push(w);
  if (info.multiLanguage) {
    const body = render(snapshotCatalog(s, format), {
      languages: [s.baseLang, ...s.languages],
      baseLanguage: s.baseLang,
      warn,
    });
    return { body, warnings };
  }
  const isBase = lang === s.baseLang;
  const catalog = snapshotCatalog(s, format, isBase ? [] : [lang], isBase);
  catalog.language = lang;
  return { body: render(catalog, { languages: [lang], baseLanguage: s.baseLang, warn }), warnings };
}

/** How a warning is listed in the publish result's `formatWarnings`: `key [lang] format: reason`. */
const warningLabel = (format: string, w: FormatWarning) => `${w.key} [${w.lang}] ${format}: ${w.reason}`;

const hashOf = (body: string) => createHash('sha256').update(body).digest('hex');

export interface ManifestObject {
  url: string;
  hash: string;
  size: number;
  /** Where the platform keeps the file (REGISTRY path), for files; bundles have none. */
  path?: string;
  /** The file's companion (REGISTRY `companion`: Apple's `.stringsdict`). */
  stringsdict?: ManifestObject;
  /** Files only: how many messages the file writes in a documented fallback (what its pull's header counts). */
  warnings?: number;
}

/** How many warnings a delivery keeps by name; `formatWarningsTotal` counts them all. */
const WARNINGS_KEPT = 100;

/** A version's delivery objects, rendered: what writeDelivery puts under the version's id. */
export interface RenderedDelivery {
  baseLang: string;
  langs: string[];
  objects: Array<{ file: string; body: string; contentType: string }>;
  bundles: Record<string, ManifestObject>;
  files: Record<string, Record<string, ManifestObject>>;
  /** The first WARNINGS_KEPT fallbacks of every file, as warningLabel writes them, and their count. */
  formatWarnings: string[];
  formatWarningsTotal: number;
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
  const out: RenderedDelivery = {
    baseLang: s.baseLang,
    langs,
    objects: [],
    bundles: {},
    files: {},
    formatWarnings: [],
    formatWarningsTotal: 0,
  };
  const note = (format: string, warnings: FormatWarning[]) => {
    for (const w of warnings)
      if (out.formatWarningsTotal++ < WARNINGS_KEPT) out.formatWarnings.push(warningLabel(format, w));
  };
  const stage = (name: (hash: string) => string, body: string, contentType: string): ManifestObject => {
    const hash = hashOf(body);
    const file = name(hash.slice(0, 16));
    out.objects.push({ file, body, contentType });
    return { url: file, hash, size: Buffer.byteLength(body) };
  };
  for (const lang of langs) {
    await yieldTurn();
    const warnings: FormatWarning[] = [];
    const bundle = JSON.stringify(bundleFor(s, lang, (w) => warnings.push(w)));
    note('bundle', warnings);
    out.bundles[lang] = stage((h) => `${bcp47(lang)}.${h}.json`, bundle, 'application/json; charset=utf-8');
  }
  for (const format of formats) {
    const { extension, contentType, multiLanguage, path, companion } = REGISTRY[format];
    out.files[format] = {};
    for (const lang of multiLanguage ? [s.baseLang] : langs) {
      await yieldTurn();
      const file = renderFile(s, format, lang);
      note(format, file.warnings);
      const obj = stage((h) => `${format}.${bcp47(lang)}.${h}.${extension}`, file.body, contentType);
      const warnings = file.warnings.length;
      if (multiLanguage)
        for (const l of langs) out.files[format][l] = { ...obj, path: path(l, l === s.baseLang), warnings };
      else out.files[format][lang] = { ...obj, path: path(lang, lang === s.baseLang), warnings };
      if (companion) {
        // Its fallbacks are the file's own (the same messages), already noted.
        const part = stage(
          (h) => `${format}.${bcp47(lang)}.${h}.${companion.extension}`,
          renderFile(s, format, lang, true).body,
          companion.contentType,
        );
        out.files[format][lang][companion.name] = { ...part, path: companion.path(lang), warnings };
      }
    }
  }
  return out;
}

/**
 * The manifest of a version whose objects sit under `bundles/<versionId>/` beside it (the delivery origin's
 * layout, handlers/platform/objects.ts `objectKeys`).
 */
export function manifestFor(projectId: string, versionId: string, snapshotAt: number, r: DeliveryIndex): string {
  const url = (o: ManifestObject): ManifestObject => ({
    ...o,
    url: `bundles/${versionId}/${o.url}`,
    ...(o.stringsdict ? { stringsdict: url(o.stringsdict) } : {}),
  });
  const byLanguage = (objs: Record<string, ManifestObject>) =>
    Object.fromEntries(Object.entries(objs).map(([l, o]) => [bcp47(l), url(o)]));
  return JSON.stringify({
    projectId,
    versionId,
    snapshotAt: new Date(snapshotAt).toISOString(),
    baseLang: bcp47(r.baseLang),
    languages: r.langs.map((code) => ({ code: bcp47(code), isBase: code === r.baseLang })),
    bundles: byLanguage(r.bundles),
    files: Object.fromEntries(Object.entries(r.files).map(([format, objs]) => [format, byLanguage(objs)])),
  });
}
