// The typed client of the public API (/v1) and of the internal dashboard API, built on openapi-fetch over the
// types generated from spec/. `createClient({baseUrl, apiKey})` is what applications and our own tests use.
//
// Compile-time guarantees (test/contract/sdk-types.test.ts runs tsc over test/contract/sdk-mistakes/):
// - Request bodies are closed. openapi-fetch infers each call's options as a type parameter, and an inferred
//   object is only checked for assignability, so a misspelt field (`requestID`, `sorce`, `dryRun` in a body)
//   compiled. `ApiClient` and `InternalClient` give GET/POST/PUT/PATCH/DELETE/HEAD/OPTIONS/TRACE the same
//   options without that type parameter: TypeScript then checks object literals for excess properties at every
//   depth, top-level options included (`param:` for `params:`). Only the types differ; the runtime object is
//   openapi-fetch's own. `request(method, path, init)` keeps openapi-fetch's loose typing for dynamic calls.
//   A body built apart from the call is a variable, which TypeScript never checks for excess properties: write
//   it `const body = {...} satisfies TranslateRequest`.
// - "Exactly one of" request shapes are real unions (generated/ spells them out, see scripts/generate.ts).
// - Dry run and real run of translate and sync answer different bodies, but `POST .../translate` itself can only
//   be typed with the union of both (the route decides by its query). The calls below are the typed way:
//   `translate` / `sync` send no `dryRun` and resolve to the real result, `previewTranslate` / `previewSync`
//   send `?dryRun=true` and resolve to the preview. One function per answer type, rather than an overload on a
//   `dryRun` argument, so the type is visible at the call and cannot drift from a boolean computed at run time.
// - `pullFile` reads a published version's rendered file as text (`parseAs: 'text'`), whatever its format and
//   content type (json, xml, strings, po): `data` is a `string`. Parse json formats yourself.
import createFetchClient, {
  type Client,
  type FetchOptions,
  type FetchResponse,
  type Middleware,
  type ParseAs,
} from 'openapi-fetch';
import type { components, paths } from '../../../generated/openapi.js';
import type { paths as internalPaths } from '../../../generated/internal.js';
// Canonical JSON (object keys sorted, no whitespace), as the spec defines `payload_sha256` and `batchSha256`.
import stableStringify from 'fast-json-stable-stringify';

type Verb = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
type PathsWith<Paths, M extends Verb> = {
  [P in keyof Paths]: Paths[P] extends { [K in M]: unknown } ? P : never;
}[keyof Paths];
type Op<Paths, P extends keyof Paths, M extends Verb> = Paths[P][M & keyof Paths[P]];
/** The init argument is optional exactly when none of its keys is required (an empty object is one). */
type InitArgs<I> = Record<string, never> extends I ? [init?: I] : [init: I];
type JsonInit<O> = Omit<FetchOptions<O>, 'parseAs'> & { parseAs?: 'json' };
type Media = `${string}/${string}`;
type Fetched<O, I> = O extends Record<string | number, unknown> ? FetchResponse<O, I, Media> : never;
/** The options of a call that sets none (no `parseAs`: the body is parsed as JSON). */
type NoOptions = Record<string, never>;

/** openapi-fetch's call signature with the options as a plain (non-inferred) parameter type. */
export interface StrictMethod<Paths, M extends Verb> {
  <P extends PathsWith<Paths, M>>(
    url: P,
    ...init: InitArgs<JsonInit<Op<Paths, P, M>>>
  ): Promise<Fetched<Op<Paths, P, M>, NoOptions>>;
  <P extends PathsWith<Paths, M>, A extends ParseAs>(
    url: P,
    init: FetchOptions<Op<Paths, P, M>> & { parseAs: A },
  ): Promise<Fetched<Op<Paths, P, M>, { parseAs: A }>>;
}

export interface StrictClient<Paths extends object> extends Omit<
  Client<Paths>,
  'GET' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS' | 'HEAD' | 'PATCH' | 'TRACE'
> {
  GET: StrictMethod<Paths, 'get'>;
  PUT: StrictMethod<Paths, 'put'>;
  POST: StrictMethod<Paths, 'post'>;
  DELETE: StrictMethod<Paths, 'delete'>;
  OPTIONS: StrictMethod<Paths, 'options'>;
  HEAD: StrictMethod<Paths, 'head'>;
  PATCH: StrictMethod<Paths, 'patch'>;
  TRACE: StrictMethod<Paths, 'trace'>;
}

export type ApiClient = StrictClient<paths>;
export type InternalClient = StrictClient<internalPaths>;

export interface ClientOptions {
  /** `{base_url}` including `/v1`, e.g. `https://api.example.com/v1`. */
  baseUrl: string;
  /** A project API key (`glk_...`). Omit for public routes only. */
  apiKey?: string;
  fetch?: typeof globalThis.fetch;
  /** Extra middleware (logging, response checks). */
  middleware?: Middleware[];
}

function bearer(token: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${token}`);
      return request;
    },
  };
}

export function createClient(opts: ClientOptions): ApiClient {
  const client = createFetchClient<paths>({ baseUrl: opts.baseUrl, fetch: opts.fetch });
  if (opts.apiKey) client.use(bearer(opts.apiKey));
  for (const m of opts.middleware ?? []) client.use(m);
  return client;
}

export function createInternalClient(opts: {
  baseUrl: string;
  adminToken: string;
  fetch?: typeof globalThis.fetch;
  middleware?: Middleware[];
}): InternalClient {
  const client = createFetchClient<internalPaths>({ baseUrl: opts.baseUrl, fetch: opts.fetch });
  client.use(bearer(opts.adminToken));
  for (const m of opts.middleware ?? []) client.use(m);
  return client;
}

// ------------------------------------------------------------------ typed calls

type Schemas = components['schemas'];
type TranslateOp = paths['/projects/{projectId}/translate']['post'];
type SyncOp = paths['/projects/{projectId}/sync']['post'];
type PullOp = paths['/projects/{projectId}/translations']['get'];

/** An answer in openapi-fetch's shape, with `data` of the type the call guarantees. */
export type Answer<Data, O> =
  | { data: Data; error?: never; response: Response }
  | { data?: never; error: NonNullable<Fetched<O, NoOptions>['error']>; response: Response };

/** Per-call options besides the ones a typed call sets itself (headers, signal, middleware, ...). */
export type CallOptions<O> = Omit<FetchOptions<O>, 'params' | 'body' | 'parseAs'>;

export type TranslateRequest = Schemas['TranslateRequest'];
export type TranslateUnit = Schemas['TranslateUnit'];
/** A real `POST /translate`: every field present. */
export type TranslateResult = Schemas['TranslateResult'];
/** `POST /translate?dryRun=true`: nothing written or enqueued; `accepted` tells whether the real push would fit. */
export type TranslatePreview = Schemas['TranslateDryRunResult'];
export type SyncRequest = Schemas['SyncRequest'];
/** A real `POST /sync`; `accepted` and `batchSha256` belong to dry runs only. */
export type SyncResult = Omit<Schemas['SyncResult'], 'accepted' | 'batchSha256'>;
/** `POST /sync?dryRun=true`: nothing written or enqueued, so `trackingToken` is always null. */
export type SyncPreview = Omit<Schemas['SyncResult'], 'trackingToken'> & { trackingToken: null };
/** A version pull: `version` (`YYYY.MM.DD.N` or `current`), `format` (default: the first effective one), `lang`. */
export type FileQuery = { version: string } & Pick<NonNullable<PullOp['parameters']['query']>, 'format' | 'lang'>;

export async function translate(
  client: ApiClient,
  projectId: string,
  body: TranslateRequest,
  init: CallOptions<TranslateOp> = {},
) {
  const r = await client.POST('/projects/{projectId}/translate', { ...init, params: { path: { projectId } }, body });
  return r as Answer<TranslateResult, TranslateOp>;
}

export async function previewTranslate(
  client: ApiClient,
  projectId: string,
  body: TranslateRequest,
  init: CallOptions<TranslateOp> = {},
) {
  const r = await client.POST('/projects/{projectId}/translate', {
    ...init,
    params: { path: { projectId }, query: { dryRun: 'true' } },
    body,
  });
  return r as Answer<TranslatePreview, TranslateOp>;
}

export async function sync(client: ApiClient, projectId: string, body: SyncRequest, init: CallOptions<SyncOp> = {}) {
  const r = await client.POST('/projects/{projectId}/sync', { ...init, params: { path: { projectId } }, body });
  return r as Answer<SyncResult, SyncOp>;
}

export async function previewSync(
  client: ApiClient,
  projectId: string,
  body: SyncRequest,
  init: CallOptions<SyncOp> = {},
) {
  const r = await client.POST('/projects/{projectId}/sync', {
    ...init,
    params: { path: { projectId }, query: { dryRun: 'true' } },
    body,
  });
  return r as Answer<SyncPreview, SyncOp>;
}

/** The rendered file of a published version, as text. */
export async function pullFile(client: ApiClient, projectId: string, query: FileQuery, init: CallOptions<PullOp> = {}) {
  const r = await client.GET('/projects/{projectId}/translations', {
    ...init,
    params: { path: { projectId }, query },
    parseAs: 'text',
  });
  return r as Answer<string, PullOp>;
}

/** One batch of an operation's manifest: its preview's `batchSha256` and how many units it carries. */
export interface ManifestBatch {
  sha256: string;
  unit_count: number;
}

/**
 * The `batches` and `payload_sha256` of a translate operation's scope, from the previews of its batches in order
 * (Web Crypto: Node 20 and browsers alike).
 */
export async function batchManifest(batches: ManifestBatch[]) {
  const list = batches.map((b, index) => ({ index, sha256: b.sha256, unit_count: b.unit_count }));
  const bytes = new TextEncoder().encode(stableStringify({ batches: list }));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  const payload_sha256 = [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
  return { batches: list, payload_sha256 };
}
