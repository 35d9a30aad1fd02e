// POST /imports (spec: `importTranslations`, `ImportRequest`): one target language's file in, as one transaction.
// The matching and the rules are the domain's (server/domain/sync/import.ts); this module reads the request, runs
// the plan as a dry run or inside the request record, and answers the counts.
import type { Handler } from '../pipeline.js';
import { retryContended, isUniqueViolation } from '../../infra/db.js';
import { withRequestRecord } from '../../infra/requests.js';
import { applyImport, importResult, planImport } from '../../domain/sync/import.js';

export const importTranslations: Handler<'importTranslations'> = async (ctx) => {
  const { db } = ctx.app;
  const project = ctx.project;
  if (ctx.dryRun) return { body: importResult(await planImport(db, project, ctx.body)) };
  // The request record comes first: a refused file is recorded under the requestId too.
  return withRequestRecord(
    db,
    { keyId: ctx.principal!.keyId, projectId: project.id, body: ctx.body, approval: ctx.approval },
    'import',
    () =>
      retryContended(
        () =>
          db.transaction(async (trx) => {
            const plan = await planImport(trx, project, ctx.body);
            await applyImport(trx, project, plan);
            return { reply: { body: importResult(plan) } };
          }),
        { retryOn: isUniqueViolation },
      ),
  );
};
