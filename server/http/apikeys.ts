// Project API keys: `glk_<keyId>_<secret>`. The key id locates the row; only a SHA-256 of the whole key is
// stored, compared in constant time. The secret is returned once, at creation.
import { hash as digest, timingSafeEqual } from 'node:crypto';
import type { Db } from '../infra/db.js';
import { bool, newId, parseJson, randomToken } from '../infra/db.js';
import type { ApiKeyRow, ProjectRow } from '../infra/tables.js';

const KEY_PREFIX = 'glk_';
export const SCOPES = ['read', 'write', 'capture', 'translate', 'publish', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export interface KeyPrincipal {
  keyId: string;
  projectId: string;
  scopes: Scope[];
  requiresOperationApproval: boolean;
  projectDeleted: boolean;
}

// One-shot hashing: no Hash object per request.
const hash = (key: string) => digest('sha256', key, 'buffer');

export async function createApiKey(
  db: Db,
  projectId: string,
  opts: { scopes: Scope[]; requiresOperationApproval?: boolean; name?: string },
): Promise<{ keyId: string; apiKey: string }> {
  const keyId = newId('k', 9).slice(2);
  const apiKey = `${KEY_PREFIX}${keyId}_${randomToken(32)}`;
  await db('api_keys').insert({
    id: keyId,
    project_id: projectId,
    name: opts.name ?? null,
    secret_hash: hash(apiKey).toString('hex'),
    scopes: JSON.stringify([...new Set(opts.scopes)]),
    requires_operation_approval: Boolean(opts.requiresOperationApproval),
    created_at: Date.now(),
  });
  return { keyId, apiKey };
}

const KEY_SHAPE = /^glk_([A-Za-z0-9]{12})_[A-Za-z0-9]{43}$/;

/** What a bearer token claims: the key id to look up and the hash to compare; null when it is no key's shape. */
export interface KeyClaim {
  keyId: string;
  hash: Buffer;
}

export function parseApiKey(token: string): KeyClaim | null {
  const m = KEY_SHAPE.exec(token);
  return m ? { keyId: m[1], hash: hash(token) } : null;
}

/**
 * The key and its project's whole row in one statement: admission resolves the project the handler receives
 * (`ctx.project`, pipeline.ts), so a keyed GET reads the database once. The key's columns are prefixed `key_` so
 * that `p.*` keeps the project's own names.
 */
export const KEY_ROW_SQL =
  'SELECT k.id AS key_id, k.secret_hash AS key_secret_hash, k.scopes AS key_scopes, ' +
  'k.requires_operation_approval AS key_requires_operation_approval, k.revoked_at AS key_revoked_at, p.* ' +
  'FROM api_keys k JOIN projects p ON p.id = k.project_id WHERE k.id = ?';

/** A row of KEY_ROW_SQL. */
export type KeyLookupRow = ProjectRow & {
  key_id: ApiKeyRow['id'];
  key_secret_hash: ApiKeyRow['secret_hash'];
  key_scopes: ApiKeyRow['scopes'];
  key_requires_operation_approval: ApiKeyRow['requires_operation_approval'];
  key_revoked_at: ApiKeyRow['revoked_at'];
};

/** The principal behind a claim, given its key row (KEY_ROW_SQL), or null for anything that is not a live key. */
export function principalFromRow(row: KeyLookupRow | undefined, claim: KeyClaim): KeyPrincipal | null {
  if (!row || row.key_revoked_at != null) return null;
  if (!timingSafeEqual(Buffer.from(row.key_secret_hash, 'hex'), claim.hash)) return null;
  return {
    keyId: row.key_id,
    projectId: row.id,
    scopes: parseJson<Scope[]>(row.key_scopes, []),
    requiresOperationApproval: bool(row.key_requires_operation_approval),
    projectDeleted: row.deleted_at != null,
  };
}

/** The project's row within a KEY_ROW_SQL row: every column but the key's. */
export function projectFromRow(row: KeyLookupRow): ProjectRow {
  const project: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) if (!column.startsWith('key_')) project[column] = value;
  return project as unknown as ProjectRow;
}

/** `admin` grants every scope; `*` in the route's list means any valid key of the project. */
export function hasScope(granted: Scope[], allowed: string[]): boolean {
  if (allowed.includes('*') || granted.includes('admin')) return true;
  return allowed.some((s) => granted.includes(s as Scope));
}

/** How often a key's `last_used_at` is written at most (per process): the list shows last use to the minute. */
const LAST_USE_EVERY_MS = 60_000;
const lastNoted = new Map<string, number>();

/**
 * Records that `keyId` was admitted, at most once a minute per key in this process and without delaying the
 * request: the write is not awaited, and one that fails (a busy or read-only database) is dropped. The statement
 * writes only when the stored time is a minute old, so several processes add little.
 */
export function noteKeyUse(db: Db, keyId: string, now = Date.now()): void {
  const last = lastNoted.get(keyId);
  if (last !== undefined && now - last < LAST_USE_EVERY_MS) return;
  if (lastNoted.size >= 10_000) lastNoted.clear();
  lastNoted.set(keyId, now);
  db('api_keys')
    .where({ id: keyId })
    .andWhere((q) => {
      q.whereNull('last_used_at').orWhere('last_used_at', '<=', now - LAST_USE_EVERY_MS);
    })
    .update({ last_used_at: now })
    .then(
      () => undefined,
      () => lastNoted.delete(keyId),
    );
}
