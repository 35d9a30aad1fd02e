// A snapshot is the frozen content of a version: every enabled key with its source and the cells that passed
// the publish rules. It is stored verbatim, rendered into every format, and restored as it was.
import { icuToForms } from './icu.js';
import { dict, own, type Catalog, type CatalogEntry, type CatalogValue, type FormatId } from './catalog.js';
import { REGISTRY } from './formats/index.js';

export interface SnapshotCell {
  value: string;
  status: string;
  fallback?: true;
  imported?: true;
}

export interface SnapshotKey {
  name: string;
  fileKey: string | null;
  comment: string | null;
  meta: Record<string, unknown> | null;
  ctx: string | null;
  source: string;
  forms: Record<string, string> | null;
  cells: Record<string, SnapshotCell>;
  /** The key's namespace; absent for the default one, so a snapshot without namespaces is what it always was. */
  namespace?: string;
}

/**
 * File-level meta of a synced format, as sync stores it: the file's own fields (Catalog.meta), the language it
 * declared as its source, and its spelling of each language code.
 */
export interface CatalogMeta {
  sourceLanguage?: string | null;
  languageSpellings?: Record<string, string>;
  [field: string]: unknown;
}

export interface Snapshot {
  baseLang: string;
  /** Target languages, in order. */
  languages: string[];
  keys: SnapshotKey[];
  /** File-level meta of each synced format (for faithful rendering), by `catalogKey(format, namespace)`. */
  catalogs: Record<string, CatalogMeta>;
}

/**
 * Where a snapshot keeps the file meta of a format synced into a namespace: the format alone for the default one (as
 * always), `<format>@<namespace>` for a named one (`@` is in no format id and no namespace).
 */
export const catalogKey = (format: string, namespace: string) => (namespace ? `${format}@${namespace}` : format);

/** The named namespaces of a snapshot's keys, sorted (code-unit order); the default one is not among them. */
export function namespacesOf(keys: ReadonlyArray<{ namespace?: string }>): string[] {
  const out = new Set<string>();
  for (const k of keys) if (k.namespace) out.add(k.namespace);
  return [...out].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The snapshot of one namespace: its keys alone, and its own file meta under each format's name, so every renderer
 * writes a namespace's file as it writes a project's. A snapshot without named namespaces is its default one as it is.
 */
export function namespaceView<S extends Snapshot>(s: S, namespace: string): S {
  if (!namespace && !s.keys.some((k) => k.namespace)) return s;
  const catalogs: Record<string, CatalogMeta> = dict<CatalogMeta>();
  for (const [key, meta] of Object.entries(s.catalogs)) {
    const at = key.indexOf('@');
    if (namespace ? key.slice(at + 1) === namespace && at > 0 : at < 0)
      catalogs[at < 0 ? key : key.slice(0, at)] = meta;
  }
  return { ...s, keys: s.keys.filter((k) => (k.namespace ?? '') === namespace), catalogs };
}

function valueOf(icu: string, forms: Record<string, string> | null): CatalogValue {
  if (forms) return { kind: 'plural', forms: dict(Object.entries(forms)), arg: icuToForms(icu)?.arg };
  // Only a message that mentions `plural` can be one: skip the parse for the rest (most cells).
  const plural = icu.includes('plural') ? icuToForms(icu) : null;
  // A translation of a plural source is one ICU plural message: hand it to renderers as forms.
  return plural ? { kind: 'plural', forms: plural.forms, arg: plural.arg } : { kind: 'text', text: icu };
}

/**
 * The catalog a renderer writes for `format`, in the spelling of the last synced file of that format.
 * `languages`: the target languages to include (all by default); `withBase`: include the base values.
 */
export function snapshotCatalog(s: Snapshot, format: FormatId, languages?: string[], withBase = true): Catalog {
  const meta = own(s.catalogs, format) ?? {};
  // Stored JSON parses into plain objects: lookups by name go through own(), and records built here are dicts.
  const spell = (code: string): string => own<string>(meta.languageSpellings, code) ?? code;
  const baseSpelling = meta.sourceLanguage ?? spell(s.baseLang);
  const targets = (languages ?? s.languages).map((code) => [code, spell(code)] as const);
  // A bilingual exchange file (XLIFF) says how far each cell is: its status, or `fallback` for a baked-in source.
  const states = REGISTRY[format].states === true;
  const entries: CatalogEntry[] = s.keys.map((k) => {
    const values = dict<CatalogValue>();
    // An xcstrings entry that had no base localization (its key is its source) is written back without one.
    if (withBase && !k.meta?.noSourceLocalization) values[baseSpelling] = valueOf(k.source, k.forms);
    for (const [code, spelled] of targets) {
      const c = own(k.cells, code);
      if (c)
        values[spelled] = states
          ? { ...valueOf(c.value, null), state: c.fallback ? 'fallback' : c.status }
          : valueOf(c.value, null);
    }
    return {
      fileKey: k.fileKey ?? k.name,
      source: valueOf(k.source, k.forms),
      ctx: k.ctx,
      comment: k.comment,
      values,
      ...(k.meta ? { meta: k.meta } : {}),
    };
  });
  const { languageSpellings: _l, sourceLanguage: _s, ...fileMeta } = meta;
  return { format, sourceLanguage: meta.sourceLanguage ?? null, entries, meta: fileMeta };
}
