// What a project's cells are checked with, read from the database: its base language, its effective output formats
// (format-specific checks run for these), its markup origins and its check settings, with the settings' revision.
import type { FormatId } from '../../../packages/core/src/catalog.js';
import type { Term } from '../../../packages/core/src/checks/types.js';
import type { Db } from '../../infra/db.js';
import { parseJson } from '../../infra/db.js';
import type { ProjectRow } from '../../infra/tables.js';
import { notFound } from '../../infra/errors.js';
import { effectiveFormats, listLanguages, markupPolicy } from '../project/projects.js';
import { checkTermsForMany } from '../terms/glossary.js';
import type { CheckContext } from './compute.js';
import { settingsOf } from './settings.js';

export async function checkContext(db: Db, projectId: string): Promise<CheckContext & { rev: number }> {
  // One statement for the project, its check settings and whether its workspace has terms: every write of a cell
  // asks for this context, some twice (a push checks its sources, then its cells).
  const p = await db('projects as p')
    .leftJoin('project_checks as c', 'c.project_id', 'p.id')
    .where('p.id', projectId)
    .first<(ProjectRow & { check_settings: string | null; check_rev: number | null; has_terms: number }) | undefined>(
      'p.*',
      'c.settings as check_settings',
      'c.rev as check_rev',
      db.raw('exists (select 1 from terms t where t.workspace_id = p.workspace_id) as has_terms'),
    );
  if (!p) throw notFound('Project not found.');
  // While no format is configured, the formats of the published versions are the effective ones (addOutputFormat).
  const versions = parseJson<string[]>(p.output_formats, []).length
    ? []
    : (await db('versions').where({ project_id: projectId }).orderBy('day').orderBy('seq').select('formats')).map((r) =>
        parseJson<string[]>(r.formats, []),
      );
  const state = settingsOf({ settings: p.check_settings, rev: p.check_rev });
  // The glossary check's terms per target language: the same lists until the termbase changes (glossary.ts).
  const glossary = Number(p.has_terms)
    ? await checkTermsForMany(
        db,
        p,
        (await listLanguages(db, projectId)).map((l) => l.code),
      )
    : { stamp: '', terms: {} as Record<string, Term[]> };
  const terms = glossary.terms;
  return {
    baseLang: p.base_lang,
    formats: effectiveFormats(p, versions) as FormatId[],
    origins: markupPolicy(p).origins,
    settings: state.settings,
    ...(Object.keys(terms).length ? { terms, termsStamp: glossary.stamp } : {}),
    rev: state.rev,
  };
}
