// Keys group (spec: `searchKeys`, `getKey`, `putTranslation`): a translator's (or an agent's) work through the API,
// on the same rows and rules as the dashboard's key list, key page and editor (routes/keys.ts, routes/review.ts).
// An edit through a key is recorded under `key:<api key id>` and never approves: approval stays a person's.
import type { Handler } from '../pipeline.js';
import { invalidArgument } from '../../infra/errors.js';
import { internalListKeys, internalPutTranslation } from './keys.js';
import { internalGetKey } from './review.js';

/** The dashboard's list without disabled and captured keys: what a publish takes, what a translator works on. */
export const searchKeys: Handler<'searchKeys'> = (ctx) =>
  internalListKeys({ ...ctx, query: { ...ctx.query, disabled: false, captured: false } });

export const getKey: Handler<'getKey'> = (ctx) => internalGetKey(ctx) as never;

export const putTranslation: Handler<'putTranslation'> = async (ctx) => {
  if ((ctx.body as { status?: string }).status === 'approved')
    throw invalidArgument("Approval is a person's: mark it reviewed, and a person approves it in the dashboard.");
  const p = ctx.principal!;
  // Marking reviewed never moves an approved value down (as the dashboard's bulk review): it is answered as it is.
  if (ctx.body.value === undefined && ctx.body.status === 'reviewed') {
    const detail = (await internalGetKey(ctx)) as {
      body: {
        key: string;
        cells: Array<{ lang: string; status: string; value: string | null; origin: string | null }>;
      };
    };
    const cell = detail.body.cells.find((c) => c.lang === ctx.params.lang.toLowerCase().replace(/_/g, '-'));
    if (cell?.status === 'approved' && cell.value !== null)
      return {
        body: {
          key: detail.body.key,
          lang: cell.lang,
          status: 'approved',
          value: cell.value,
          origin: (cell.origin ?? 'edit') as 'ai' | 'memory' | 'import' | 'edit',
        },
      };
  }
  // The editor's save, as the key that made it (its history's `by`), never with a person's role.
  return internalPutTranslation({
    ...ctx,
    actor: { userId: `key:${p.keyId}`, name: `API key ${p.keyId}`, role: 'reviewer' },
  } as never);
};
