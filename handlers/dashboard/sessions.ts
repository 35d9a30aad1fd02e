// Dashboard sessions, CSRF tokens and the sign-in failure window.
// - A session is a random 256-bit token in an HttpOnly cookie; the database holds only its SHA-256, with the user
//   and an absolute expiry (12 hours). Signing out deletes the row.
// - The CSRF token of a form is HMAC-SHA256(session token, "csrf"): tied to the session, never stored, unknown to
//   anyone who reads the database, and compared in constant time.
// - Sign-in failures are counted per email (its SHA-256) in a fixed window: after 10 in 15 minutes the email is
//   refused until the window ends, whether or not it names a user.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Db } from '../platform/db.js';
import { isUniqueViolation } from '../platform/db.js';
import { normalizeEmail, type UserRow } from './users.js';

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const SIGNIN_WINDOW_MS = 15 * 60 * 1000;
export const SIGNIN_MAX_FAILURES = 10;

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
  // Expired sessions of anyone go when someone signs in: the table holds live sessions and a few stale ones.
  await db('dashboard_sessions').where('expires_at', '<=', now).delete();
  await db('dashboard_sessions').insert({
    token_hash: sha256(token),
    user_id: userId,
    created_at: now,
    expires_at: expiresAt,
  });
  return { token, expiresAt };
}

/** The live session of `token`, with its user; undefined when unknown, expired or signed out. */
export async function readSession(db: Db, token: string | undefined, now = Date.now()): Promise<Session | undefined> {
  if (!token || token.length > 100) return undefined;
  const row = await db('dashboard_sessions as s')
    .join('dashboard_users as u', 'u.id', 's.user_id')
    .where('s.token_hash', sha256(token))
    .andWhere('s.expires_at', '>', now)
    .first<(UserRow & { expires_at: number | string }) | undefined>('u.*', 's.expires_at');
  if (!row) return undefined;
  const { expires_at, ...user } = row;
  return { token, user, expiresAt: Number(expires_at), csrf: csrfTokenOf(token) };
}

export async function closeSession(db: Db, token: string): Promise<void> {
  await db('dashboard_sessions')
    .where({ token_hash: sha256(token) })
    .delete();
}

const subjectOf = (email: string) => sha256(normalizeEmail(email));
const windowOf = (now: number) => now - (now % SIGNIN_WINDOW_MS);

/** True when this email already failed SIGNIN_MAX_FAILURES times in the current window. */
export async function signinLocked(db: Db, email: string, now = Date.now()): Promise<boolean> {
  const row = await db('dashboard_signin_failures')
    .where({ subject: subjectOf(email), window_start: windowOf(now) })
    .first<{ count: number } | undefined>('count');
  return Number(row?.count ?? 0) >= SIGNIN_MAX_FAILURES;
}

export async function recordSigninFailure(db: Db, email: string, now = Date.now()): Promise<void> {
  const key = { subject: subjectOf(email), window_start: windowOf(now) };
  for (let i = 0; i < 3; i++) {
    const n = await db('dashboard_signin_failures')
      .where(key)
      .update({ count: db.raw('?? + 1', ['count']) });
    if (n) return;
    try {
      await db('dashboard_signin_failures').insert({ ...key, count: 1 });
      // Old windows go with the first failure of a new one.
      await db('dashboard_signin_failures').where('window_start', '<', key.window_start).delete();
      return;
    } catch (err) {
      // A concurrent failure inserted the row first: count on it.
      if (!isUniqueViolation(err)) throw err;
    }
  }
}

export async function clearSigninFailures(db: Db, email: string): Promise<void> {
  await db('dashboard_signin_failures')
    .where({ subject: subjectOf(email) })
    .delete();
}
