// Creating projects and reading their configuration: languages, output formats, settings.
import type { Db } from '../../infra/db.js';
import { bool, isUniqueViolation, newId, parseJson, randomToken } from '../../infra/db.js';
import { invalidArgument, notFound } from '../../infra/errors.js';
import type { ProjectRow } from '../../infra/tables.js';
import { normalizeLanguage } from './languages.js';

export const MAX_OUTPUT_FORMATS = 2;

export async function getProject(db: Db, projectId: string): Promise<ProjectRow> {
  const row = await db('projects').where({ id: projectId }).whereNull('deleted_at').first();
  if (!row) throw notFound('Project not found.');
  return row;
}

export async function listLanguages(db: Db, projectId: string, includeRemoved = false) {
  const q = db('project_languages')
    .where({ project_id: projectId })
    .orderBy('code')
    .select('code', 'fill_mode', 'removed_at');
  if (!includeRemoved) q.whereNull('removed_at');
  return q;
}

/** What the project allows a translation's markup beyond its source's (packages/core/src/markup.ts). */
export const markupPolicy = (p: Pick<ProjectRow, 'markup_origins'>): { origins: string[] } => ({
  origins: parseJson<string[]>(p.markup_origins ?? null, []),
});

export const configuredFormats = (p: ProjectRow): string[] => parseJson<string[]>(p.output_formats, []);

/**
 * The effective output-format list (spec: `addOutputFormat`): the configured list, or, while nothing is configured, the
 * ordered union of the formats every retained version was published with (`versionFormats`, oldest first).
 */
export function effectiveFormats(p: ProjectRow, versionFormats: string[][] = []): string[] {
  const configured = configuredFormats(p);
  if (configured.length) return configured;
  const union: string[] = [];
  for (const formats of versionFormats) for (const f of formats) if (!union.includes(f)) union.push(f);
  return union;
}

/** The fill's style guide (spec internal `FillInstructions`): a project text and one per target language. */
interface FillInstructions {
  project?: string;
  languages?: Record<string, string>;
}

/** A project's stored style guide, or null when it has none. */
export function fillInstructionsOf(p: Pick<ProjectRow, 'fill_instructions'>): FillInstructions | null {
  const stored = parseJson<FillInstructions | null>(p.fill_instructions ?? null, null);
  return stored && (stored.project || Object.keys(stored.languages ?? {}).length) ? stored : null;
}

/**
 * A style guide as stored: texts trimmed, empty ones dropped, language codes canonical (400 for one that is not
 * BCP 47); null when nothing is left.
 */
export function normalizeFillInstructions(input: FillInstructions | null): string | null {
  if (!input) return null;
  const out: FillInstructions = {};
  const project = input.project?.trim();
  if (project) out.project = project;
  const languages: Record<string, string> = {};
  for (const [code, text] of Object.entries(input.languages ?? {}))
    if (text.trim()) languages[normalizeLanguage(code)] = text.trim();
  if (Object.keys(languages).length) out.languages = languages;
  return out.project || out.languages ? JSON.stringify(out) : null;
}

const sharingOf = (s: string | undefined): 'shared' | 'isolated' | 'off' =>
  s === 'isolated' || s === 'off' ? s : 'shared';

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
    markupOrigins: markupPolicy(p).origins,
    // migration 026; server/domain/catalog/outdated.ts reads it (catalog sits above project).
    outdatedMode: p.outdated_mode === 'retranslate' ? ('retranslate' as const) : ('keep' as const),
    // migration 027; server/domain/memory/settings.ts reads them (memory sits above project).
    memorySharing: sharingOf(p.memory_sharing),
    memoryPreTranslate: p.memory_pretranslate === undefined ? true : bool(p.memory_pretranslate),
    memoryThreshold: p.memory_threshold == null ? 75 : Number(p.memory_threshold),
    // migration 030; server/domain/fill/ reads it.
    fillInstructions: fillInstructionsOf(p),
    aiReviewBelow: p.ai_review_below == null ? null : Number(p.ai_review_below) / 1000,
    languages: [
      { code: p.base_lang, isBase: true, fillMode: 'ai' as const, removed: false },
      ...langs.map((l) => ({ code: l.code, isBase: false, fillMode: l.fill_mode, removed: l.removed_at != null })),
    ],
  };
}

function slugify(name: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return (s || 'project').slice(0, 60);
}

interface ProjectCreate {
  workspaceId: string;
  name: string;
  baseLang: string;
  languages?: Array<{ code: string; fillMode?: 'ai' | 'manual' }>;
  mode?: 'a' | 'b';
  autoVerify?: boolean;
  contentEnabled?: boolean;
  costWarningMc?: number | null;
}

export async function createProject(db: Db, body: ProjectCreate) {
  const ws = await db('workspaces').where({ id: body.workspaceId }).first('id');
  if (!ws) throw notFound('Workspace not found.');
  const baseLang = normalizeLanguage(body.baseLang);
  const languages = new Map<string, 'ai' | 'manual'>();
  for (const l of body.languages ?? []) {
    const code = normalizeLanguage(l.code);
    if (code === baseLang) throw invalidArgument(`${code} is the base language; it cannot also be a target.`);
    languages.set(code, l.fillMode ?? 'ai');
  }
  const slug = slugify(body.name);
  const now = Date.now();
  for (let attempt = 0; ; attempt++) {
    const id = newId('p');
    const handle = `${slug.slice(0, 50)}-${randomToken(4).toLowerCase().slice(0, 5)}`;
    try {
      await db.transaction(async (trx) => {
        await trx('projects').insert({
          id,
          workspace_id: body.workspaceId,
          name: body.name,
          handle,
          slug,
          base_lang: baseLang,
          mode: body.mode ?? 'b',
          auto_verify: Boolean(body.autoVerify),
          content_enabled: Boolean(body.contentEnabled),
          cost_warning_mc: body.costWarningMc ?? null,
          output_formats: '[]',
          config_version: 0,
          created_at: now,
          updated_at: now,
        });
        await trx('project_content').insert({ project_id: id, content_rev: 0 });
        if (languages.size) {
          await trx('project_languages').insert(
            [...languages].map(([code, fillMode]) => ({
              project_id: id,
              code,
              fill_mode: fillMode,
              created_at: now,
              updated_at: now,
            })),
          );
        }
      });
      return { projectId: id, handle, slug };
    } catch (err) {
      // A handle collision is astronomically rare; try another.
      if (!isUniqueViolation(err) || attempt >= 3) throw err;
    }
  }
}
