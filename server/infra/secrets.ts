// Comparing a secret a client sent with the one the service holds (the admin token, a dashboard CSRF token).
import { createHash, timingSafeEqual } from 'node:crypto';

/** Equal strings, in time that does not depend on where they differ (both are hashed to the same length first). */
export function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y) && a.length === b.length;
}
