// The translations a team already has: on the first push (no .glossa/state.json yet) and with
// `glossa push --import-translations`, the files beside each base file (its template expanded for every target
// language of the project, e.g. `values-pl/strings.xml`) are uploaded through `POST /imports` (spec:
// `importTranslations`) before anything is queued for those languages, so nothing a person wrote is paid for again
// or replaced by machine output on the next pull (docs/guides/cli.md, "Existing translations").
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import stableStringify from 'fast-json-stable-stringify';
import { sync, translate, type ApiClient, type SyncRequest, type TranslateUnit } from '../../client/src/index.js';
import { REGISTRY } from '../../core/src/formats/index.js';
import type { Config, FileMapping } from './config.js';
import { CliError, EXIT } from './errors.js';
import { expandTemplate, insideRoot } from './files.js';
import type { Output } from './output.js';

interface LocalTranslation {
  mapping: FileMapping;
  lang: string;
  /** Relative to the config file's folder, as printed. */
  file: string;
}

interface ProjectLanguage {
  code: string;
  fillMode: 'ai' | 'manual';
}

/** The project's target languages (not its base) and their fill modes (GET /meta). */
async function projectLanguages(api: ApiClient, projectId: string): Promise<ProjectLanguage[]> {
  const r = await api.GET('/projects/{projectId}/meta', { params: { path: { projectId } } });
  if (!r.data) {
    const e = (r.error ?? {}) as { error?: string; message?: string };
    throw new CliError(EXIT.failure, `read project: ${r.response.status} ${e.error ?? 'error'}: ${e.message ?? ''}`);
  }
  const base = r.data.baseLang;
  return r.data.languages.filter((l) => l.code !== base).map((l) => ({ code: l.code, fillMode: l.fillMode }));
}

/**
 * The translation files that exist beside `m`'s base file: its template for each of `langs` (through the config's
 * language map), the base file itself and a catalog of every language (xcstrings, whose values a sync takes in
 * already) excepted.
 */
function localTranslations(cfg: Config, m: FileMapping, langs: string[]): LocalTranslation[] {
  if (!m.template || REGISTRY[m.format].multiLanguage) return [];
  const source = path.resolve(cfg.dir, m.source);
  const out: LocalTranslation[] = [];
  for (const lang of langs) {
    const dest = insideRoot(cfg.dir, expandTemplate(m.template, cfg.languageMap[lang] ?? lang));
    if (dest === source || !existsSync(dest)) continue;
    out.push({ mapping: m, lang, file: path.relative(cfg.dir, dest) });
    // Apple's plurals are in the .stringsdict beside the .strings, which a pull writes too.
    const companion = REGISTRY[m.format].companion && dest.replace(/\.strings$/, '.stringsdict');
    if (companion && companion !== dest && existsSync(companion))
      out.push({ mapping: m, lang, file: path.relative(cfg.dir, companion) });
  }
  return out;
}

/** Uploads each file through POST /imports (or previews it); prints one line per file. Throws on a refusal. */
export async function uploadTranslations(
  ctx: { cfg: Config; api: ApiClient; out: Output },
  files: LocalTranslation[],
  dryRun: boolean,
): Promise<Array<Record<string, unknown>>> {
  const { cfg, api, out } = ctx;
  const report: Array<Record<string, unknown>> = [];
  for (const f of files) {
    const text = readFileSync(path.resolve(cfg.dir, f.file));
    const r = await api.POST('/projects/{projectId}/imports', {
      params: { path: { projectId: cfg.projectId }, query: dryRun ? { dryRun: 'true' } : {} },
      body: {
        contentBase64: text.toString('base64'),
        lang: f.lang,
        format: f.mapping.format,
        fileName: path.basename(f.file),
        // The mapping's own keys (config.ts mappingNamespaces), as its sync and pull name them.
        ...(f.mapping.namespace !== undefined ? { namespace: f.mapping.namespace } : {}),
      },
    });
    if (!r.data) {
      const e = (r.error ?? {}) as { error?: string; message?: string };
      throw new CliError(
        EXIT.failure,
        `import of ${f.file}: ${r.response.status} ${e.error ?? 'error'}${e.message ? `: ${e.message}` : ''}`,
        e,
      );
    }
    const d = r.data;
    out.line(
      `${f.file}: ${dryRun ? 'would import' : 'imported'} ${d.created} new, ${d.updated} updated, ${d.unchanged} unchanged, ${d.conflictsTotal} kept over the file, ${d.skippedUnknownKeys} unknown keys`,
    );
    for (const c of d.conflicts)
      out.line(`  ${c.key} [${c.lang}]: the project's ${c.storedStatus ?? ''} value ${c.resolution}`);
    report.push({ file: f.file, lang: f.lang, import: d });
  }
  return report;
}

/** A requestId derived from what is sent, as commands.ts derives its own: a rerun replays, never repeats. */
const requestIdOf = (body: object) =>
  `glossa-${createHash('sha256').update(stableStringify(body)).digest('hex').slice(0, 40)}`;

/**
 * What a push holds back for the languages whose files it imports: the languages themselves (their AI fill waits for
 * the import), and the files, by mapping.
 */
interface ImportPlan {
  files: LocalTranslation[];
  /** AI-filled languages with at least one local file: the first sync or translate leaves them out. */
  held: string[];
  /** The project's AI-filled target languages. */
  ai: string[];
}

const PLACEHOLDER = /\{(?:locale|android|apple|posix)\}/;

/**
 * Whether a file other than the base file matches `m`'s template on disk (each placeholder standing for any name):
 * only then is the project asked for its languages, so a push with nothing beside its base files sends what it did.
 */
function hasCandidates(cfg: Config, m: FileMapping): boolean {
  if (!m.template || REGISTRY[m.format].multiLanguage) return false;
  const source = path.resolve(cfg.dir, m.source);
  const walk = (dir: string, segments: string[]): boolean => {
    const [head, ...rest] = segments;
    if (!PLACEHOLDER.test(head)) {
      const next = path.join(dir, head);
      return rest.length ? walk(next, rest) : existsSync(next) && next !== source;
    }
    const escaped = head.split(PLACEHOLDER).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    const re = new RegExp(`^${escaped.join('.+')}$`);
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return false;
    }
    return names.some(
      (n) => re.test(n) && (rest.length ? walk(path.join(dir, n), rest) : path.join(dir, n) !== source),
    );
  };
  return walk(
    path.resolve(cfg.dir),
    m.template.split('/').filter((s) => s !== ''),
  );
}

/** The files to import on this push, or null when there are none (or this push imports nothing). */
export async function planImports(
  ctx: { cfg: Config; api: ApiClient },
  mappings: FileMapping[],
): Promise<ImportPlan | null> {
  if (!mappings.some((m) => hasCandidates(ctx.cfg, m))) return null;
  const langs = await projectLanguages(ctx.api, ctx.cfg.projectId);
  const files = mappings.flatMap((m) =>
    localTranslations(
      ctx.cfg,
      m,
      langs.map((l) => l.code),
    ),
  );
  if (!files.length) return null;
  const ai = langs.filter((l) => l.fillMode === 'ai').map((l) => l.code);
  const withFiles = new Set(files.map((f) => f.lang));
  return { files, held: ai.filter((l) => withFiles.has(l)), ai };
}

/** The translate batches' `langs` while the held languages wait: every other AI language (possibly none). */
export const firstLangs = (plan: ImportPlan) => plan.ai.filter((l) => !plan.held.includes(l));

/**
 * After the keys exist: uploads the translate mappings' files, then asks for the held languages' missing values
 * only (pairs the files filled are not queued again). Returns the tracking tokens of what was queued.
 */
export async function importThenTranslate(
  ctx: { cfg: Config; api: ApiClient; out: Output },
  plan: ImportPlan,
  files: LocalTranslation[],
  units: TranslateUnit[],
  report: Array<Record<string, unknown>>,
): Promise<string[]> {
  report.push(...(await uploadTranslations(ctx, files, false)));
  const langs = plan.held.filter((l) => files.some((f) => f.lang === l));
  if (!langs.length) return [];
  const tokens: string[] = [];
  for (let i = 0; i < units.length; i += BATCH) {
    const body = { units: units.slice(i, i + BATCH), langs };
    const r = await translate(ctx.api, ctx.cfg.projectId, { ...body, requestId: requestIdOf(body) });
    if (!r.data) {
      const e = (r.error ?? {}) as { error?: string; message?: string };
      throw new CliError(EXIT.failure, `translate ${langs.join(', ')}: ${r.response.status} ${e.error ?? 'error'}`, e);
    }
    if (r.data.trackingToken) tokens.push(r.data.trackingToken);
    ctx.out.line(`${langs.join(', ')} after the import: ${r.data.estimatedCredits} mc`);
  }
  return tokens;
}

/** After a sync that held languages back: uploads its files, then syncs again so what is still missing is queued. */
export async function importThenSync(
  ctx: { cfg: Config; api: ApiClient; out: Output },
  files: LocalTranslation[],
  body: SyncRequest,
  report: Array<Record<string, unknown>>,
): Promise<string | null> {
  report.push(...(await uploadTranslations(ctx, files, false)));
  const { fillExcept: _held, ...again } = body;
  const r = await sync(ctx.api, ctx.cfg.projectId, { ...again, requestId: requestIdOf(again) });
  if (!r.data) {
    const e = (r.error ?? {}) as { error?: string; message?: string };
    throw new CliError(EXIT.failure, `sync after the import: ${r.response.status} ${e.error ?? 'error'}`, e);
  }
  ctx.out.line(`${body.fileName ?? 'sync'} after the import: ${r.data.estimatedCredits} mc`);
  return r.data.trackingToken;
}

const BATCH = 500;
