// Renders a version's delivery objects (every configured file format per language and one i18next bundle per
// language) and the manifest that names them. Writing them to a store is the caller's (server/domain/publish/store.ts).
// Manifests and bundles name languages in canonical BCP 47 (`pt-BR`), as i18next and the browser ask for them; the
// API's own codes stay lowercase (spec: addLanguage).
import { createHash } from 'node:crypto';
import type { FormatId, FormatModule, FormatWarning } from './catalog.js';
import { REGISTRY } from './formats/index.js';
import { bundleFor } from './bundle.js';
import { bcp47 } from './languages.js';
import { namespacesOf, namespaceView, snapshotCatalog, type Snapshot } from './snapshot.js';

/**
 * A rendered file: its body, how many messages it writes in a documented fallback (packages/core/src/convert.ts), and the
 * first WARNINGS_KEPT of them as the publish result lists them.
 */
export interface RenderedFile {
  body: string;
  /** SHA-256 of the body (hex) and its size in bytes: computed where it renders (a worker thread), not where it is written. */
  hash: string;
  size: number;
  warnings: number;
  labels: string[];
}

/** How many warnings a delivery keeps by name; `formatWarningsTotal` counts them all. */
const WARNINGS_KEPT = 100;

/** How a warning is listed in the publish result's `formatWarnings`: `key [lang] format: reason`. */
const warningLabel = (format: string, w: FormatWarning) => `${w.key} [${w.lang}] ${format}: ${w.reason}`;

const hashOf = (body: string) => createHash('sha256').update(body).digest('hex');

/** Collects a file's warnings as counts and kept labels while it renders. */
class WarningTally {
  count = 0;
  labels: string[] = [];
  constructor(
    private readonly format: string,
    private readonly listen?: (w: FormatWarning) => void,
  ) {}
  readonly warn = (w: FormatWarning) => {
    if (this.count++ < WARNINGS_KEPT) this.labels.push(warningLabel(this.format, w));
    this.listen?.(w);
  };
  file(body: string): RenderedFile {
    return { body, hash: hashOf(body), size: Buffer.byteLength(body), warnings: this.count, labels: this.labels };
  }
}

/**
 * Renders one file of a version: every language for catalog formats, else `lang` alone; `companion`: the format's
 * companion file instead (REGISTRY `companion`, Apple's `.stringsdict`), from the same catalog. For a per-language
 * file, `s` needs only that language's cells (packages/core/src/parts.ts `languageSnapshotInPlace`).
 */
export function renderFile(
  s: Snapshot,
  format: FormatId,
  lang: string,
  companion = false,
  listen?: (w: FormatWarning) => void,
): RenderedFile {
  const info = REGISTRY[format];
  const part = companion ? info.companion : undefined;
  const module: Pick<FormatModule, 'render'> = part ?? info.module;
  const tally = new WarningTally(format, listen);
  if (info.multiLanguage) {
    const catalog = snapshotCatalog(s, format);
    return tally.file(
      module.render(catalog, { languages: [s.baseLang, ...s.languages], baseLanguage: s.baseLang, warn: tally.warn }),
    );
  }
  const isBase = lang === s.baseLang;
  const catalog = snapshotCatalog(s, format, isBase ? [] : [lang], isBase);
  catalog.language = lang;
  return tally.file(module.render(catalog, { languages: [lang], baseLanguage: s.baseLang, warn: tally.warn }));
}

/** A language's i18next bundle (packages/core/src/bundle.ts) as the delivery serves it. */
function renderBundle(s: Snapshot, lang: string): RenderedFile {
  const tally = new WarningTally('bundle');
  return tally.file(JSON.stringify(bundleFor(s, lang, tally.warn)));
}

/**
 * The keys (by name) with a cell of one of `langs` that a language's i18next bundle, or a file of `formats`, writes
 * in a documented fallback: the format warnings a publish counts, by key (the key list's `warnings` filter).
 * Renders what a publish would and keeps no body.
 */
export function keysWithWarnings(whole: Snapshot, langs: string[], formats: FormatId[]): Set<string> {
  const out = new Set<string>();
  // Each namespace is its own set of files (namespaceView).
  for (const ns of ['', ...namespacesOf(whole.keys)])
    for (const k of namespaceWarnings(namespaceView(whole, ns), langs, formats)) out.add(k);
  return out;
}

function namespaceWarnings(s: Snapshot, langs: string[], formats: FormatId[]): Set<string> {
  const namesOf = new Map<string, string[]>();
  for (const k of s.keys) {
    const fileKey = k.fileKey ?? k.name;
    namesOf.set(fileKey, [...(namesOf.get(fileKey) ?? []), k.name]);
  }
  const out = new Set<string>();
  const byFileKey = (w: FormatWarning) => {
    for (const name of namesOf.get(w.key) ?? []) out.add(name);
  };
  for (const lang of langs) {
    // The bundle names keys by name; files by the entry's fileKey.
    bundleFor(s, lang, (w) => out.add(w.key));
    for (const format of formats) {
      const info = REGISTRY[format];
      if (info.multiLanguage) continue;
      renderFile(s, format, lang, false, byFileKey);
      if (info.companion) renderFile(s, format, lang, true, byFileKey);
    }
  }
  // A catalog of every language (xcstrings) spells languages its own way: a warning counts for the languages asked.
  const asked = new Set(langs.map((l) => bcp47(l).toLowerCase()));
  for (const format of multiLanguageFormats(formats)) {
    renderFile(s, format, s.baseLang, false, (w) => {
      if (asked.has(bcp47(w.lang.replace(/_/g, '-')).toLowerCase())) byFileKey(w);
    });
  }
  return out;
}

/** What one namespace (or a project without any) delivers for one language. */
interface NamespaceRender {
  bundle: RenderedFile;
  files: Array<{ format: FormatId; file: RenderedFile; companion?: RenderedFile }>;
}

/**
 * Everything a version delivers for one language: its bundle and its file of each per-language format, of the
 * default namespace, and the same for each named namespace (absent when there is none).
 */
export interface LanguageRender extends NamespaceRender {
  lang: string;
  namespaces?: Array<NamespaceRender & { namespace: string }>;
}

/** The formats rendered once for every language together (xcstrings): they need every language's cells. */
export const multiLanguageFormats = (formats: FormatId[]) => formats.filter((f) => REGISTRY[f].multiLanguage);

function renderNamespace(s: Snapshot, lang: string, formats: FormatId[]): NamespaceRender {
  const files: LanguageRender['files'] = [];
  for (const format of formats) {
    if (REGISTRY[format].multiLanguage) continue;
    const file = renderFile(s, format, lang);
    files.push(
      REGISTRY[format].companion ? { format, file, companion: renderFile(s, format, lang, true) } : { format, file },
    );
  }
  return { bundle: renderBundle(s, lang), files };
}

/** Renders one language's objects from a snapshot that holds at least that language's cells. */
export function renderLanguage(s: Snapshot, lang: string, formats: FormatId[]): LanguageRender {
  const out: LanguageRender = { lang, ...renderNamespace(namespaceView(s, ''), lang, formats) };
  const named = namespacesOf(s.keys);
  if (named.length)
    out.namespaces = named.map((namespace) => ({
      namespace,
      ...renderNamespace(namespaceView(s, namespace), lang, formats),
    }));
  return out;
}

const BUNDLE_TYPE = 'application/json; charset=utf-8';

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

/** An object of a version, to be written under the version's id (or a staging token) by its file name. */
export interface StagedObject {
  file: string;
  body: string;
  contentType: string;
}

/**
 * What names a version's objects: the manifest's entries, the object list, and the fallbacks of every file (the
 * first WARNINGS_KEPT as labels, and their count). Built from rendered languages without keeping their bodies.
 */
export interface DeliveryIndex {
  baseLang: string;
  langs: string[];
  objects: Array<{ file: string; contentType: string }>;
  bundles: Record<string, ManifestObject>;
  files: Record<string, Record<string, ManifestObject>>;
  /** Each named namespace's bundles and files, as `bundles` and `files` are the default one's; absent without any. */
  namespaces?: Record<string, NamespaceIndex>;
  formatWarnings: string[];
  formatWarningsTotal: number;
}

interface NamespaceIndex {
  bundles: Record<string, ManifestObject>;
  files: Record<string, Record<string, ManifestObject>>;
}

/** A version's objects, rendered in memory with their index (small versions; tests). */
interface RenderedDelivery extends DeliveryIndex {
  objects: StagedObject[];
}

/**
 * Builds a version's DeliveryIndex as languages are rendered (in any order), and names each object: bundles
 * `<lang>.<hash16>.json`, files `<format>.<lang>.<hash16>.<ext>`; a named namespace's `<ns>.<lang>.<hash16>.json` and
 * `<format>.<ns>.<lang>.<hash16>.<ext>`. Returns the objects to write; keeps only names.
 */
export class DeliveryIndexer {
  readonly index: DeliveryIndex;
  constructor(
    baseLang: string,
    langs: string[],
    private readonly formats: FormatId[],
  ) {
    this.index = { baseLang, langs, objects: [], bundles: {}, files: {}, formatWarnings: [], formatWarningsTotal: 0 };
    for (const f of formats) this.index.files[f] = {};
  }

  /** The index part of a namespace (the default one: the index itself), and the infix of its object names. */
  private target(namespace: string): { at: NamespaceIndex; infix: string } {
    if (!namespace) return { at: this.index, infix: '' };
    // Namespaces are names from users (`__proto__` is one): a null-prototype record keeps them data.
    const all = (this.index.namespaces ??= Object.create(null) as Record<string, NamespaceIndex>);
    let at = all[namespace];
    if (!at) {
      at = all[namespace] = { bundles: {}, files: {} };
      for (const f of this.formats) at.files[f] = {};
    }
    // The delivery origin serves names of dot-separated non-empty segments (spec: getBundle's `file`): a namespace's
    // `..` or trailing `.` is folded. Two namespaces folded alike still get their own objects (the hash is of the body).
    return { at, infix: `${namespace.replace(/\.{2,}/g, '.').replace(/\.$/, '')}.` };
  }

  private note(file: RenderedFile) {
    for (const label of file.labels)
      if (this.index.formatWarnings.length < WARNINGS_KEPT) this.index.formatWarnings.push(label);
    this.index.formatWarningsTotal += file.warnings;
  }

  private stage(
    out: StagedObject[],
    name: (hash: string) => string,
    rendered: RenderedFile,
    contentType: string,
  ): ManifestObject {
    const file = name(rendered.hash.slice(0, 16));
    out.push({ file, body: rendered.body, contentType });
    this.index.objects.push({ file, contentType });
    return { url: file, hash: rendered.hash, size: rendered.size };
  }

  addLanguage(r: LanguageRender): StagedObject[] {
    const out: StagedObject[] = [];
    this.addNamespace(out, r.lang, '', r);
    for (const n of r.namespaces ?? []) this.addNamespace(out, r.lang, n.namespace, n);
    return out;
  }

  private addNamespace(out: StagedObject[], lang: string, namespace: string, r: NamespaceRender) {
    const { at, infix } = this.target(namespace);
    const isBase = lang === this.index.baseLang;
    this.note(r.bundle);
    at.bundles[lang] = this.stage(out, (h) => `${infix}${bcp47(lang)}.${h}.json`, r.bundle, BUNDLE_TYPE);
    for (const { format, file, companion } of r.files) {
      const info = REGISTRY[format];
      this.note(file);
      const obj = this.stage(
        out,
        (h) => `${format}.${infix}${bcp47(lang)}.${h}.${info.extension}`,
        file,
        info.contentType,
      );
      const entry: ManifestObject = { ...obj, path: info.path(lang, isBase), warnings: file.warnings };
      if (companion !== undefined && info.companion) {
        // Its fallbacks are the file's own (the same messages), already noted.
        const part = this.stage(
          out,
          (h) => `${format}.${infix}${bcp47(lang)}.${h}.${info.companion!.extension}`,
          companion,
          info.companion.contentType,
        );
        entry[info.companion.name] = { ...part, path: info.companion.path(lang), warnings: file.warnings };
      }
      at.files[format][lang] = entry;
    }
  }

  /**
   * A language whose objects an earlier version already holds (server/domain/publish/stream.ts `reusedObjects`): its
   * manifest entries, under `prefix`, named as they are. Returns the file names to copy.
   */
  reuseLanguage(
    lang: string,
    reused: { bundle: ManifestObject; files: Array<{ format: FormatId; entry: ManifestObject }> },
    prefix: string,
  ): string[] {
    const names: string[] = [];
    const take = (o: ManifestObject, contentType: string): ManifestObject => {
      const file = o.url.slice(prefix.length);
      names.push(file);
      this.index.objects.push({ file, contentType });
      return { ...o, url: file };
    };
    this.index.bundles[lang] = take(reused.bundle, BUNDLE_TYPE);
    for (const { format, entry } of reused.files) {
      const info = REGISTRY[format];
      const copied = take(entry, info.contentType);
      if (entry.stringsdict && info.companion) copied.stringsdict = take(entry.stringsdict, info.companion.contentType);
      this.index.files[format][lang] = copied;
    }
    return names;
  }

  /** A file that holds every language (multiLanguage): one object, named for each language of the version. */
  addMulti(format: FormatId, file: RenderedFile, namespace = ''): StagedObject[] {
    const out: StagedObject[] = [];
    const info = REGISTRY[format];
    const { at, infix } = this.target(namespace);
    this.note(file);
    const obj = this.stage(
      out,
      (h) => `${format}.${infix}${bcp47(this.index.baseLang)}.${h}.${info.extension}`,
      file,
      info.contentType,
    );
    for (const l of this.index.langs)
      at.files[format][l] = { ...obj, path: info.path(l, l === this.index.baseLang), warnings: file.warnings };
    return out;
  }
}

/** Every object of a version, rendered in memory (the streamed publish renders the same, one language at a time). */
export function renderDelivery(s: Snapshot, formats: FormatId[]): RenderedDelivery {
  const langs = [s.baseLang, ...s.languages];
  const indexer = new DeliveryIndexer(s.baseLang, langs, formats);
  const objects: StagedObject[] = [];
  for (const lang of langs) objects.push(...indexer.addLanguage(renderLanguage(s, lang, formats)));
  for (const format of multiLanguageFormats(formats))
    for (const ns of ['', ...namespacesOf(s.keys)])
      objects.push(...indexer.addMulti(format, renderFile(namespaceView(s, ns), format, s.baseLang), ns));
  return { ...indexer.index, objects };
}

/**
 * The manifest of a version whose objects sit under `bundles/<versionId>/` beside it (the delivery origin's
 * layout, server/infra/objects.ts `objectKeys`).
 */
export function manifestFor(projectId: string, versionId: string, snapshotAt: number, r: DeliveryIndex): string {
  const url = (o: ManifestObject): ManifestObject => ({
    ...o,
    url: `bundles/${versionId}/${o.url}`,
    ...(o.stringsdict ? { stringsdict: url(o.stringsdict) } : {}),
  });
  const byLanguage = (objs: Record<string, ManifestObject>) =>
    Object.fromEntries(Object.entries(objs).map(([l, o]) => [bcp47(l), url(o)]));
  const filesOf = (files: NamespaceIndex['files']) =>
    Object.fromEntries(Object.entries(files).map(([format, objs]) => [format, byLanguage(objs)]));
  // Named namespaces (spec: Manifest.namespaces), in name order; absent when the version has none.
  const named = Object.keys(r.namespaces ?? {}).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify({
    projectId,
    versionId,
    snapshotAt: new Date(snapshotAt).toISOString(),
    baseLang: bcp47(r.baseLang),
    languages: r.langs.map((code) => ({ code: bcp47(code), isBase: code === r.baseLang })),
    bundles: byLanguage(r.bundles),
    files: filesOf(r.files),
    ...(named.length
      ? {
          namespaces: Object.fromEntries(
            named.map((ns) => [
              ns,
              { bundles: byLanguage(r.namespaces![ns].bundles), files: filesOf(r.namespaces![ns].files) },
            ]),
          ),
        }
      : {}),
  });
}
