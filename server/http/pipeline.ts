// Every route runs through one pipeline, in this order:
//   authenticate (401) → project (404) → rate limit (429; a request the scope refuses is not counted) → scope
//   (403, from the spec) → query flags and
//   parameters (400) → body size (413, enforced by Hapi while reading) → content type (415) → JSON (400)
//   → body dryRun flags (400) → schema (400 and the spec's x-error-codes) → approval (agent keys, approval.ts;
//   inside the request record on recorded routes) → the group's handler.
// The first four stages run in onPreAuth, before Hapi reads a byte of the body. A body-less GET runs all of them
// before Hapi builds a request (leanGet), and Hapi answers whatever that run does not answer itself.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Request, ResponseToolkit, ResponseValue, ServerRoute } from '@hapi/hapi';
import type { RouteSpec } from '../../generated/routes.js';
import { admit } from './admission.js';
import { Approval } from '../infra/approval.js';
import { sameSecret } from '../infra/secrets.js';
import { hasScope, noteKeyUse, type KeyPrincipal } from './apikeys.js';
import type { App } from '../infra/app.js';
import type { BodyOf, OperationId, PathOf, QueryOf, ReplyOf } from './contract.js';
import type { RecordedAnswer } from '../infra/requests.js';
import type { Logger } from '../infra/log.js';
import { contended, isContention, isStoreRefusal, isTooLong } from '../infra/db.js';
import { grantIn } from '../domain/users/grants.js';
import { dryRunFromBody, dryRunFromQuery } from './dryrun.js';
import { ApiError, invalidArgument, isRefusal, notFound, type Refusal } from '../infra/errors.js';
import { answerOf } from './refusals.js';
import { RATE_LIMIT, windowFull } from '../infra/ratelimit.js';
import { validateBody, validateParams } from './validation.js';
import { getProject } from '../domain/project/projects.js';
import type { ProjectRow } from '../infra/tables.js';

/**
 * What handlers and the stages before the body read of a request. On a GET answered before Hapi (leanGet) it is
 * all there is, so the type keeps handlers to it.
 */
export interface RequestView {
  headers: Request['headers'];
  params: Request['params'];
  query: Request['query'];
  raw: { req: Pick<IncomingMessage, 'rawHeaders'> };
  /** Hapi's per-request plugin state: only an in-process caller (server.inject) can set it before the pipeline. */
  plugins?: object;
}

/** A signed-in person acting through the dashboard (server/web/api.ts), and what the role may call. */
export interface Actor {
  userId: string;
  name: string;
  /**
   * The person's role; on a project's route, a translator's role in that project (owner, reviewer or translator),
   * set by the pipeline (server/domain/users/grants.ts).
   */
  role: 'owner' | 'reviewer' | 'translator';
  /** A translator's languages in the route's project, set by the pipeline with the role. */
  langs?: string[];
}

/** `translatorLangs` of an answer (spec KeyDetail): a translator's languages in the project, for no one else. */
export const translatorLangs = (actor: Actor | undefined) =>
  actor?.role === 'translator' ? { translatorLangs: actor.langs ?? [] } : {};

/**
 * Where the dashboard puts its person on an internal call (`server.inject({plugins: {[ACTOR_PLUGIN]: actor}})`).
 * A request from the network cannot set request.plugins, so this cannot be forged from outside the process.
 */
export const ACTOR_PLUGIN = 'glossa.actor';

interface BaseCtx {
  app: App;
  route: RouteSpec;
  request: RequestView;
  /** The calling key (public API) or undefined (public and internal routes). */
  principal?: KeyPrincipal;
  /** Internal routes called by the dashboard: the signed-in person (undefined under the admin token). */
  actor?: Actor;
  dryRun: boolean;
  /** The agent-key rule for this route's declared operation action (approval.ts). */
  approval: Approval;
}

/**
 * The delivery origin's routes name a project in their path but serve the object store's files as a CDN would,
 * without the project's row (origin.ts): the pipeline resolves no project for them.
 */
type DeliveryOperationId = 'getManifest' | 'getBundle';

/** `project` on every route whose path names a project (`{projectId}`), but the delivery origin's. */
type ProjectOf<Id extends OperationId> =
  PathOf<Id> extends { projectId: string }
    ? Id extends DeliveryOperationId
      ? unknown
      : { project: ProjectRow }
    : unknown;

/**
 * What a handler of `Id` receives: path, query and body already validated against that operation's schemas, and
 * the project its path names (not deleted; otherwise the pipeline answered 404).
 */
export type Ctx<Id extends OperationId> = BaseCtx & {
  params: PathOf<Id>;
  query: QueryOf<Id>;
  body: BodyOf<Id>;
} & ProjectOf<Id>;

/** A handler of one operation: it returns one of the operation's documented replies, or throws a Refusal or ApiError. */
export type Handler<Id extends OperationId> = (
  ctx: Ctx<Id>,
) => Promise<ReplyOf<Id> | RecordedAnswer> | ReplyOf<Id> | RecordedAnswer;

/** The same with the operation's types erased: what the pipeline calls (server/app/implementations.ts erases them). */
export interface Reply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  type?: string;
}
export type RawCtx = BaseCtx & {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  project?: ProjectRow;
};
export type RawHandler = (ctx: RawCtx) => Promise<Reply> | Reply;

const notImplemented: RawHandler = (ctx) => {
  throw new ApiError(501, 'not_implemented', `${ctx.route.method} ${ctx.route.path} is not implemented yet.`);
};

const unauthorized = (message: string) =>
  new ApiError(401, 'unauthorized', message, {}, { 'WWW-Authenticate': 'Bearer' });

/** Some routes answer a missing or invalid key exactly like an unknown resource (x-auth-error). */
const refuse = (route: RouteSpec, message: string) =>
  route.authError ? new ApiError(404, route.authError, 'Not found.') : unauthorized(message);

/**
 * A request header's value as text ('' when absent). Node hands a header as a string (repeats joined, or all but
 * the first dropped), or as a list for the few it keeps apart: a list reads as its items joined by commas.
 */
export function headerText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.join(',');
  return '';
}

function bearer(request: RequestView): string | null {
  const h = request.headers.authorization;
  if (!h) return null;
  // Node keeps the first of repeated Authorization headers and drops the rest; two credentials are none.
  if (authorizationCount(request.raw.req.rawHeaders) > 1) return '';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(headerText(h));
  return m ? m[1] : '';
}

/** `raw` is absent on a request made by `server.inject` (server/http/inject-fetch.ts), whose headers are one object. */
function authorizationCount(raw: string[] | undefined): number {
  if (!raw) return 1;
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 13 && raw[i].toLowerCase() === 'authorization') n++;
  return n;
}

interface State {
  principal?: KeyPrincipal;
  /** The key's project as admission read it, with the key, before the body. */
  project?: ProjectRow;
  actor?: Actor;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  dryRun: boolean;
}

async function beforeBody(app: App, route: RouteSpec, request: RequestView): Promise<State> {
  // Without a prototype: a parameter named `__proto__` is a name like any other, never this object's prototype.
  const state: State = {
    params: Object.assign(Object.create(null) as Record<string, unknown>, request.params),
    query: Object.assign(Object.create(null) as Record<string, unknown>, request.query),
    dryRun: false,
  };
  if (route.origin === 'internal') {
    const actor = (request.plugins as Record<string, Actor | undefined> | undefined)?.[ACTOR_PLUGIN];
    if (actor) {
      state.actor = actor;
      // A translator reaches only the projects they are granted, with the role they hold there (owner, reviewer
      // or translator of some languages); another project reads as unknown.
      if (actor.role === 'translator' && route.projectScoped) {
        const grant = await grantIn(app.db, actor.userId, String(request.params.projectId));
        if (!grant) throw notFound('Project not found.');
        state.actor = { ...actor, role: grant.role, langs: grant.role === 'translator' ? grant.langs : undefined };
      }
      // The role is enforced here, on every internal call, whatever page or tool made it (spec x-roles).
      if (!route.roles.includes(state.actor.role))
        throw new ApiError(403, 'forbidden', `The ${state.actor.role} role may not do this; ask an owner.`);
    } else {
      const token = bearer(request);
      if (!token || !sameSecret(token, app.config.adminToken)) throw unauthorized('A valid admin token is required.');
    }
  } else if (!route.public) {
    const token = bearer(request);
    if (!token) throw refuse(route, 'Send the project API key as Authorization: Bearer <key>.');
    const { principal, projectMatches, project, count } = await admit(app.db, {
      token,
      projectId: route.projectScoped ? String(request.params.projectId) : undefined,
      rateLimited: route.rateLimited,
      scopes: route.scopes,
    });
    if (!principal) throw refuse(route, 'The API key is not valid.');
    state.principal = principal;
    // A key only ever sees its own project: any other project id is "not found" to it. Outside a project's
    // routes, the key of a deleted project is no key at all.
    if (!projectMatches)
      throw route.projectScoped ? notFound('Project not found.') : refuse(route, 'The API key is not valid.');
    if (route.projectScoped) state.project = project!;
    if (count !== null && count > RATE_LIMIT) throw windowFull();
    if (!hasScope(principal.scopes, route.scopes)) {
      throw new ApiError(403, 'forbidden', `This key lacks the scope this route needs (${route.scopes.join(' or ')}).`);
    }
    noteKeyUse(app.db, principal.keyId);
  }
  state.dryRun = dryRunFromQuery(route.dryRun, state.query);
  const input = { ...state.query, ...state.params };
  if (route.hasParams) {
    try {
      validateParams(route.operationId, input);
    } catch (err) {
      // The delivery origin is a static site: a path that names nothing is not found, as a CDN would say.
      if (route.origin === 'delivery') throw notFound('Not found.');
      throw err;
    }
  }
  for (const k of Object.keys(state.query)) state.query[k] = input[k];
  for (const k of Object.keys(state.params)) state.params[k] = input[k];
  return state;
}

/** How long a declared body may take to arrive before the connection is answered and closed. */
const BODY_TIMEOUT_MS = 10_000;

/**
 * A body declared larger than the route takes is refused at once, before a byte of it is read, and the connection
 * is closed rather than drained: otherwise the 413 would wait for all of it (up to whatever the client declared).
 */
function refuseDeclaredSize(route: RouteSpec, request: Request) {
  const declared = Number(request.headers['content-length']);
  if (declared > route.bodyLimit) {
    throw tooLarge(route);
  }
}

const tooLarge = (route: RouteSpec) =>
  new ApiError(413, 'payload_too_large', `The body is larger than this route accepts (${route.bodyLimit} bytes).`);

/**
 * Reads the body up to the route's limit, for at most BODY_TIMEOUT_MS. Read here rather than by Hapi, which
 * drains the rest of a refused body before answering (all of it, or forever when it never comes); refused here,
 * the rest stays unread, and Hapi answers with `Connection: close` (transmit.js: payload still pending).
 */
function readBody(route: RouteSpec, request: Request): Promise<Buffer> {
  const stream = request.payload as unknown as Readable;
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const stop = (err: Refusal | ApiError | null) => {
      clearTimeout(timer);
      stream.removeListener('data', onData);
      if (err) {
        stream.pause();
        reject(err);
      } else resolve(Buffer.concat(parts));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > route.bodyLimit) stop(tooLarge(route));
      else parts.push(chunk);
    };
    const timer = setTimeout(
      () => stop(invalidArgument(`The request body did not arrive within ${BODY_TIMEOUT_MS / 1000} seconds.`)),
      BODY_TIMEOUT_MS,
    );
    stream.on('data', onData);
    stream.once('end', () => stop(null));
    stream.once('error', () => stop(invalidArgument('The request body could not be read.')));
  });
}

function parseBody(route: RouteSpec, request: Request, raw: Buffer): unknown {
  if (!raw || raw.length === 0) {
    if (route.bodyRequired) throw invalidArgument('A JSON body is required.');
    return undefined;
  }
  const type = headerText(request.headers['content-type']).split(';')[0].trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw new ApiError(415, 'unsupported_media_type', 'Send the body as Content-Type: application/json.');
  }
  const text = raw.toString('utf8');
  let body: unknown;
  try {
    // A number token too large for a double (`1e400`) parses as Infinity, which passes `type: integer` and
    // reaches the database. Only a body with a three-digit exponent or a 309-digit run can hold one, so only
    // such a body pays for the reviver that finds it.
    body = MAYBE_HUGE_NUMBER.test(text) ? JSON.parse(text, refuseNonFinite) : JSON.parse(text);
  } catch (err) {
    if (isRefusal(err)) throw err;
    throw invalidArgument('The body is not valid JSON.');
  }
  return body;
}

const MAYBE_HUGE_NUMBER = /[eE]\+?\d{3}|\d{309}/;

function refuseNonFinite(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value))
    throw invalidArgument('The body holds a number too large to represent.');
  return value;
}

/** The stages after the ones before the body (for a route with a body, onPreAuth ran those), then the handler. */
async function run(app: App, route: RouteSpec, impl: RawHandler, request: Request | RequestView): Promise<Reply> {
  const state = route.hasBody ? ((request as Request).app as State) : await beforeBody(app, route, request);
  let body: unknown;
  let dryRun = state.dryRun;
  if (route.hasBody) {
    body = parseBody(route, request as Request, await readBody(route, request as Request));
    dryRun = dryRunFromBody(route.dryRun, body) || dryRun;
    if (body !== undefined) validateBody(route.operationId, body);
  }
  if (route.scopesByAction && state.principal) {
    const action = (body as { action?: unknown } | null | undefined)?.action;
    const needed = (typeof action === 'string' ? route.scopesByAction[action] : undefined) ?? route.scopes;
    if (!hasScope(state.principal.scopes, needed))
      throw new ApiError(403, 'forbidden', `This key lacks the scope this action needs (${needed.join(' or ')}).`);
  }
  const operationId = body && typeof body === 'object' ? (body as { operationId?: unknown }).operationId : undefined;
  const approval = new Approval(
    route.operationAction,
    state.principal?.requiresOperationApproval ?? false,
    operationId,
    dryRun,
    {
      db: app.db,
      gate: app.operations,
      keyId: state.principal?.keyId,
      projectId: state.principal?.projectId,
      body,
      params: state.params,
    },
  );
  approval.checkFields();
  const ctx = {
    app,
    route,
    request,
    principal: state.principal,
    actor: state.actor,
    params: state.params,
    query: state.query,
    body,
    dryRun,
    approval,
    project: await projectOf(app, route, state),
  };
  if (route.recorded) return impl(ctx);
  await approval.begin();
  if (!approval.operation) return impl(ctx);
  // Under an operation (publish, restore): the use taken by begin() is given back when the handler refuses.
  let reply: Reply;
  try {
    reply = await impl(ctx);
  } catch (err) {
    await approval.settle(err);
    throw err;
  }
  await approval.settle(undefined);
  return reply;
}

/**
 * The project the route's path names, read once per request, where the handlers read it before: a key's request
 * without a body takes the row admission read with the key (nothing ran since), one with a body reads it again
 * once the body is in (the project may have been deleted or reconfigured meanwhile), and internal routes read it
 * here. A deleted or unknown project is 404, after every check of the request itself.
 */
async function projectOf(app: App, route: RouteSpec, state: State): Promise<ProjectRow | undefined> {
  if (!route.projectScoped || route.origin === 'delivery') return undefined;
  if (state.project && !route.hasBody) return state.project;
  return getProject(app.db, String(state.params.projectId));
}

// What a lean GET found, for Hapi to answer when the answer is not one leanGet sends itself.
const OUTCOME = Symbol('glossa.outcome');
type Outcome = { reply: Reply } | { error: unknown };
type Stashed = IncomingMessage & { [OUTCOME]?: Outcome };

const JSON_TYPE = 'application/json; charset=utf-8';
// Hapi compresses (and varies by Accept-Encoding) from 1 KB up; below that its answer does not depend on the
// request's headers beyond Range.
const SMALL = 1024;

/**
 * A body-less GET run before Hapi builds its request: the stages and the handler run on the Node request (Hapi's
 * lifecycle and response stream cost more than the rest of GET /credential together; bench/credential.ts), and a small
 * JSON 200 is written with the headers Hapi gives it (`cache-control: no-cache`, `accept-ranges: bytes`, its
 * length). Any other outcome (an error, another status, headers or type, a bigger body, a Range header) is
 * handed to Hapi through `toHapi`, whose route handler answers that outcome as it answers its own. Null for routes
 * this cannot run (with a body, or on the delivery origin, whose handlers read more of the request).
 */
export function leanGet(
  app: App,
  route: RouteSpec,
  handler: RawHandler | undefined,
):
  | ((
      req: IncomingMessage,
      res: ServerResponse,
      params: Record<string, string>,
      toHapi: (req: IncomingMessage, res: ServerResponse) => void,
    ) => void)
  | null {
  // Internal routes go through Hapi: the dashboard's in-process calls carry their person in request.plugins.
  if (route.method !== 'GET' || route.hasBody || route.origin !== 'main') return null;
  const impl = handler ?? notImplemented;
  return (req, res, params, toHapi) => {
    const request: RequestView = { headers: req.headers, params, query: {}, raw: { req } };
    run(app, route, impl, request).then(
      (reply) => {
        if ((reply.status ?? 200) === 200 && reply.type === undefined && reply.headers === undefined) {
          const body = plainJson(reply.body);
          if (body !== null && req.headers.range === undefined) {
            res.writeHead(200, {
              'content-type': JSON_TYPE,
              'cache-control': 'no-cache',
              'content-length': String(Buffer.byteLength(body)),
              'accept-ranges': 'bytes',
            });
            // As text: Node sends it in one write with the headers (a Buffer goes out as a writev of both).
            res.end(body);
            return;
          }
        }
        (req as Stashed)[OUTCOME] = { reply };
        toHapi(req, res);
      },
      (error: unknown) => {
        (req as Stashed)[OUTCOME] = { error };
        toHapi(req, res);
      },
    );
  };
}

/** The JSON of an object or array body under SMALL bytes, as Hapi serializes it; null for anything else. */
function plainJson(body: unknown): string | null {
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body)) return null;
  const proto = Object.getPrototypeOf(body) as unknown;
  if (proto !== Object.prototype && proto !== Array.prototype) return null;
  const text = JSON.stringify(body) as string | undefined;
  if (text === undefined) return null;
  // UTF-8 takes at most 3 bytes per UTF-16 unit: only a text near the limit needs counting.
  return text.length < SMALL / 3 || Buffer.byteLength(text) < SMALL ? text : null;
}

export function toHapiRoute(app: App, route: RouteSpec, handler: RawHandler | undefined): ServerRoute {
  const impl = handler ?? notImplemented;
  // With a body, the stages before it run in onPreAuth, before Hapi reads a byte of it; without one there is
  // nothing to read first, and the handler runs them itself (an ext point costs a lifecycle step per request).
  const options: ServerRoute['options'] = route.hasBody
    ? {
        payload: { parse: false, output: 'stream', maxBytes: route.bodyLimit, allow: undefined },
        ext: {
          onPreAuth: {
            method: async (request: Request, h: ResponseToolkit) => {
              request.app = await beforeBody(app, route, request);
              refuseDeclaredSize(route, request);
              return h.continue;
            },
          },
        },
      }
    : {};
  // Bearer-key routes a browser app calls from its own origin (x-cors): no credentials, so `*` is safe.
  if (route.cors)
    options.cors = { origin: ['*'], credentials: false, headers: ['Authorization', 'Content-Type'], maxAge: 600 };
  return {
    method: route.method as Exclude<RouteSpec['method'], 'HEAD'>,
    path: route.path,
    options,
    handler: async (request, h) => {
      const early = (request.raw.req as Stashed)[OUTCOME];
      if (early && 'error' in early) throw early.error;
      const reply = early ? early.reply : await run(app, route, impl, request);
      const res =
        reply.body === undefined
          ? h.response().code(reply.status ?? 204)
          : h.response(reply.body as ResponseValue).code(reply.status ?? 200);
      if (reply.type) res.type(reply.type);
      for (const [k, v] of Object.entries(reply.headers ?? {})) res.header(k, v);
      return res;
    },
  };
}

/**
 * What a failed statement or object write means to the client (the spec's `contended` and `unavailable` 503 answers): a transaction that lost to
 * another rolled back whole (`503 contended`, retry); the database or the object store refused a write
 * (`503 unavailable`); a value longer than its column, past every limit the spec sets (`400`, nothing written).
 */
function storeError(err: unknown): Refusal | ApiError | null {
  if (isContention(err)) return contended();
  if (isStoreRefusal(err)) {
    return new ApiError(
      503,
      'unavailable',
      `The datastore refused a write (${(err as { code?: string }).code}): the request was rolled back and nothing it wrote remains. Re-run the call once the store accepts writes; do not replay it.`,
    );
  }
  if (isTooLong(err))
    return invalidArgument('A value is longer or larger than the service stores; nothing was written.');
  return null;
}

/** Hapi's own refusals (unknown route, oversize body, ...) and ours (Refusal, ApiError), all as `{error, message}`. */
export function errorResponse(request: Request, h: ResponseToolkit, log: Logger) {
  const res = request.response;
  if (!res || !('isBoom' in res) || !res.isBoom) return h.continue;
  const ours = isRefusal(res) ? res : storeError(res);
  let err: ApiError | null = ours && answerOf(ours);
  if (!err) {
    const status = res.output?.statusCode ?? 500;
    const byStatus: Record<number, [string, string]> = {
      400: ['invalid_argument', 'The request is malformed.'],
      401: ['unauthorized', 'Authentication is required.'],
      403: ['forbidden', 'Not allowed.'],
      404: ['not_found', 'No such route.'],
      405: ['not_found', 'No such route.'],
      408: ['invalid_argument', 'The request body took too long to arrive.'],
      413: ['payload_too_large', 'The request body is larger than this route accepts.'],
      415: ['unsupported_media_type', 'Unsupported content type.'],
    };
    const [code, message] = byStatus[status] ?? [
      'internal',
      'Internal error. The write may have committed; rerunning the command is safe.',
    ];
    if (!byStatus[status])
      log.error({ err: res, reqId: request.info.id, method: request.method, path: request.path }, 'internal error');
    err = new ApiError(byStatus[status] ? status : 500, code, message);
  }
  const out = h.response(err.body()).code(err.status);
  for (const [k, v] of Object.entries(err.headers)) out.header(k, v);
  return out;
}
