// The prepared publish: what POST /publish with the default flags would mint for a project's current content
// (snapshot, gate results, every rendered object), computed in the background once the content has been quiet
// for PREPARE_DELAY_MS. A publish that finds one matching its flags and the project's content revision copies
// the objects and the snapshot and mints, instead of reading and rendering every cell while the client waits.
// Every other publish (other flags, content changed since, a race lost) takes the full path: the prepared one
// is only ever a faster way to the same version.
import { randomBytes } from 'node:crypto';
import type { DeliveryIndex } from '../../../packages/core/src/delivery.js';
import type { ProjectRow } from '../../infra/tables.js';
import { contentRev } from '../project/revision.js';
import { parseJson, type Db } from '../../infra/db.js';
import type { App } from '../../infra/app.js';
import { defaultParams, sameParams, type GateSummary, type PublishParams } from './build.js';
import { collectParts, deleteHead, storedSnapshot, storeHead } from './parts-store.js';
import { deleteStaged } from './store.js';
import { buildSnapshot, collisionsOf, publishEnv, renderSnapshot, reusableFor } from './stream.js';
import type { PreparedSource, Unapproved } from './versions.js';

/** What a publish needs besides the objects and the snapshot, which stay in the store and the database. */
export interface PreparedSummary extends GateSummary {
  keyCount: number;
  baseLang: string;
  languages: string[];
  unapproved: Unapproved;
  index: DeliveryIndex;
}

export interface Prepared {
  source: PreparedSource;
  digest: string;
  summary: PreparedSummary;
}

/** The project's prepared publish, if it was computed for `params` and for the project's content as it is now. */
export async function preparedFor(db: Db, project: ProjectRow, params: PublishParams): Promise<Prepared | null> {
  const row = await db('prepared_publishes')
    .where({ project_id: project.id })
    .first('content_rev', 'params', 'token', 'digest', 'summary');
  if (
    !row ||
    Number(row.content_rev) !== (await contentRev(db, project.id)) ||
    !sameParams(parseJson(row.params, params), params)
  )
    return null;
  const summary = JSON.parse(row.summary) as PreparedSummary;
  return {
    source: { token: row.token, rev: Number(row.content_rev), index: summary.index },
    digest: row.digest,
    summary,
  };
}

/**
 * Prepares one project's publish. Reads without holding a transaction (a large project takes a while); the
 * revision read before and checked again when storing tells whether any content write committed meanwhile.
 */
export async function prepareProject(app: App, projectId: string): Promise<'prepared' | 'changed' | 'skipped'> {
  const { db, objects } = app;
  const rev = await contentRev(db, projectId);
  const settle = (trx: Db) =>
    trx('project_content').where({ project_id: projectId, content_rev: rev }).update({ changed_at: null });
  const project: ProjectRow | undefined = await db('projects').where({ id: projectId }).whereNull('deleted_at').first();
  if (!project) {
    await settle(db);
    return 'skipped';
  }
  const params = await defaultParams(db, project);
  const env = publishEnv(app);
  const built = await buildSnapshot(env, projectId, params);
  // A publish refuses these (409 export_collision): nothing to prepare until the keys change.
  if ((await collisionsOf(env, built, params.formats)).length) {
    await settle(db);
    return 'skipped';
  }
  const token = randomBytes(12).toString('hex');
  let replaced: { token: string; digest: string } | null | false;
  try {
    // Rendered and written before the transaction, which holds the database (on SQLite, every writer) only for the rows.
    const index = await renderSnapshot(
      env,
      projectId,
      token,
      storedSnapshot(db, projectId, built.head, built.keys),
      params.formats,
      await reusableFor(env, projectId, built.head, params.formats),
    );
    const summary: PreparedSummary = {
      ...built.gates,
      keyCount: built.head.keys.length,
      baseLang: built.head.baseLang,
      languages: built.head.languages,
      unapproved: built.unapproved,
      index,
    };
    replaced = await db.transaction(async (trx) => {
      if ((await contentRev(trx, projectId)) !== rev) return false;
      const old = await trx('prepared_publishes').where({ project_id: projectId }).first('token', 'digest');
      await trx('prepared_publishes')
        .insert({
          project_id: projectId,
          content_rev: rev,
          params: JSON.stringify(params),
          token,
          digest: built.digest,
          summary: JSON.stringify(summary),
          created_at: Date.now(),
        })
        .onConflict('project_id')
        .merge();
      await storeHead(trx, projectId, built.digest, built.body);
      // The replaced one's snapshot, unless a version was minted from it.
      if (
        old &&
        old.digest !== built.digest &&
        !(await trx('versions').where({ project_id: projectId, digest: old.digest }).first('id'))
      ) {
        await deleteHead(trx, projectId, old.digest, Date.now());
      }
      await settle(trx);
      return old ?? null;
    });
  } catch (err) {
    await deleteStaged(objects, projectId, token);
    throw err;
  }
  if (replaced === false) {
    // Content changed while this ran: its objects describe nothing, and the change set the project due again.
    await deleteStaged(objects, projectId, token);
    await collectParts(db, projectId, Date.now());
    return 'changed';
  }
  // No publish can still be copying these: a publish holds the prepared row until it commits (versions.ts).
  if (replaced) await deleteStaged(objects, projectId, replaced.token);
  return 'prepared';
}

/** The sweep: prepares the projects whose content has been quiet for the configured delay, oldest change first. */
export async function prepareDue(app: App, now: number, projectId?: string): Promise<void> {
  const { db } = app;
  // `projectId`: that project alone (run-due scoped to a project, server/infra/jobs.ts runDueForProject).
  const due: string[] = await db('project_content')
    .where(projectId === undefined ? {} : { project_id: projectId })
    .whereNotNull('changed_at')
    .andWhere('changed_at', '<=', now - app.config.prepareDelayMs)
    .orderBy('changed_at')
    .limit(20)
    .pluck('project_id');
  for (const id of due) {
    try {
      await prepareProject(app, id);
    } catch (err) {
      // One project's failure (its object store, say) must not hold up the others: it is tried again later.
      app.log.warn({ err, projectId: id }, 'preparing a publish failed');
      await db('project_content').where({ project_id: id }).update({ changed_at: now });
    }
  }
}
