// The re-check after a termbase change: the glossary check's results of a cell depend on the terms its key's source
// uses, so when a term is created, changed (its text, translations or flags), deleted or imported, the keys whose
// sources use it (under its old or its new text) are checked again, and the key list's check filters, the key read
// and `GET /checks` stay true. Job `checks.terms` per project the term reaches (its own project, or every project of
// its workspace in its language): it walks the project's keys in id order, finds the sources that use any of the
// changed texts with the termbase's own matcher, and checks those keys whole (store.ts checkKeys), a few a
// transaction. The matcher is built loosely (stemmed, case folded), so it finds every key the stored terms can match
// and perhaps a few more, which are checked again for nothing.
import { TermIndex } from '../../../packages/core/src/terms/matcher.js';
import type { Db } from '../../infra/db.js';
import { chunks, retryContended } from '../../infra/db.js';
import { enqueueJob, type JobContext } from '../../infra/jobs.js';
import type { ProjectRow } from '../../infra/tables.js';
import { requestRecheck } from './settings.js';
import { checkKeys } from './store.js';

/** The job that re-checks the keys using changed terms (registered in server/app/jobs.ts). */
export const TERMS_RECHECK_JOB = 'checks.terms';

export interface TermsRecheckPayload {
  projectId: string;
  /** The changed terms' texts, old and new. */
  texts: string[];
}

/** More changed texts than this (a large import): the project's whole re-check instead, not a payload of them all. */
const MAX_TEXTS = 500;
/** Keys read per statement while looking for the sources that use a text. */
const KEYS_PER_READ = 2_000;
/** Keys checked per transaction: a short transaction, as the checks.keys job's. */
const KEYS_PER_WRITE = 25;

/**
 * Queues the re-check of what the terms `texts` (old and new spellings) reach: `scope` project, the project's keys;
 * workspace, the keys of every live project of the workspace in the project's base language. Called in the termbase
 * write's transaction (terms/store.ts TermWriteHook), so the re-check is queued if and only if the write commits, and
 * the job, claimed only once both are committed, reads the terms as they now are.
 */
export async function recheckTermUses(
  trx: Db,
  project: Pick<ProjectRow, 'id' | 'workspace_id' | 'base_lang'>,
  scope: 'project' | 'workspace',
  texts: Iterable<string>,
  now = Date.now(),
): Promise<void> {
  const distinct = [...new Set([...texts].map((t) => t.normalize('NFC').trim()).filter(Boolean))];
  if (!distinct.length) return;
  const projects =
    scope === 'project'
      ? [project.id]
      : await trx('projects')
          .where({ workspace_id: project.workspace_id, base_lang: project.base_lang })
          .whereNull('deleted_at')
          .pluck<string[]>('id');
  for (const projectId of projects) {
    if (distinct.length > MAX_TEXTS) {
      await requestRecheck(trx, projectId, now);
      continue;
    }
    await enqueueJob(trx, TERMS_RECHECK_JOB, { projectId, texts: distinct } satisfies TermsRecheckPayload, { now });
  }
}

/** The job: the keys whose sources use a changed text, checked again. */
export async function runTermsRecheck(db: Db, job: JobContext<TermsRecheckPayload>): Promise<void> {
  const { projectId, texts } = job.payload;
  const project: { base_lang: string } | undefined = await db('projects')
    .where({ id: projectId })
    .whereNull('deleted_at')
    .first('base_lang');
  if (!project) return;
  const index = new TermIndex(
    texts.map((text) => ({ text, caseSensitive: false, exact: false })),
    project.base_lang,
  );
  for (let after = 0; ;) {
    const keys: Array<{ id: number | string; source: string }> = await db('keys')
      .where('project_id', projectId)
      .andWhere('id', '>', after)
      .orderBy('id')
      .limit(KEYS_PER_READ)
      .select('id', 'source');
    if (!keys.length) return;
    after = Number(keys[keys.length - 1].id);
    const using = keys.filter((k) => index.find(k.source).length > 0).map((k) => Number(k.id));
    for (const part of chunks(using, KEYS_PER_WRITE))
      await retryContended(() =>
        db.transaction(async (trx) => {
          await job.fence(trx);
          await checkKeys(trx, projectId, part, Date.now(), true, true);
        }),
      );
  }
}
