// Conditional GETs: the delivery origin's objects (delivery/origin.routes.ts) and the content listing
// (content/routes.ts) answer 304 to a matching If-None-Match.

/**
 * If-None-Match uses the weak comparison (RFC 9110 13.1.2): `W/` is ignored on both sides. The header may be a
 * list, may repeat, and sloppy clients send tags unquoted, so each tag is normalized to its quoted form.
 */
export function etagMatches(header: unknown, etag: string): boolean {
  const value = Array.isArray(header) ? header.join(',') : typeof header === 'string' ? header : '';
  if (!value) return false;
  if (value.trim() === '*') return true;
  const opaque = (t: string) => {
    const bare = t.replace(/^W\//, '');
    return bare.startsWith('"') ? bare : `"${bare}"`;
  };
  const mine = opaque(etag);
  for (const m of value.matchAll(/(?:W\/)?(?:"[^"]*"|[^\s,"]+)/g)) {
    if (opaque(m[0]) === mine) return true;
  }
  return false;
}
