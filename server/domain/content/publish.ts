// Publishing documents (spec: internalPublishContent, internalRollbackContent, internalDeleteContent). One publish
// is one transaction under the project's content lock: it names one version `YYYY.MM.DD.N`, decides each
// document's action, freezes the moved ones and records `content.published` in the same commit (the events table
// is the webhooks' outbox), so an event exists exactly when its versions do.
import type { Db } from '../../infra/db.js';
import { lockProject, newId } from '../../infra/db.js';
import { newEventId, recordEvent } from '../webhooks/events.js';
import { invalidArgument, notFound } from '../../infra/errors.js';
import type { ContentDocRow, ContentLangRow, ProjectRow } from '../../infra/tables.js';
import { readUnits, requireDoc } from './store.js';
import { nextVersionId, parseSnapshot, readVersion, snapshotOf, summaryOf, type Snapshot } from './versions.js';

/** A frozen version larger than this (every language together) is skipped and counted in `docsTooLarge`. */
const MAX_VERSION_BYTES = 12 * 1024 * 1024;
/** Rows of `documents` in a `content.published` event (its `maxItems` in `ContentPublishedEvent`). */
const EVENT_DOCUMENTS = 200;

type Action = 'published' | 'held' | 'unchanged' | 'skipped';

interface DocResult {
  docId: string;
  action: Action;
  versionId: string | null;
  externalId?: string;
  reason?: string;
}

interface Summary {
  docsPublished: number;
  docsHeld: number;
  docsUnchanged: number;
  docsSkipped: number;
  docsTooLarge: number;
}

/** The languages a document is translated into: every live language of the project but its own. */
export async function targetsOf(db: Db, project: ProjectRow, doc: Pick<ContentDocRow, 'base_lang'>): Promise<string[]> {
  const langs = await db('project_languages')
    .where({ project_id: project.id })
    .whereNull('removed_at')
    .orderBy('code')
    .pluck('code');
  return [project.base_lang, ...langs].filter((l) => l !== doc.base_lang);
}

async function langRows(db: Db, projectId: string, docId: string): Promise<Map<string, ContentLangRow>> {
  const rows = await db('content_langs').where({ project_id: projectId, doc_id: docId });
  return new Map(rows.map((r) => [r.lang, r]));
}

/** The snapshot without what only says when it was taken: equal means publishing would change nothing. */
const sameContent = (a: Snapshot, b: Snapshot) => JSON.stringify(a) === JSON.stringify(b);

function eventBody(
  project: ProjectRow,
  publishId: string,
  summary: Summary,
  docs: DocResult[],
  now: number,
  id: string,
) {
  const documents = docs.slice(0, EVENT_DOCUMENTS).map((d) => ({
    docId: d.docId,
    action: d.action,
    versionId: d.versionId,
    ...(d.externalId != null ? { externalId: d.externalId } : {}),
  }));
  return {
    id,
    type: 'content.published',
    schemaVersion: 1,
    createdAt: new Date(now).toISOString(),
    project: { id: project.id, handle: project.handle, slug: project.slug },
    data: { publishId, summary, documents, truncated: docs.length > EVENT_DOCUMENTS },
  };
}

async function freeze(
  trx: Db,
  doc: ContentDocRow,
  snapshot: Snapshot,
  versionId: string,
  publishId: string,
  now: number,
) {
  await trx('content_versions').insert({
    project_id: doc.project_id,
    doc_id: doc.doc_id,
    version_id: versionId,
    publish_id: publishId,
    snapshot: JSON.stringify(snapshot),
    summary: JSON.stringify(summaryOf(snapshot, now)),
    created_at: now,
  });
  await trx('content_docs')
    .where({ project_id: doc.project_id, doc_id: doc.doc_id })
    .update({ published_version: versionId, published_at: now, published_state_rev: doc.state_rev });
}

async function decide(
  trx: Db,
  project: ProjectRow,
  docId: string,
  versionId: string,
  publishId: string,
  now: number,
): Promise<DocResult & { tooLarge?: boolean }> {
  const doc = await trx('content_docs').where({ project_id: project.id, doc_id: docId }).first();
  if (!doc) return { docId, action: 'skipped', versionId: null, reason: 'not_found' };
  const base = { docId, ...(doc.external_id != null ? { externalId: doc.external_id } : {}) };
  const served = doc.published_version;
  if (doc.text == null) return { ...base, action: 'skipped', versionId: served, reason: 'revision_missing' };
  if (doc.health) return { ...base, action: 'skipped', versionId: served, reason: `health_blocked: ${doc.health}` };
  const langs = await langRows(trx, project.id, docId);
  if ([...langs.values()].some((l) => l.run_id))
    return { ...base, action: 'held', versionId: served, reason: 'run_in_progress' };
  if (served && doc.published_state_rev === doc.state_rev) return { ...base, action: 'unchanged', versionId: served };
  const snapshot = snapshotOf(doc, await targetsOf(trx, project, doc), await readUnits(trx, project.id, docId), langs);
  if (served) {
    const current = await readVersion(trx, project.id, docId, served);
    if (current && sameContent(parseSnapshot(current), snapshot)) {
      // Nothing a reader sees moved (e.g. a run re-made the same texts): remember so, and publish nothing.
      await trx('content_docs')
        .where({ project_id: project.id, doc_id: docId })
        .update({ published_state_rev: doc.state_rev });
      return { ...base, action: 'unchanged', versionId: served };
    }
  }
  if (Buffer.byteLength(JSON.stringify(snapshot)) > MAX_VERSION_BYTES)
    return { ...base, action: 'skipped', versionId: served, reason: 'too_large', tooLarge: true };
  await freeze(trx, doc, snapshot, versionId, publishId, now);
  return { ...base, action: 'published', versionId };
}

/** POST /internal/v1/projects/{projectId}/content/publish. */
export async function publishDocuments(db: Db, project: ProjectRow, docIds: readonly string[] | undefined) {
  const publishId = newId('cpub', 9);
  return db.transaction(async (trx) => {
    await lockProject(trx, project.id, 'content');
    const now = Date.now();
    const ids =
      docIds ?? (await trx('content_docs').where({ project_id: project.id }).orderBy('doc_id').pluck('doc_id'));
    const versionId = await nextVersionId(trx, project.id, now);
    const results: Array<DocResult & { tooLarge?: boolean }> = [];
    for (const docId of [...new Set(ids)]) results.push(await decide(trx, project, docId, versionId, publishId, now));
    const count = (a: Action) => results.filter((r) => r.action === a).length;
    const summary: Summary = {
      docsPublished: count('published'),
      docsHeld: count('held'),
      docsUnchanged: count('unchanged'),
      docsSkipped: count('skipped'),
      docsTooLarge: results.filter((r) => r.tooLarge).length,
    };
    const documents: DocResult[] = results.map(({ tooLarge, ...r }) => (void tooLarge, r));
    if (summary.docsPublished > 0) {
      const eventId = newEventId();
      await recordEvent(
        trx,
        project.id,
        'content.published',
        eventBody(project, publishId, summary, documents, now, eventId),
        now,
        eventId,
      );
    }
    return { publishId, versionId: summary.docsPublished ? versionId : null, summary, documents };
  });
}

/** POST .../content/{docId}/rollback: the texts of `versionId` served again under a new version. */
export async function rollbackDocument(db: Db, project: ProjectRow, docId: string, versionId: string) {
  const publishId = newId('cpub', 9);
  return db.transaction(async (trx) => {
    await lockProject(trx, project.id, 'content');
    const now = Date.now();
    const doc = await requireDoc(trx, project.id, docId);
    const old = await readVersion(trx, project.id, docId, versionId);
    if (!old) throw notFound(`Document ${docId} has no version ${versionId}.`);
    if (versionId === doc.published_version) throw invalidArgument(`${versionId} is the version served already.`);
    const id = await nextVersionId(trx, project.id, now);
    const snapshot = parseSnapshot(old);
    await trx('content_versions').insert({
      project_id: project.id,
      doc_id: docId,
      version_id: id,
      publish_id: publishId,
      snapshot: old.snapshot,
      summary: JSON.stringify(summaryOf(snapshot, now)),
      created_at: now,
    });
    // The rollback stands until the document changes again: a later publish of everything leaves it unchanged.
    await trx('content_docs')
      .where({ project_id: project.id, doc_id: docId })
      .update({ published_version: id, published_at: now, published_state_rev: doc.state_rev });
    const summary = { docsPublished: 1, docsHeld: 0, docsUnchanged: 0, docsSkipped: 0, docsTooLarge: 0 };
    const documents: DocResult[] = [
      {
        docId,
        action: 'published',
        versionId: id,
        ...(doc.external_id != null ? { externalId: doc.external_id } : {}),
      },
    ];
    const eventId = newEventId();
    await recordEvent(
      trx,
      project.id,
      'content.published',
      eventBody(project, publishId, summary, documents, now, eventId),
      now,
      eventId,
    );
    return { docId, versionId: id, rolledBackTo: versionId };
  });
}

/** DELETE .../content/{docId}: the document and everything of it. A run still going finds it gone and ends. */
export async function deleteDocument(db: Db, projectId: string, docId: string): Promise<void> {
  await db.transaction(async (trx) => {
    const doc = await requireDoc(trx, projectId, docId);
    const where = { project_id: projectId, doc_id: doc.doc_id };
    for (const table of ['content_units', 'content_langs', 'content_versions', 'content_docs'] as const)
      await trx(table).where(where).delete();
  });
}
