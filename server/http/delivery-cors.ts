// The delivery origin's cross-origin rules (the server-wide part of its routes, applied by server/app/servers.ts).
import type { Server } from '@hapi/hapi';

// Delivery is public and cookie-free: every answer of the delivery origin (objects, health, and their 304s and
// 404s) may be read by a page on any origin, with no credentials. The same on every request, with or without an
// Origin header, so that a CDN caching one answer serves it right to every caller.
export const CROSS_ORIGIN = {
  'Access-Control-Allow-Origin': '*',
  // What a client reads beyond the CORS-safelisted headers: the ETag it revalidates the manifest with.
  'Access-Control-Expose-Headers': 'ETag',
} as const;

// A GET with If-None-Match (the manifest's revalidation) is not a simple request: the browser asks first. The
// answer names every header a conditional or ranged fetch sends, and may be cached by the browser for a day.
const PREFLIGHT: Record<string, string> = {
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'If-None-Match, If-Modified-Since, Cache-Control, Range',
  'Access-Control-Max-Age': '86400',
  Allow: 'GET, HEAD, OPTIONS',
};

/**
 * Makes the delivery server answer browsers on other origins: the CORS headers on every answer, and `OPTIONS`
 * (a preflight, or a plain question) on every path with 204, as a static site behind a CDN answers it.
 */
export function allowCrossOrigin(server: Server): void {
  server.route({
    method: 'OPTIONS',
    path: '/{path*}',
    handler: (_request, h) => {
      const res = h.response().code(204);
      for (const [k, v] of Object.entries(PREFLIGHT)) res.header(k, v);
      return res;
    },
  });
  // After the error answers are written (servers.ts registers those first), so 404s carry the headers too.
  server.ext('onPreResponse', (request, h) => {
    const res = request.response;
    if ('isBoom' in res && res.isBoom) Object.assign(res.output.headers, CROSS_ORIGIN);
    else if (!('isBoom' in res)) for (const [k, v] of Object.entries(CROSS_ORIGIN)) res.header(k, v);
    return h.continue;
  });
}
