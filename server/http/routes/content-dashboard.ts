// Content for the dashboard's lists (spec/internal.yaml internalListContent, internalListContentVersions): every
// document's working state per language in counts, and a document's retained versions. Reviewers may read both.
import type { Db } from '../../infra/db.js';
import { bool, parseJson } from '../../infra/db.js';
import { notFound } from '../../infra/errors.js';
import type { Handler } from '../pipeline.js';
import type { ContentDocRow, ContentLangRow, ContentUnitRow, ProjectRow } from '../../infra/tables.js';
import { requireDoc, unitState, unitsOf } from '../../domain/content/store.js';
import type { Summary } from '../../domain/content/versions.js';

const LIST_LIMIT = 200;
const iso = (ms: unknown) => (ms == null ? null : new Date(Number(ms)).toISOString());

function contentProject(project: ProjectRow): ProjectRow {
  if (!bool(project.content_enabled)) throw notFound('Content is not enabled for this project.');
  return project;
}

/** The unit rows of these documents without their texts (only whether there is one): counts need no more. */
async function unitStates(db: Db, projectId: string, docIds: string[]) {
  const rows = await db('content_units')
    .where({ project_id: projectId })
    .whereIn('doc_id', docIds)
    .select<Array<Pick<ContentUnitRow, 'doc_id' | 'lang' | 'unit_id' | 'source_hash' | 'gave_up'> & { empty: number }>>(
      'doc_id',
      'lang',
      'unit_id',
      'source_hash',
      'gave_up',
      db.raw('CASE WHEN text IS NULL THEN 1 ELSE 0 END AS empty'),
    );
  const byKey = new Map<string, ContentUnitRow>();
  for (const { empty, ...r } of rows)
    byKey.set(`${r.doc_id}\n${r.lang}\n${r.unit_id}`, {
      ...r,
      project_id: projectId,
      updated_at: 0,
      text: Number(empty) ? null : '',
    });
  return byKey;
}

export const internalListContent: Handler<'internalListContent'> = async (ctx) => {
  const { db } = ctx.app;
  const project = contentProject(ctx.project);
  // Everything but the source text: the blocks' hashes are stored apart from it.
  const docs: ContentDocRow[] = (
    await db('content_docs')
      .where({ project_id: project.id })
      .orderBy('doc_id')
      .limit(LIST_LIMIT + 1)
      .select(
        'project_id',
        'doc_id',
        'title',
        'format',
        'base_lang',
        'external_id',
        'fields',
        'blocks',
        'health',
        'revision',
        'state_rev',
        'published_version',
        'published_at',
        'published_state_rev',
        'created_at',
        'updated_at',
      )
  ).map((d: Omit<ContentDocRow, 'text'>) => ({ ...d, text: '' }));
  const shown = docs.slice(0, LIST_LIMIT);
  const docIds = shown.map((d) => d.doc_id);
  const languages: string[] = await db('project_languages')
    .where({ project_id: project.id })
    .whereNull('removed_at')
    .orderBy('code')
    .pluck('code');
  const units = docIds.length ? await unitStates(db, project.id, docIds) : new Map<string, ContentUnitRow>();
  const langRows = new Map<string, ContentLangRow>(
    docIds.length
      ? (await db('content_langs').where({ project_id: project.id }).whereIn('doc_id', docIds)).map(
          (r: ContentLangRow) => [`${r.doc_id}\n${r.lang}`, r],
        )
      : [],
  );
  const documents = shown.map((doc) => {
    const all = unitsOf(doc);
    const targets = [project.base_lang, ...languages].filter((l) => l !== doc.base_lang);
    return {
      docId: doc.doc_id,
      title: doc.title,
      format: doc.format,
      baseLang: doc.base_lang,
      externalId: doc.external_id,
      health: doc.health,
      versionId: doc.published_version,
      publishedAt: iso(doc.published_at),
      updatedAt: iso(doc.updated_at)!,
      pending: doc.published_version == null || Number(doc.published_state_rev) !== Number(doc.state_rev),
      langs: targets.map((code) => {
        const counts = { translated: 0, stale: 0, missing: 0, gave_up: 0 };
        for (const u of all) counts[unitState(u, units.get(`${doc.doc_id}\n${code}\n${u.id}`))]++;
        const l = langRows.get(`${doc.doc_id}\n${code}`);
        return {
          code,
          stage: l?.stage ?? null,
          running: !!l?.run_id,
          translated: counts.translated,
          stale: counts.stale,
          missing: counts.missing,
          gaveUp: counts.gave_up,
        };
      }),
    };
  });
  return { body: { truncated: docs.length > LIST_LIMIT, documents } };
};

export const internalListContentVersions: Handler<'internalListContentVersions'> = async (ctx) => {
  const { db } = ctx.app;
  const project = contentProject(ctx.project);
  const doc = await requireDoc(db, project.id, ctx.params.docId);
  const rows = await db('content_versions')
    .where({ project_id: project.id, doc_id: doc.doc_id })
    .orderBy('created_at', 'desc')
    .orderBy('version_id', 'desc')
    .select('version_id', 'publish_id', 'summary', 'created_at');
  return {
    body: {
      docId: doc.doc_id,
      servedVersionId: doc.published_version,
      versions: rows.map((r) => {
        const s = parseJson<Summary>(r.summary, null as never);
        return {
          versionId: r.version_id,
          publishId: r.publish_id,
          createdAt: iso(r.created_at)!,
          title: s.title,
          langs: s.langs.map((l) =>
            l.stage ? { code: l.code, source: l.source, stage: l.stage } : { code: l.code, source: l.source },
          ),
        };
      }),
    },
  };
};
