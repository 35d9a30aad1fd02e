// Known devices: a browser that signed in as a person gets a long-lived random token in an HttpOnly cookie (the
// database keeps its SHA-256 and the user). When it signs in as that person again, the per-account throttle other
// clients built up does not apply to it, only its own failures (throttle.ts): an attacker who knows the owner's
// email cannot keep the owner out.
import { createHash } from 'node:crypto';
import type { Db } from '../../infra/db.js';
import { newToken } from './sessions.js';

export const DEVICE_TTL_MS = 90 * 24 * 60 * 60 * 1000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The user id `token` was given to, while it lives; undefined for no, a malformed or an expired token. */
export async function deviceUser(db: Db, token: string | undefined, now = Date.now()): Promise<string | undefined> {
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const row = await db('dashboard_devices')
    .where({ token_hash: sha256(token) })
    .andWhere('expires_at', '>', now)
    .first<{ user_id: string } | undefined>('user_id');
  return row?.user_id;
}

/**
 * After a successful sign-in: the browser's token lives on (for another DEVICE_TTL_MS) when it is this user's, else
 * a new one is made. Returns the token for the cookie. Expired devices of anyone go meanwhile.
 */
export async function rememberDevice(db: Db, userId: string, token: string | undefined, now = Date.now()) {
  const expiresAt = now + DEVICE_TTL_MS;
  await db('dashboard_devices').where('expires_at', '<=', now).delete();
  if (token && (await deviceUser(db, token, now)) === userId) {
    await db('dashboard_devices')
      .where({ token_hash: sha256(token) })
      .update({ expires_at: expiresAt });
    return token;
  }
  const fresh = newToken();
  await db('dashboard_devices').insert({ token_hash: sha256(fresh), user_id: userId, expires_at: expiresAt });
  return fresh;
}
