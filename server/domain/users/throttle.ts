// Sign-in throttling: growing delays per client and per account, counted in the database, checked before any
// password is hashed (server/web/signin.ts).
// - Every attempt is charged up front, in one transaction that reads its subjects' rows under lock, refuses when
//   one of them is still blocked, and otherwise counts the attempt and sets the next block. So concurrent guesses
//   are counted one after another: of 60 sent at once, only the free ones are checked, the rest answer 429.
// - Subjects: a browser that signed in before as this person (its known-device cookie) is throttled only by its
//   own failures (`device:`), so the per-account delay an attacker builds up never keeps the owner out. Any other
//   attempt is charged to its client (the remote address; an IPv6 client by its /64, which one host usually holds
//   whole) and to the account it names (`account:`, the SHA-256 of the email, whether or not it is a user).
// - After `free` attempts, each further one blocks the subject for a delay that doubles up to a ceiling. The block
//   only delays: once it has passed, the next attempt is checked, and the right password signs in.
// - A success clears the account's and the device's count and takes its own attempt back from the client's, so
//   people signing in behind one address do not use up each other's attempts. A subject quiet for `FORGET_MS`
//   starts over.
import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { Db } from '../../infra/db.js';
import { dialectOf, insertOrKeep, isUniqueViolation, retryContended } from '../../infra/db.js';
import { normalizeEmail } from './users.js';

const TABLE = 'dashboard_signin_throttle';

const THROTTLE = {
  /** Attempts checked without a delay: a client may try many accounts (an office behind one address). */
  free: { client: 20, account: 5, device: 5 },
  firstDelayMs: 1_000,
  maxDelayMs: 15 * 60_000,
  forgetMs: 60 * 60_000,
} as const;

type Kind = keyof typeof THROTTLE.free;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The client part of a remote address: IPv4 whole (IPv4-mapped IPv6 too), IPv6 by its /64. */
export function clientOf(remoteAddress: string | undefined): string {
  if (!remoteAddress || !ipaddr.isValid(remoteAddress)) return 'client:unknown';
  let addr = ipaddr.parse(remoteAddress);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  if (addr.kind() === 'ipv4') return `client:${addr.toString()}`;
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4);
  return `client:${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}

export const accountOf = (email: string) => `account:${sha256(normalizeEmail(email))}`;
export const deviceOf = (deviceToken: string) => `device:${sha256(deviceToken)}`;

const kindOf = (subject: string) => subject.slice(0, subject.indexOf(':')) as Kind;

/** The block an attempt sets: none within the free attempts, then 1 s, 2 s, 4 s … up to the ceiling. */
function delayAfter(kind: Kind, attempts: number): number {
  const over = attempts - THROTTLE.free[kind];
  if (over <= 0) return 0;
  return Math.min(THROTTLE.firstDelayMs * 2 ** Math.min(over - 1, 30), THROTTLE.maxDelayMs);
}

interface Row {
  subject: string;
  attempts: number | string;
  blocked_until: number | string;
  updated_at: number | string;
}

type Admission = { admitted: true } | { admitted: false; retryAfterMs: number };

/**
 * Charges one sign-in attempt to every subject, or to none when one of them is blocked (answered with how long to
 * wait). Atomic: the rows are read under lock (MySQL `FOR UPDATE`; SQLite transactions take the write lock at
 * BEGIN) and written in the same transaction.
 */
export function admitAttempt(db: Db, subjects: string[], now = Date.now()): Promise<Admission> {
  const sorted = [...new Set(subjects)].sort();
  return retryContended(
    () =>
      db.transaction(async (trx) => {
        await insertOrKeep(
          trx,
          TABLE,
          sorted.map((subject) => ({ subject, attempts: 0, blocked_until: 0, updated_at: now })),
          ['subject'],
          'updated_at',
        );
        const q = trx<Row>(TABLE).whereIn('subject', sorted).orderBy('subject');
        if (dialectOf(trx) === 'mysql') q.forUpdate();
        const rows = await q;
        const blockedUntil = Math.max(0, ...rows.map((r) => Number(r.blocked_until)));
        if (blockedUntil > now) return { admitted: false as const, retryAfterMs: blockedUntil - now };
        for (const r of rows) {
          const quiet = Number(r.updated_at) + THROTTLE.forgetMs <= now;
          const attempts = (quiet ? 0 : Number(r.attempts)) + 1;
          const delay = delayAfter(kindOf(r.subject), attempts);
          // No delay is no block at all, not a block until `now`: a concurrent attempt whose clock was read a
          // moment earlier, and which takes the lock after this one, would see it as one and be refused.
          await trx(TABLE)
            .where({ subject: r.subject })
            .update({ attempts, blocked_until: delay ? now + delay : 0, updated_at: now });
        }
        return { admitted: true as const };
      }),
    { retryOn: isUniqueViolation },
  );
}

/** Takes one attempt back from each subject: the attempt was never checked (the hash queue was full). */
export async function refundAttempt(db: Db, subjects: string[]): Promise<void> {
  await db(TABLE)
    .whereIn('subject', subjects)
    .andWhere('attempts', '>', 0)
    .update({ attempts: db.raw('?? - 1', ['attempts']) });
}

/**
 * After the right password: the account and device subjects start over, the client gets this attempt back.
 */
export async function attemptSucceeded(db: Db, subjects: string[]): Promise<void> {
  // Each statement alone, again when it lost a deadlock (rolled back whole, so never applied twice): on MySQL these
  // meet concurrent sign-ins' row locks, and an unanswered deadlock answered a right password with 503.
  const cleared = subjects.filter((s) => kindOf(s) !== 'client');
  if (cleared.length) await retryContended(() => db(TABLE).whereIn('subject', cleared).delete());
  const clients = subjects.filter((s) => kindOf(s) === 'client');
  if (clients.length) await retryContended(() => refundAttempt(db, clients));
}

/** The sweep `sweep.signin_throttle` (server/app/jobs.ts): subjects quiet for long go, so the table holds recent attempts. */
export async function sweepThrottle(db: Db, now: number): Promise<void> {
  await db(TABLE)
    .where('updated_at', '<', now - THROTTLE.forgetMs)
    .andWhere('blocked_until', '<', now)
    .delete();
}
