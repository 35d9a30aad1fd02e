// Reading and changing a project's configuration: languages, output formats, settings.
import type { Db } from '../platform/db.js';
import { bool, parseJson } from '../platform/db.js';
import { notFound } from '../platform/errors.js';

export const OUTPUT_FORMATS = ['json', 'nested_json', 'angular_json', 'ios_strings', 'xcstrings', 'android_xml', 'arb', 'po'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const MAX_OUTPUT_FORMATS = 2;

export interface ProjectRow {
  id: string;
  workspace_id: string;
  name: string;
  handle: string;
  slug: string;
  base_lang: string;
  mode: 'a' | 'b';
  auto_verify: unknown;
  content_enabled: unknown;
  cost_warning_mc: number | null;
  delivery_host: string | null;
  output_formats: string;
  config_version: number;
  deleted_at: number | null;
}

export interface LanguageRow { code: string; fill_mode: 'ai' | 'manual'; removed_at: number | null }

export async function getProject(db: Db, projectId: string): Promise<ProjectRow> {
  const row = await db('projects').where({ id: projectId }).whereNull('deleted_at').first();
  if (!row) throw notFound('Project not found.');
  return row;
}

export async function listLanguages(db: Db, projectId: string, includeRemoved = false): Promise<LanguageRow[]> {
  const q = db('project_languages').where({ project_id: projectId }).orderBy('code').select('code', 'fill_mode', 'removed_at');
  if (!includeRemoved) q.whereNull('removed_at');
  return q;
}

export const configuredFormats = (p: ProjectRow): string[] => parseJson<string[]>(p.output_formats, []);

/**
 * The effective output-format list (API.md 4.3): the configured list, or, while nothing is configured, the
 * ordered union of the formats every retained version was published with (`versionFormats`, oldest first).
 */
export function effectiveFormats(p: ProjectRow, versionFormats: string[][] = []): string[] {
  const configured = configuredFormats(p);
  if (configured.length) return configured;
  const union: string[] = [];
  for (const formats of versionFormats) for (const f of formats) if (!union.includes(f)) union.push(f);
  return union;
}

export async function projectView(db: Db, p: ProjectRow) {
  const langs = await listLanguages(db, p.id, true);
  return {
    projectId: p.id,
    workspaceId: p.workspace_id,
    name: p.name,
    handle: p.handle,
    slug: p.slug,
    baseLang: p.base_lang,
    mode: p.mode,
    autoVerify: bool(p.auto_verify),
    contentEnabled: bool(p.content_enabled),
    costWarningMc: p.cost_warning_mc == null ? null : Number(p.cost_warning_mc),
    deliveryHost: p.delivery_host,
    outputFormats: configuredFormats(p),
    languages: [
      { code: p.base_lang, isBase: true, fillMode: 'ai', removed: false },
      ...langs.map((l) => ({ code: l.code, isBase: false, fillMode: l.fill_mode, removed: l.removed_at != null })),
    ],
  };
}
