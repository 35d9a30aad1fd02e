// The project's API keys as the dashboard lists them (create and revoke: projects.routes.ts). Secrets are never
// read back: only their hashes are stored.
import { parseJson, bool } from '../../infra/db.js';
import type { Handler } from '../pipeline.js';
import type { Scope } from '../apikeys.js';
import type { ApiKeyRow } from '../../infra/tables.js';

const LIST_LIMIT = 500;
const iso = (ms: unknown) => (ms == null ? null : new Date(Number(ms)).toISOString());

export const internalListApiKeys: Handler<'internalListApiKeys'> = async (ctx) => {
  const { db } = ctx.app;
  const p = ctx.project;
  const rows: ApiKeyRow[] = await db('api_keys')
    .where({ project_id: p.id })
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(LIST_LIMIT);
  return {
    body: {
      apiKeys: rows.map((r) => ({
        keyId: r.id,
        name: r.name,
        scopes: parseJson<Scope[]>(r.scopes, []),
        requiresOperationApproval: bool(r.requires_operation_approval),
        createdAt: iso(r.created_at)!,
        lastUsedAt: iso(r.last_used_at),
        revokedAt: iso(r.revoked_at),
      })),
    },
  };
};
