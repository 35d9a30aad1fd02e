// Config group: POST /languages, POST /output-formats and DELETE /output-formats/{format} (spec operations
// `addLanguage`, `addOutputFormat`, `removeOutputFormat`), and the same changes the dashboard makes through the
// internal API (`internalAddLanguage`, `internalAddOutputFormat`, `internalRemoveOutputFormat`).
import { contentChanged } from '../../domain/project/revision.js';
import { isUniqueViolation, retryContended, type Db } from '../../infra/db.js';
import { recordEvent } from '../../domain/webhooks/events.js';
import { conflict, invalidArgument } from '../../infra/errors.js';
import type { Handler } from '../pipeline.js';
import { normalizeLanguage } from '../../domain/project/languages.js';
import { projectFormats } from '../../domain/publish/versions.js';
import type { ProjectRow } from '../../infra/tables.js';
import { MAX_OUTPUT_FORMATS, configuredFormats, getProject } from '../../domain/project/projects.js';
import { requestRecheck } from '../../domain/checks/settings.js';

const CAS_RETRIES = 5;

/** Applies `change` under the project's config_version compare-and-set, with the event in the same transaction. */
interface CasPlan<T> {
  update?: Record<string, unknown>;
  event?: unknown;
  result: T;
}

async function casProjectChange<T>(
  db: Db,
  project: ProjectRow,
  attempt: (p: ProjectRow) => Promise<CasPlan<T>> | CasPlan<T>,
): Promise<T> {
  for (let i = 0; i < CAS_RETRIES; i++) {
    // A retry lost to another change of the configuration: it reads the row that change left.
    const p = i === 0 ? project : await getProject(db, project.id);
    const plan = await attempt(p);
    if (!plan.update) return plan.result;
    const now = Date.now();
    const won = await db.transaction(async (trx) => {
      const n = await trx('projects')
        .where({ id: p.id, config_version: p.config_version })
        .whereNull('deleted_at')
        .update({ ...plan.update, config_version: p.config_version + 1, updated_at: now });
      if (n !== 1) return false;
      await recordEvent(trx, p.id, 'project.updated', plan.event, now);
      return true;
    });
    // Format checks run for the configured formats: stored results are checked again (server/domain/checks/).
    if (won && plan.update.output_formats !== undefined)
      await retryContended(() => db.transaction((trx) => requestRecheck(trx, p.id, now)));
    if (won) return plan.result;
  }
  throw conflict('output_config_conflict', 'The project configuration kept changing under this request; retry it.');
}

export const addLanguage: Handler<'addLanguage'> = async (ctx) => ({
  status: 201,
  body: await addLanguageTo(ctx.app.db, ctx.project, ctx.body),
});

export const addOutputFormat: Handler<'addOutputFormat'> = async (ctx) => ({
  status: 200,
  body: await addOutputFormatTo(ctx.app.db, ctx.project, ctx.body),
});

// The dashboard's way to the same changes, without an API key (spec/internal.yaml): one implementation, so a
// refusal reads the same on both.
export const internalAddLanguage: Handler<'internalAddLanguage'> = async (ctx) => ({
  status: 201,
  body: await addLanguageTo(ctx.app.db, ctx.project, ctx.body),
});

export const internalAddOutputFormat: Handler<'internalAddOutputFormat'> = async (ctx) => ({
  body: await addOutputFormatTo(ctx.app.db, ctx.project, ctx.body),
});

export const removeOutputFormat: Handler<'removeOutputFormat'> = async (ctx) => ({
  body: await removeOutputFormatFrom(ctx.app.db, ctx.project, ctx.params.format),
});

export const internalRemoveOutputFormat: Handler<'internalRemoveOutputFormat'> = async (ctx) => ({
  body: await removeOutputFormatFrom(ctx.app.db, ctx.project, ctx.params.format),
});

/** Adds, revives or re-modes a target language (spec `addLanguage`, `internalAddLanguage`). */
async function addLanguageTo(
  db: Db,
  p: ProjectRow,
  body: { code: string; fillMode?: 'ai' | 'manual' },
): Promise<{ code: string; isBase: false; fillMode: 'ai' | 'manual' }> {
  const code = normalizeLanguage(body.code);
  const requested: 'ai' | 'manual' | undefined = body.fillMode;
  if (code === p.base_lang) throw invalidArgument(`${code} is the project's base language.`);
  const now = Date.now();
  const result = await db.transaction(
    async (trx): Promise<{ fillMode: 'ai' | 'manual' | undefined; changed: boolean }> => {
      const row = await trx('project_languages').where({ project_id: p.id, code }).first();
      if (!row) {
        const fillMode = requested ?? 'ai';
        try {
          await trx('project_languages').insert({
            project_id: p.id,
            code,
            fill_mode: fillMode,
            created_at: now,
            updated_at: now,
          });
        } catch (err) {
          // A concurrent request added it first: that request wrote the change and its event.
          if (!isUniqueViolation(err)) throw err;
          return { fillMode: undefined, changed: false };
        }
        await recordEvent(
          trx,
          p.id,
          'project.updated',
          { projectId: p.id, change: 'language.added', code, fillMode },
          now,
        );
        await contentChanged(trx, p.id, now);
        return { fillMode, changed: true };
      }
      if (row.removed_at != null) {
        const fillMode = requested ?? 'ai';
        const n = await trx('project_languages')
          .where({ project_id: p.id, code })
          .whereNotNull('removed_at')
          .update({ removed_at: null, fill_mode: fillMode, updated_at: now });
        if (n !== 1) return { fillMode: row.fill_mode, changed: false };
        await recordEvent(
          trx,
          p.id,
          'project.updated',
          { projectId: p.id, change: 'language.revived', code, fillMode },
          now,
        );
        await contentChanged(trx, p.id, now);
        return { fillMode, changed: true };
      }
      if (!requested || requested === row.fill_mode) return { fillMode: row.fill_mode, changed: false };
      const n = await trx('project_languages')
        .where({ project_id: p.id, code })
        .whereNull('removed_at')
        .update({ fill_mode: requested, updated_at: now });
      if (n !== 1) throw conflict('conflict', `${code} was removed while this request ran.`);
      await recordEvent(
        trx,
        p.id,
        'project.updated',
        { projectId: p.id, change: 'language.fill_mode', code, fillMode: requested },
        now,
      );
      return { fillMode: requested, changed: true };
    },
  );
  // Lost an insert race: read what the winner stored, outside the finished transaction's snapshot.
  const fillMode =
    result.fillMode ?? (await db('project_languages').where({ project_id: p.id, code }).first())!.fill_mode;
  return { code, isBase: false, fillMode };
}

/** Configures an output format (spec `addOutputFormat`, `internalAddOutputFormat`). */
async function addOutputFormatTo(
  db: Db,
  project: ProjectRow,
  body: { format: string; mode?: 'add' | 'adopt' },
): Promise<{ formats: string[]; created: boolean }> {
  const format = body.format;
  const mode: 'add' | 'adopt' = body.mode ?? 'add';
  return casProjectChange(db, project, async (p): Promise<CasPlan<{ formats: string[]; created: boolean }>> => {
    const configured = configuredFormats(p);
    // An already configured id is a no-op, even in a legacy list over the cap.
    if (configured.includes(format)) return { result: { formats: configured, created: false } };
    const effective: string[] = await projectFormats(db, p);
    let next: string[];
    if (mode === 'adopt') {
      if (effective.length && !effective.includes(format)) {
        throw conflict(
          'output_format_conflict',
          `adopt accepts only an already effective format (${effective.join(', ')}) or an empty list.`,
        );
      }
      next = effective.length ? effective : [format];
    } else {
      next = [...effective, format];
    }
    if (next.length > MAX_OUTPUT_FORMATS) {
      throw conflict(
        'too_many_formats',
        `A project has at most ${MAX_OUTPUT_FORMATS} output formats (configured: ${effective.join(', ')}).`,
      );
    }
    return {
      update: { output_formats: JSON.stringify(next) },
      event: { projectId: p.id, change: 'output_formats', outputFormats: next, previous: configured },
      result: { formats: next, created: true },
    };
  });
}

/**
 * Takes a format out of the effective list (spec `removeOutputFormat`, `internalRemoveOutputFormat`). While none
 * is configured the effective list is the published formats', so removing one materializes the rest; the last one
 * stays, since an empty configuration would fall back to the published formats and render it again.
 */
async function removeOutputFormatFrom(
  db: Db,
  project: ProjectRow,
  format: string,
): Promise<{ formats: string[]; removed: boolean }> {
  return casProjectChange(db, project, async (p): Promise<CasPlan<{ formats: string[]; removed: boolean }>> => {
    const configured = configuredFormats(p);
    const effective: string[] = await projectFormats(db, p);
    if (!effective.includes(format)) return { result: { formats: configured, removed: false } };
    const next = effective.filter((f) => f !== format);
    if (!next.length)
      throw conflict(
        'last_output_format',
        `${format} is the last output format; add the one that replaces it first (a project has at most ${MAX_OUTPUT_FORMATS}).`,
      );
    return {
      update: { output_formats: JSON.stringify(next) },
      event: { projectId: p.id, change: 'output_formats', outputFormats: next, previous: configured },
      result: { formats: next, removed: true },
    };
  });
}
