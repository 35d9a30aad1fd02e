// The typed client of the public API (/v1) and of the internal dashboard API, built on openapi-fetch over the
// types generated from spec/. `createClient({baseUrl, apiKey})` is what applications and our own tests use.
import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '../generated/openapi.js';
import type { paths as internalPaths } from '../generated/internal.js';

export type ApiClient = Client<paths>;
export type InternalClient = Client<internalPaths>;

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

export function createInternalClient(opts: { baseUrl: string; adminToken: string; fetch?: typeof globalThis.fetch; middleware?: Middleware[] }): InternalClient {
  const client = createFetchClient<internalPaths>({ baseUrl: opts.baseUrl, fetch: opts.fetch });
  client.use(bearer(opts.adminToken));
  for (const m of opts.middleware ?? []) client.use(m);
  return client;
}
