// Dashboard sessions and CSRF tokens (sign-in throttling: throttle.ts).
// - A session is a random 256-bit token in an HttpOnly cookie; the database holds only its SHA-256, with the user,
//   an absolute expiry (12 hours) and an idle expiry (2 hours), which activity pushes back, written at most once a
//   minute per session so a page's requests do not each write. Signing out deletes the row.
// - The CSRF token of a form is HMAC-SHA256(session token, "csrf"): tied to the session, never stored, unknown to
//   anyone who reads the database, and compared in constant time.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Db } from '../../infra/db.js';
import { retryContended } from '../../infra/db.js';
import type { UserRow } from './users.js';

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const SESSION_IDLE_MS = 2 * 60 * 60 * 1000;
const IDLE_REFRESH_MS = 60 * 1000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export const newToken = () => randomBytes(32).toString('base64url');

const csrfTokenOf = (sessionToken: string) => createHmac('sha256', sessionToken).update('csrf').digest('base64url');

export interface Session {
  token: string;
  user: UserRow;
  expiresAt: number;
  csrf: string;
}

export async function openSession(
  db: Db,
  userId: string,
  now = Date.now(),
): Promise<{ token: string; expiresAt: number }> {
  const token = newToken();
  const expiresAt = now + SESSION_TTL_MS;
  await retryContended(() =>
    db('dashboard_sessions').insert({
      token_hash: sha256(token),
      user_id: userId,
      created_at: now,
      expires_at: expiresAt,
      idle_expires_at: Math.min(now + SESSION_IDLE_MS, expiresAt),
    }),
  );
  return { token, expiresAt };
}

/**
 * The sweep `sweep.dashboard_sessions` (server/app/jobs.ts): expired sessions of anyone go, so the table holds live
 * sessions and those of the last few minutes. A sign-in used to sweep them itself, and on MySQL its range delete could
 * lose a deadlock to concurrent sign-ins and answer a right password with 503.
 */
export async function sweepSessions(db: Db, now: number): Promise<void> {
  await db('dashboard_sessions').where('expires_at', '<=', now).orWhere('idle_expires_at', '<=', now).delete();
}

/** The live session of `token`, with its user; undefined when unknown, expired or signed out. */
export async function readSession(db: Db, token: string | undefined, now = Date.now()): Promise<Session | undefined> {
  if (!token || token.length > 100) return undefined;
  const row = await db('dashboard_sessions as s')
    .join('dashboard_users as u', 'u.id', 's.user_id')
    .where('s.token_hash', sha256(token))
    .andWhere('s.expires_at', '>', now)
    .andWhere('s.idle_expires_at', '>', now)
    // Deactivating deletes the sessions too; this keeps a session opened by a racing sign-in from admitting them.
    .whereNull('u.deactivated_at')
    .first<(UserRow & { expires_at: number | string; idle_expires_at: number | string }) | undefined>(
      'u.*',
      's.expires_at',
      's.idle_expires_at',
    );
  if (!row) return undefined;
  const { expires_at, idle_expires_at, ...user } = row;
  const expiresAt = Number(expires_at);
  const idle = Math.min(now + SESSION_IDLE_MS, expiresAt);
  if (idle - Number(idle_expires_at) >= IDLE_REFRESH_MS)
    await db('dashboard_sessions')
      .where({ token_hash: sha256(token) })
      .andWhere('idle_expires_at', '<', idle)
      .update({ idle_expires_at: idle });
  return { token, user, expiresAt, csrf: csrfTokenOf(token) };
}

export async function closeSession(db: Db, token: string): Promise<void> {
  await db('dashboard_sessions')
    .where({ token_hash: sha256(token) })
    .delete();
}
