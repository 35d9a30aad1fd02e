// Dashboard users: people who sign in to the dashboard. Passwords are hashed with scrypt (memory-hard, in Node's
// crypto, no native dependency), a salt per user and the parameters stored with the hash; a check compares in
// constant time, and an unknown email costs the same scrypt run as a known one.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import pLimit from 'p-limit';
import type { Db } from '../../infra/db.js';
import { dialectOf, isUniqueViolation, newId } from '../../infra/db.js';
import { Refusal, conflict, invalidArgument, notFound } from '../../infra/errors.js';

export type Role = 'owner' | 'reviewer';

export interface UserRow {
  id: string;
  name: string;
  email: string;
  role: Role;
  password_hash: string;
  created_at: number | string;
  updated_at: number | string;
}

interface UserView {
  userId: string;
  name: string;
  email: string;
  role: Role;
  createdAt: string;
}

// N = 2^15, r = 8, p = 1: 32 MiB of memory and some 50 ms of one core per hash (libsodium's "interactive" level).
// Stored hashes carry their parameters, so raising them later leaves existing passwords valid.
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
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

/** `scrypt$N$r$p$salt$hash`, salt and hash base64url. */
async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** A hash of a random password, checked against when the email is unknown, so both paths cost one scrypt run. */
let decoy: Promise<string> | undefined;

/**
 * True when `password` is the one `stored` was made from. `stored` undefined (no such user) is always false. Throws
 * HashQueueFull when too many checks wait already.
 */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const hash = stored ?? (await (decoy ??= hashPassword(randomBytes(18).toString('base64url'))));
  const [scheme, n, r, p, salt, key] = hash.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const actual = await derive(password, Buffer.from(salt, 'base64url'), params, true);
  const same = actual.length === expected.length && timingSafeEqual(actual, expected);
  return same && stored !== undefined;
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

function userView(u: UserRow): UserView {
  return {
    userId: u.id,
    name: u.name,
    email: u.email,
    role: u.role,
    createdAt: new Date(Number(u.created_at)).toISOString(),
  };
}

export async function createUser(
  db: Db,
  input: { name: string; email: string; password: string; role?: Role },
): Promise<UserView> {
  const email = normalizeEmail(input.email);
  const name = input.name.trim();
  if (!name) throw invalidArgument('body/name must not be blank');
  if (input.password.length < 12) throw invalidArgument('body/password must have at least 12 characters');
  if (normalizeEmail(input.password) === email) throw invalidArgument('body/password must not be the email');
  const now = Date.now();
  const row: UserRow = {
    id: newId('usr'),
    name,
    email,
    role: input.role ?? 'reviewer',
    password_hash: await hashPassword(input.password),
    created_at: now,
    updated_at: now,
  };
  try {
    await db('dashboard_users').insert(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('conflict', 'A dashboard user with this email exists.');
    throw err;
  }
  return userView(row);
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
): Promise<{ email: string; generatedPassword?: string } | undefined> {
  if (await anyUser(db)) return undefined;
  const email = env.DASHBOARD_EMAIL || 'owner@glossa.local';
  if (!/^[^@\s]+@[^@\s]+$/.test(email) || email.length > 254)
    throw new Error(`DASHBOARD_EMAIL must be an email address, got ${JSON.stringify(email)}`);
  const generated = env.DASHBOARD_PASSWORD ? undefined : randomBytes(15).toString('base64url');
  try {
    const user = await createUser(db, {
      name: 'Owner',
      email,
      password: env.DASHBOARD_PASSWORD || generated!,
      role: 'owner',
    });
    return { email: user.email, generatedPassword: generated };
  } catch (err) {
    // Another process created the first user meanwhile: keep theirs.
    if (err instanceof Refusal && err.code === 'conflict') return undefined;
    if (err instanceof Refusal) throw new Error(`DASHBOARD_PASSWORD: ${err.message.replace('body/password ', '')}`);
    throw err;
  }
}

/** Every dashboard user, by name then email. */
export async function listUsers(db: Db): Promise<UserView[]> {
  const rows = await db<UserRow>('dashboard_users').orderBy('name').orderBy('email');
  return rows.map(userView);
}

/**
 * Sets a user's role. The last owner cannot become a reviewer (`409 last_owner`): the owners are read under a lock
 * (SQLite's transactions are IMMEDIATE, MySQL locks the owners' rows), so two owners demoting each other at once
 * leave one of them owner.
 */
export async function setUserRole(db: Db, userId: string, role: Role): Promise<UserView> {
  return db.transaction(async (trx) => {
    const owners = trx<UserRow>('dashboard_users').where({ role: 'owner' }).select('id');
    if (dialectOf(trx) === 'mysql') owners.forUpdate();
    const ownerIds = (await owners).map((r) => r.id);
    const user = await trx<UserRow>('dashboard_users').where({ id: userId }).first();
    if (!user) throw notFound('No such dashboard user.');
    if (role !== 'owner' && user.role === 'owner' && ownerIds.length <= 1)
      throw conflict('last_owner', 'The last owner cannot become a reviewer.');
    if (user.role !== role) await trx('dashboard_users').where({ id: userId }).update({ role, updated_at: Date.now() });
    return userView({ ...user, role });
  });
}
