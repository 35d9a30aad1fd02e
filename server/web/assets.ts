// The dashboard's static files, read once at start: its stylesheet and its small progressive scripts. They are
// part of the source tree (no build step, nothing fetched from the internet). Pages link them by a URL that names
// their content hash (assetUrl), so a browser keeps them for good and never asks again while they are unchanged;
// a URL without the current hash is revalidated by ETag.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerRoute } from '@hapi/hapi';

const FILES: Record<string, string> = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'grid.js': 'text/javascript; charset=utf-8',
};

const loaded = Object.fromEntries(
  Object.entries(FILES).map(([name, type]) => {
    const body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
    return [name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` }];
  }),
);

/** The URL pages link a file by: its content hash makes it immutable. */
export function assetUrl(name: 'dashboard.css' | 'dashboard.js' | 'grid.js'): string {
  return `/assets/${name}?v=${loaded[name].etag.slice(1, -1)}`;
}

export function assetRoutes(): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/assets/{file}',
      handler: (request, h) => {
        const file = loaded[String(request.params.file)];
        if (!file) return h.response('Not found.').code(404).type('text/plain');
        const current = request.query.v === file.etag.slice(1, -1);
        const headers = {
          etag: file.etag,
          'cache-control': current ? 'public, max-age=31536000, immutable' : 'no-cache',
          'x-content-type-options': 'nosniff',
        };
        const r =
          request.headers['if-none-match'] === file.etag
            ? h.response().code(304)
            : h.response(file.body).type(file.type);
        for (const [k, v] of Object.entries(headers)) r.header(k, v);
        return r;
      },
    },
  ];
}
