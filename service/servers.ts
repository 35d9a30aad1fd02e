// Builds the two Hapi servers: the main origin (public /v1 API, internal /internal/v1 API, dashboard) and the
// delivery origin. Routes come from the generated route table; a route with no implementation answers 501.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import Hapi from '@hapi/hapi';
import { routes, type RouteSpec } from '../generated/routes.js';
import { implementationOf } from './implementations.js';
import { errorResponse, toHapiRoute } from '../handlers/platform/pipeline.js';
import { allowCrossOrigin } from '../handlers/delivery/cors.js';
import { answerFromMemory } from '../handlers/delivery/memory.js';
import type { App } from '../handlers/platform/app.js';

const PREFIX: Record<RouteSpec['origin'], string> = { main: '/v1', delivery: '/v1', internal: '/internal/v1' };

function build(app: App, origins: Array<RouteSpec['origin']>, port: number): Hapi.Server {
  const server = Hapi.server({
    port,
    host: app.config.host,
    router: { stripTrailingSlash: true },
    routes: { timeout: { server: false } },
  });
  server.ext('onPreResponse', (request, h) => errorResponse(request, h, app.log));
  answerMalformed(server);
  if (app.log.isLevelEnabled('debug')) {
    server.events.on('response', (request) => {
      const res = request.response as { statusCode?: number } | null;
      app.log.debug(
        {
          reqId: request.info.id,
          method: request.method,
          path: request.path,
          status: res?.statusCode,
          ms: Date.now() - request.info.received,
        },
        'request completed',
      );
    });
  }
  for (const r of routes) {
    // Hapi answers HEAD from the GET route (same headers, no body).
    if (!origins.includes(r.origin) || r.method === 'HEAD') continue;
    const route = toHapiRoute(app, r, implementationOf(r.operationId));
    server.route({ ...route, path: PREFIX[r.origin] + r.path });
  }
  if (origins.includes('delivery')) {
    allowCrossOrigin(server);
    // The per-request debug line is written by Hapi's response event: with it on, every answer goes through Hapi.
    if (!app.log.isLevelEnabled('debug')) answerBundlesFromMemory(server);
  }
  return server;
}

/** Bundles held in memory are answered before Hapi sees the request (handlers/delivery/memory.ts). */
function answerBundlesFromMemory(server: Hapi.Server) {
  const listener = server.listener;
  const hapiHandlers = listener.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  listener.removeAllListeners('request');
  listener.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (answerFromMemory(req, res)) return;
    for (const h of hapiHandlers) h(req, res);
  });
}

/**
 * Requests Node's parser refuses before Hapi sees them (headers over 16 KB, broken request lines) get the JSON
 * error body every other refusal has, instead of a bare `400 Bad Request`. Hapi's own handler stays for errors on
 * a request already under way.
 */
function answerMalformed(server: Hapi.Server) {
  const listener = server.listener;
  const hapiHandlers = listener.listeners('clientError') as Array<(err: Error, socket: Duplex) => void>;
  listener.removeAllListeners('clientError');
  listener.on('clientError', (err: Error & { code?: string }, socket: Duplex) => {
    if (!socket.writable || (socket as Duplex & { _httpMessage?: unknown })._httpMessage) {
      for (const h of hapiHandlers) h(err, socket);
      return;
    }
    const message =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? 'The request headers are larger than 16 KB.'
        : 'The request is not valid HTTP.';
    const body = JSON.stringify({ error: 'invalid_argument', message });
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

export function buildServers(app: App, opts: { port?: number; deliveryPort?: number } = {}) {
  const main = build(app, ['main', 'internal'], opts.port ?? app.config.port);
  const delivery = build(app, ['delivery'], opts.deliveryPort ?? app.config.deliveryPort);
  return { main, delivery };
}
