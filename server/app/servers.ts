// Builds the two Hapi servers: the main origin (public /v1 API, internal /internal/v1 API, dashboard) and the
// delivery origin. Routes come from the generated route table; a route with no implementation answers 501.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import Hapi from '@hapi/hapi';
import { routes, type RouteSpec } from '../../generated/routes.js';
import { implementationOf } from './implementations.js';
import { errorResponse, leanGet, toHapiRoute } from '../http/pipeline.js';
import { allowCrossOrigin } from '../http/delivery-cors.js';
import { answerFromMemory } from '../http/delivery-memory.js';
import { mountDashboard } from '../web/mount.js';
import type { App } from '../infra/app.js';

const PREFIX: Record<RouteSpec['origin'], string> = { main: '/v1', delivery: '/v1', internal: '/internal/v1' };

async function build(
  app: App,
  origins: Array<RouteSpec['origin']>,
  port: number,
  mount?: (server: Hapi.Server) => Promise<void>,
): Promise<Hapi.Server> {
  const server = Hapi.server({
    port,
    host: app.config.host,
    router: { stripTrailingSlash: true },
    routes: { timeout: { server: false } },
  });
  // First, so that its answers to Hapi's refusals on its own routes (pages) come before the JSON error bodies.
  if (mount) await mount(server);
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
  const early = new Map<string, EarlyGet>();
  for (const r of routes) {
    // Hapi answers HEAD from the GET route (same headers, no body).
    if (!origins.includes(r.origin) || r.method === 'HEAD') continue;
    const route = toHapiRoute(app, r, implementationOf(r.operationId));
    const path = PREFIX[r.origin] + r.path;
    server.route({ ...route, path });
    const run = leanGet(app, r, implementationOf(r.operationId));
    const segments = path.split('/');
    // Whole-segment parameters only: anything Hapi's router matches otherwise stays with Hapi.
    if (run && segments.every((seg) => !/[{}]/.test(seg) || /^\{\w+\}$/.test(seg))) early.set(path, { run, segments });
  }
  // The per-request debug line is written by Hapi's response event: with it on, every answer goes through Hapi.
  if (early.size && !app.log.isLevelEnabled('debug')) answerGetsEarly(server, early);
  if (origins.includes('delivery')) {
    allowCrossOrigin(server);
    // The per-request debug line is written by Hapi's response event: with it on, every answer goes through Hapi.
    if (!app.log.isLevelEnabled('debug')) answerBundlesFromMemory(server);
  }
  return server;
}

interface EarlyGet {
  run: NonNullable<ReturnType<typeof leanGet>>;
  /** The route's path split at `/`: literal segments and `{name}` parameters. */
  segments: string[];
}

// Paths whose segments Hapi would take as they are: no percent-encoding to decode, no dot segments to resolve, no
// empty segment, no trailing slash to strip, no query.
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+$/;

/** The path's parameters by the route's segments, or null when the path is not that route's (Hapi decides). */
function paramsOf(segments: string[], parts: string[]): Record<string, string> | null {
  if (parts.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 1; i < segments.length; i++) {
    const seg = segments[i];
    if (seg.charCodeAt(0) === 123 /* { */) params[seg.slice(1, -1)] = parts[i];
    else if (seg !== parts[i]) return null;
  }
  return params;
}

/**
 * Body-less GETs run their stages and handler before Hapi builds a request (server/http/pipeline.ts,
 * leanGet); Hapi's router still decides which route a path is, and Hapi answers every outcome leanGet does not.
 */
function answerGetsEarly(server: Hapi.Server, early: Map<string, EarlyGet>) {
  const listener = server.listener;
  const hapiHandlers = listener.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  listener.removeAllListeners('request');
  const toHapi = (req: IncomingMessage, res: ServerResponse) => {
    for (const h of hapiHandlers) h(req, res);
  };
  listener.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    if (
      req.method === 'GET' &&
      PLAIN_PATH.test(url) &&
      req.headers['content-length'] === undefined &&
      req.headers['transfer-encoding'] === undefined
    ) {
      const entry = early.get(server.match('GET', url)?.path ?? '');
      const params = entry ? paramsOf(entry.segments, url.split('/')) : null;
      if (entry && params) {
        entry.run(req, res, params, toHapi);
        return;
      }
    }
    toHapi(req, res);
  });
}

/** Bundles held in memory are answered before Hapi sees the request (server/http/delivery-memory.ts). */
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

export async function buildServers(app: App, opts: { port?: number; deliveryPort?: number } = {}) {
  const main = await build(app, ['main', 'internal'], opts.port ?? app.config.port, (server) =>
    mountDashboard(server, app),
  );
  const delivery = await build(app, ['delivery'], opts.deliveryPort ?? app.config.deliveryPort);
  return { main, delivery };
}
