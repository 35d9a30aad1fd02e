// What a project's cells are checked with, read from the database: its base language, its effective output formats
// (format-specific checks run for these), its markup origins and its check settings, with the settings' revision.
import type { FormatId } from '../../../packages/core/src/catalog.js';
import type { Db } from '../../infra/db.js';
import { parseJson } from '../../infra/db.js';
import { notFound } from '../../infra/errors.js';
import { effectiveFormats, markupPolicy } from '../project/projects.js';
import type { CheckContext } from './compute.js';
import { checkState } from './settings.js';

export async function checkContext(db: Db, projectId: string): Promise<CheckContext & { rev: number }> {
  const p = await db('projects').where({ id: projectId }).first();
  if (!p) throw notFound('Project not found.');
  // While no format is configured, the formats of the published versions are the effective ones (addOutputFormat).
  const versions = parseJson<string[]>(p.output_formats, []).length
    ? []
    : (await db('versions').where({ project_id: projectId }).orderBy('day').orderBy('seq').select('formats')).map((r) =>
        parseJson<string[]>(r.formats, []),
      );
  const state = await checkState(db, projectId);
  return {
    baseLang: p.base_lang,
    formats: effectiveFormats(p, versions) as FormatId[],
    origins: markupPolicy(p).origins,
    settings: state.settings,
    rev: state.rev,
  };
}
