// The delivery origin's hot answer: a bundle already held in memory (bundles.ts keeps recent ones), sent
// straight from Node's request event with the bytes and headers Hapi would send, before Hapi builds a request,
// a response and a stream for it. That lifecycle cost more than half of each answer (Hapi reached 0.5x nginx on
// the same file). Anything the answer would depend on beyond that (a range, a conditional request, an
// encoding other than gzip or none, a body, a bundle not in memory yet) is left to Hapi, which answers as before.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzip } from 'node:zlib';
import type { StoredObject } from '../infra/objects.js';
import { CROSS_ORIGIN } from './delivery-cors.js';
import { IMMUTABLE } from '../infra/objects.js';
import { cachedBundle } from '../domain/delivery/bundles.js';

const SEGMENT = '([A-Za-z0-9_-][A-Za-z0-9._-]*)';
const BUNDLE_PATH = new RegExp(`^/v1/projects/${SEGMENT}/bundles/${SEGMENT}/${SEGMENT}$`);

// Hapi compresses a compressible answer of 1 KB or more (its `compression.minBytes`) and then varies it by
// Accept-Encoding; the header values browsers and CDNs send for which Hapi picks gzip (checked against Hapi's
// own choice in test/service/output/delivery-memory.test.ts). Any other value goes to Hapi.
const MIN_COMPRESS_BYTES = 1024;
const ASKS_GZIP = new Set(['gzip', 'gzip, deflate', 'deflate, gzip', 'gzip, deflate, br', 'gzip, deflate, br, zstd']);

interface Prepared {
  identity: { body: Buffer; headers: Record<string, string> };
  /** Null below MIN_COMPRESS_BYTES; undefined while the compressed bytes are being made (Hapi answers meanwhile). */
  gzip?: { body: Buffer; headers: Record<string, string> } | null;
}

// Keyed by the cached object itself: evicted from the bundle cache, its prepared answers go with it.
const prepared = new WeakMap<StoredObject, Prepared>();

function prepare(obj: StoredObject): Prepared {
  const base: Record<string, string> = {
    'content-type': obj.contentType,
    etag: obj.etag,
    'cache-control': IMMUTABLE,
    'access-control-allow-origin': CROSS_ORIGIN['Access-Control-Allow-Origin'],
    'access-control-expose-headers': CROSS_ORIGIN['Access-Control-Expose-Headers'],
  };
  const compressible = obj.body.length >= MIN_COMPRESS_BYTES;
  const p: Prepared = {
    identity: {
      body: obj.body,
      headers: {
        ...base,
        'content-length': String(obj.body.length),
        ...(compressible ? { vary: 'accept-encoding' } : {}),
        'accept-ranges': 'bytes',
      },
    },
    gzip: compressible ? undefined : null,
  };
  if (compressible) {
    // Off the event loop: a bundle may be megabytes.
    gzip(obj.body, (err, body) => {
      if (err) return;
      p.gzip = {
        body,
        headers: {
          ...base,
          vary: 'accept-encoding',
          'content-encoding': 'gzip',
          'content-length': String(body.length),
        },
      };
    });
  }
  prepared.set(obj, p);
  return p;
}

/** Answers `req` from memory when it is a plain GET of a bundle held there; false leaves it to Hapi. */
export function answerFromMemory(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== 'GET') return false;
  const h = req.headers;
  if (
    h.range !== undefined ||
    h['if-none-match'] !== undefined ||
    h['content-length'] !== undefined ||
    h['transfer-encoding'] !== undefined
  )
    return false;
  const m = BUNDLE_PATH.exec(req.url ?? '');
  if (!m) return false;
  const obj = cachedBundle(m[1], m[2], m[3]);
  // Only JSON bundles: their type is compressible to Hapi, which decides the headers above.
  if (!obj || !obj.contentType.startsWith('application/json')) return false;
  const p = prepared.get(obj) ?? prepare(obj);
  const accept = h['accept-encoding'];
  let answer: Prepared['identity'] | null | undefined = p.identity;
  if (accept !== undefined && accept !== '') {
    if (p.gzip === null) answer = p.identity;
    else answer = ASKS_GZIP.has(accept) ? p.gzip : undefined;
  }
  if (!answer) return false;
  res.writeHead(200, answer.headers);
  res.end(answer.body);
  return true;
}
