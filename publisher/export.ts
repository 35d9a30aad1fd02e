// Builds a Catalog from a project's live keys and translations, in the spelling of its last synced file,
// for a renderer to write. Publish freezes the same shape into versions.
import type { Db } from '../handlers/platform/db.js';
import { bool, parseJson } from '../handlers/platform/db.js';
import { icuToForms } from '../handlers/platform/icu.js';
import type { Catalog, CatalogEntry, CatalogValue, FormatId } from './catalog.js';

function valueOf(icu: string, forms: Record<string, string> | null): CatalogValue {
  if (forms) return { kind: 'plural', forms, arg: icuToForms(icu)?.arg };
  const plural = icuToForms(icu);
  // A translation of a plural source is stored as one ICU plural message; hand it back as forms.
  return plural ? { kind: 'plural', forms: plural.forms, arg: plural.arg } : { kind: 'text', text: icu };
}

export async function liveCatalog(db: Db, projectId: string, format: FormatId, languages?: string[]): Promise<Catalog> {
  const project = await db('projects').where({ id: projectId }).first('base_lang');
  const stored = await db('project_catalogs').where({ project_id: projectId, format }).first('meta');
  const meta = parseJson<Record<string, any>>(stored?.meta, {});
  const spell = (code: string) => meta.languageSpellings?.[code] ?? code;
  const baseSpelling = meta.sourceLanguage ?? spell(project.base_lang);
  const keys = await db('keys').where({ project_id: projectId }).orderBy('id').select('id', 'name', 'file_key', 'comment', 'meta', 'source', 'forms', 'enabled');
  const rows = await db('translations').where({ project_id: projectId }).whereNot('status', 'pending').select('key_id', 'lang', 'value');
  const byKey = new Map<number, Array<{ lang: string; value: string }>>();
  for (const r of rows) {
    if (languages && !languages.includes(r.lang)) continue;
    byKey.set(Number(r.key_id), [...(byKey.get(Number(r.key_id)) ?? []), { lang: r.lang, value: r.value }]);
  }
  const entries: CatalogEntry[] = [];
  for (const k of keys) {
    if (!bool(k.enabled)) continue;
    const keyMeta = parseJson<Record<string, unknown> | null>(k.meta, null);
    const values: Record<string, CatalogValue> = {};
    // An xcstrings entry whose key is its own source and that had no base localization stays without one.
    if (!(keyMeta as any)?.noSourceLocalization) values[baseSpelling] = valueOf(k.source, parseJson(k.forms, null));
    for (const t of byKey.get(Number(k.id)) ?? []) values[spell(t.lang)] = valueOf(t.value, null);
    entries.push({ fileKey: k.file_key ?? k.name, comment: k.comment, values, ...(keyMeta ? { meta: keyMeta } : {}) });
  }
  const { languageSpellings: _l, sourceLanguage: _s, ...fileMeta } = meta;
  return { format, sourceLanguage: meta.sourceLanguage ?? null, entries, meta: fileMeta };
}
