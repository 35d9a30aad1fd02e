// Dashboard users: people who sign in to the dashboard. Passwords are hashed with scrypt (memory-hard, in Node's
// crypto, no native dependency), a salt per user and the parameters stored with the hash; a check compares in
// constant time, and an unknown email costs the same scrypt run as a known one.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import pLimit from 'p-limit';
import type { Db } from '../../infra/db.js';
import { dialectOf, isUniqueViolation, newId } from '../../infra/db.js';
import { Refusal, conflict, invalidArgument, notFound } from '../../infra/errors.js';
import { grantsOf, setGrants, type Grant, type Grants } from './grants.js';

export type Role = 'owner' | 'reviewer' | 'translator';

export interface UserRow {
  id: string;
  name: string;
  email: string;
  role: Role;
  password_hash: string;
  created_at: number | string;
  updated_at: number | string;
  /** When an owner deactivated the person (migration 033): they cannot sign in; null while active. */
  deactivated_at: number | string | null;
}

interface UserView {
  userId: string;
  name: string;
  email: string;
  role: Role;
  /** A translator's projects, with their role and languages in each (grants.ts). */
  grants?: Grant[];
  createdAt: string;
  deactivatedAt: string | null;
  sessions: number;
}

// N from PASSWORD_SCRYPT_N (2^15 by default), r = 8, p = 1: 32 MiB of memory and some 50 ms of one core per hash
// at the default (libsodium's "interactive" level). Stored hashes carry their parameters, so changing N later
// leaves existing passwords valid.
const PARAMS = { r: 8, p: 1 };

const KEY_BYTES = 32;
const SALT_BYTES = 16;

// scrypt runs on libuv's thread pool (4 threads by default), which also reads files: the file object store, and so
// the delivery origin's manifests. Forty sign-ins at once held every thread for seconds. Hashes run one at a time,
// leaving the other threads to file I/O, and at most HASH_QUEUE sign-in checks wait: past that a sign-in is refused at
// once (HashQueueFull, answered 503 with Retry-After) rather than waiting behind a flood. Creating a user (an owner
// or the admin token) always waits its turn.
const hashes = pLimit(1);
const HASH_QUEUE = 32;

export class HashQueueFull extends Error {
  constructor() {
    super('Too many password checks are waiting.');
  }
}

function derive(
  password: string,
  salt: Buffer,
  p: { N: number; r: number; p: number },
  bounded = false,
): Promise<Buffer> {
  if (bounded && hashes.pendingCount >= HASH_QUEUE) return Promise.reject(new HashQueueFull());
  const options: ScryptOptions = { N: p.N, r: p.r, p: p.p, maxmem: 256 * p.N * p.r * p.p };
  return hashes(
    () =>
      new Promise<Buffer>((resolve, reject) => {
        scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key)));
      }),
  );
}

/** `scrypt$N$r$p$salt$hash`, salt and hash base64url; `scryptN` is the configured cost (PASSWORD_SCRYPT_N). */
async function hashPassword(password: string, scryptN: number): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, { N: scryptN, ...PARAMS });
  return ['scrypt', scryptN, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * A hash of a random password per cost, checked against when the email is unknown, so both paths cost one scrypt
 * run at the configured cost.
 */
const decoys = new Map<number, Promise<string>>();

function decoyOf(scryptN: number): Promise<string> {
  let decoy = decoys.get(scryptN);
  if (!decoy) decoys.set(scryptN, (decoy = hashPassword(randomBytes(18).toString('base64url'), scryptN)));
  return decoy;
}

/**
 * True when `password` is the one `stored` was made from. `stored` undefined (no such user) is always false, after
 * a check against a decoy hash of the configured cost (`scryptN`). Throws HashQueueFull when too many checks wait
 * already.
 */
export async function verifyPassword(password: string, stored: string | undefined, scryptN: number): Promise<boolean> {
  const hash = stored ?? (await decoyOf(scryptN));
  const [scheme, n, r, p, salt, key] = hash.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const actual = await derive(password, Buffer.from(salt, 'base64url'), params, true);
  const same = actual.length === expected.length && timingSafeEqual(actual, expected);
  return same && stored !== undefined;
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

const isoOf = (ms: number | string | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

function userView(u: UserRow, sessions = 0, grants?: Grant[]): UserView {
  return {
    userId: u.id,
    name: u.name,
    email: u.email,
    role: u.role,
    ...(u.role === 'translator' ? { grants: grants ?? [] } : {}),
    createdAt: isoOf(u.created_at)!,
    deactivatedAt: isoOf(u.deactivated_at ?? null),
    sessions,
  };
}

/** Live sessions per user (sessions.ts: a session lives until its absolute and its idle expiry). */
async function liveSessions(db: Db, userIds?: string[], now = Date.now()): Promise<Map<string, number>> {
  const q = db('dashboard_sessions')
    .where('expires_at', '>', now)
    .andWhere('idle_expires_at', '>', now)
    .groupBy('user_id')
    .select('user_id')
    .count({ n: '*' });
  if (userIds) q.whereIn('user_id', userIds);
  const rows = (await q) as Array<{ user_id: string; n: number | string }>;
  return new Map(rows.map((r) => [r.user_id, Number(r.n)]));
}

/** Ends every session of a person; how many were live or stale. */
async function endSessions(db: Db, userId: string): Promise<number> {
  return db('dashboard_sessions').where({ user_id: userId }).delete();
}

function checkNewPassword(password: string, email: string) {
  if (password.length < 12) throw invalidArgument('body/password must have at least 12 characters');
  if (normalizeEmail(password) === email) throw invalidArgument('body/password must not be the email');
}

/** Grants go with the translator role only. */
function checkGrants(role: Role, grants: Grants | undefined) {
  if (grants && role !== 'translator') throw invalidArgument('grants are given with the translator role only.');
}

export async function createUser(
  db: Db,
  input: { name: string; email: string; password: string; role?: Role; grants?: Grants },
  scryptN: number,
): Promise<UserView> {
  const email = normalizeEmail(input.email);
  const name = input.name.trim();
  if (!name) throw invalidArgument('body/name must not be blank');
  checkNewPassword(input.password, email);
  const now = Date.now();
  const row: UserRow = {
    id: newId('usr'),
    name,
    email,
    role: input.role ?? 'reviewer',
    password_hash: await hashPassword(input.password, scryptN),
    created_at: now,
    updated_at: now,
    deactivated_at: null,
  };
  checkGrants(row.role, input.grants);
  try {
    await db.transaction(async (trx) => {
      await trx('dashboard_users').insert(row);
      if (input.grants) await setGrants(trx, row.id, input.grants);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('conflict', 'A dashboard user with this email exists.');
    throw err;
  }
  return userView(row, 0, (await grantsOf(db, [row.id])).get(row.id));
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db<UserRow>('dashboard_users')
    .where({ email: normalizeEmail(email) })
    .first();
}

async function anyUser(db: Db): Promise<boolean> {
  return Boolean(await db('dashboard_users').first('id'));
}

/**
 * `npm start`'s first-run step: when no dashboard user exists, one owner, with DASHBOARD_EMAIL and
 * DASHBOARD_PASSWORD when set, else `owner@glossa.local` and a generated password. Returns what to print (the
 * generated password, once), or undefined when users exist.
 */
export async function ensureFirstUser(
  db: Db,
  env: { DASHBOARD_EMAIL?: string; DASHBOARD_PASSWORD?: string },
  scryptN: number,
): Promise<{ email: string; generatedPassword?: string } | undefined> {
  if (await anyUser(db)) return undefined;
  const email = env.DASHBOARD_EMAIL || 'owner@glossa.local';
  if (!/^[^@\s]+@[^@\s]+$/.test(email) || email.length > 254)
    throw new Error(`DASHBOARD_EMAIL must be an email address, got ${JSON.stringify(email)}`);
  const generated = env.DASHBOARD_PASSWORD ? undefined : randomBytes(15).toString('base64url');
  try {
    const user = await createUser(
      db,
      {
        name: 'Owner',
        email,
        password: env.DASHBOARD_PASSWORD || generated!,
        role: 'owner',
      },
      scryptN,
    );
    return { email: user.email, generatedPassword: generated };
  } catch (err) {
    // Another process created the first user meanwhile: keep theirs.
    if (err instanceof Refusal && err.code === 'conflict') return undefined;
    if (err instanceof Refusal) throw new Error(`DASHBOARD_PASSWORD: ${err.message.replace('body/password ', '')}`);
    throw err;
  }
}

/** Every dashboard user, by name then email, with their live sessions. */
export async function listUsers(db: Db): Promise<UserView[]> {
  const rows = await db<UserRow>('dashboard_users').orderBy('name').orderBy('email');
  const sessions = await liveSessions(db);
  const grants = await grantsOf(
    db,
    rows.filter((u) => u.role === 'translator').map((u) => u.id),
  );
  return rows.map((u) => userView(u, sessions.get(u.id) ?? 0, grants.get(u.id)));
}

/**
 * Runs `change` on a user with the active owners read under a lock (SQLite's transactions are IMMEDIATE, MySQL
 * locks the owners' rows), so two owners demoting, deactivating or removing each other at once leave one of them
 * an active owner. `change` is told whether the user is the last active owner.
 */
function withOwners<T>(
  db: Db,
  userId: string,
  change: (trx: Db, user: UserRow, lastOwner: boolean) => Promise<T>,
): Promise<T> {
  return db.transaction(async (trx) => {
    const owners = trx<UserRow>('dashboard_users').where({ role: 'owner' }).whereNull('deactivated_at').select('id');
    if (dialectOf(trx) === 'mysql') owners.forUpdate();
    const ownerIds = (await owners).map((r) => r.id);
    const user = await trx<UserRow>('dashboard_users').where({ id: userId }).first();
    if (!user) throw notFound('No such dashboard user.');
    return change(trx, user, ownerIds.length <= 1 && ownerIds.includes(user.id));
  });
}

/**
 * Sets a user's role and whether they are active. The last active owner can neither become a reviewer nor be
 * deactivated (`409 last_owner`). Deactivating ends the person's sessions in the same transaction: no request of
 * theirs is admitted after the answer.
 */
export async function updateUser(
  db: Db,
  userId: string,
  change: { role?: Role; active?: boolean; grants?: Grants },
): Promise<UserView> {
  const user = await withOwners(db, userId, async (trx, u, lastOwner) => {
    if (lastOwner && change.role !== undefined && change.role !== 'owner')
      throw conflict('last_owner', `The last owner cannot become a ${change.role}.`);
    checkGrants(change.role ?? u.role, change.grants);
    // A translator's grants are replaced when given; a person who stops being a translator keeps none.
    if (change.grants) await setGrants(trx, userId, change.grants);
    else if ((change.role ?? u.role) !== 'translator')
      await trx('translator_grants').where({ user_id: userId }).delete();
    if (lastOwner && change.active === false) throw conflict('last_owner', 'The last owner cannot be deactivated.');
    const now = Date.now();
    const next: UserRow = { ...u, role: change.role ?? u.role };
    if (change.active === false && u.deactivated_at === null) next.deactivated_at = now;
    if (change.active === true) next.deactivated_at = null;
    if (next.role !== u.role || next.deactivated_at !== u.deactivated_at)
      await trx('dashboard_users')
        .where({ id: userId })
        .update({ role: next.role, deactivated_at: next.deactivated_at, updated_at: now });
    if (next.deactivated_at !== null) await endSessions(trx, userId);
    return next;
  });
  return userView(
    user,
    (await liveSessions(db, [userId])).get(userId) ?? 0,
    (await grantsOf(db, [userId])).get(userId),
  );
}

/** Removes a user with their sessions and known devices (cascade). The last active owner stays (`409 last_owner`). */
export async function removeUser(db: Db, userId: string): Promise<void> {
  await withOwners(db, userId, async (trx, _u, lastOwner) => {
    if (lastOwner) throw conflict('last_owner', 'The last owner cannot be removed.');
    await endSessions(trx, userId);
    await trx('translator_grants').where({ user_id: userId }).delete();
    await trx('dashboard_users').where({ id: userId }).delete();
  });
}

/** An owner's reset: a new password, and the person's sessions end. */
export async function resetPassword(db: Db, userId: string, password: string, scryptN: number): Promise<void> {
  const user = await db<UserRow>('dashboard_users').where({ id: userId }).first();
  if (!user) throw notFound('No such dashboard user.');
  checkNewPassword(password, user.email);
  const hash = await hashPassword(password, scryptN);
  await db.transaction(async (trx) => {
    const n = await trx('dashboard_users')
      .where({ id: userId })
      .update({ password_hash: hash, updated_at: Date.now() });
    if (!n) throw notFound('No such dashboard user.');
    await endSessions(trx, userId);
  });
}

/**
 * A person changes their own password: `current` must be the password now (`403 wrong_password`, nothing changed).
 * Every session of theirs ends; the caller opens a fresh one for the browser that asked.
 */
export async function changeOwnPassword(
  db: Db,
  userId: string,
  current: string,
  password: string,
  scryptN: number,
): Promise<void> {
  const user = await db<UserRow>('dashboard_users').where({ id: userId }).whereNull('deactivated_at').first();
  if (!user) throw notFound('No such dashboard user.');
  let right: boolean;
  try {
    right = await verifyPassword(current, user.password_hash, scryptN);
  } catch (err) {
    if (err instanceof HashQueueFull)
      throw new Refusal('unavailable', 'Too many password checks are waiting; try again.');
    throw err;
  }
  if (!right) throw new Refusal('wrong_password', 'The current password is not right; nothing changed.');
  checkNewPassword(password, user.email);
  await resetPassword(db, userId, password, scryptN);
}

/** Ends a person's sessions: they sign in again in every browser. */
export async function endUserSessions(db: Db, userId: string): Promise<number> {
  const user = await db<UserRow>('dashboard_users').where({ id: userId }).first('id');
  if (!user) throw notFound('No such dashboard user.');
  return endSessions(db, userId);
}
