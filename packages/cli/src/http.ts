// The CLI's HTTP layer: the typed SDK client over a fetch that retries what is safe to retry and says so.
// - 429: waits Retry-After (seconds, capped by GLOSSA_MAX_RETRY_WAIT, default 60) and sends it again.
// - 502, 503, 504 and network errors: backs off (0.5 s, 1 s, 2 s, ...) and sends again. A body with a
//   `requestId` is sent under `<requestId>-r<n>`: the service records a refused request as failed, and a
//   refusal is resent under a new requestId (`RequestRecord`). A CI rerun reaches the first one again, so the
//   derived ids stay idempotent.
// - 500 is never retried: the write may have committed; the command fails and says rerunning is safe.
// At most `retries` extra attempts (GLOSSA_RETRIES, default 4). --verbose shows each request's method, path,
// status and request id, never the Authorization header.
import { createClient, type ApiClient } from '../../client/src/index.js';
import type { Output } from './output.js';

interface HttpOptions {
  baseUrl: string;
  apiKey: string;
  out: Output;
  retries: number;
  maxRetryWait: number;
  /** Backoff base in ms (tests shorten it). */
  backoffMs: number;
  fetch?: typeof globalThis.fetch;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function retryRequestId(body: string | null, attempt: number): string | null {
  if (!body) return body;
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    if (typeof json.requestId !== 'string') return body;
    const base = json.requestId.replace(/-r\d+$/, '');
    json.requestId = `${base}-r${attempt}`.slice(0, 128);
    return JSON.stringify(json);
  } catch {
    return body;
  }
}

function retryingFetch(opts: HttpOptions): typeof globalThis.fetch {
  const inner = opts.fetch ?? globalThis.fetch;
  return async (input, init) => {
    const request = new Request(input, init);
    let body = request.method === 'GET' || request.method === 'HEAD' ? null : await request.text();
    const path = new URL(request.url).pathname + new URL(request.url).search;
    for (let attempt = 0; ; attempt++) {
      let res: Response | undefined;
      let failure: unknown;
      const started = Date.now();
      try {
        res = await inner(new Request(request, { body, ...(body === null ? {} : { duplex: 'half' }) }));
      } catch (e) {
        failure = e;
      }
      if (res)
        opts.out.verbose(
          `${request.method} ${path} -> ${res.status} (${Date.now() - started} ms)${res.headers.get('x-request-id') ? ` request-id ${res.headers.get('x-request-id')}` : ''}`,
        );
      const retryable = !res || res.status === 429 || res.status === 502 || res.status === 503 || res.status === 504;
      if (!retryable || attempt >= opts.retries) {
        if (res) return res;
        throw failure;
      }
      let wait: number;
      let why: string;
      if (res?.status === 429) {
        const after = Number(res.headers.get('retry-after'));
        wait = Math.min(Number.isFinite(after) && after >= 0 ? after : 60, opts.maxRetryWait) * 1000;
        why = 'rate limited (429)';
      } else {
        wait = opts.backoffMs * 2 ** attempt;
        why = res ? `the service answered ${res.status}` : `network error (${(failure as Error).message})`;
        if (res) body = retryRequestId(body, attempt + 1);
      }
      await res?.body?.cancel();
      opts.out.note(
        `${request.method} ${path}: ${why}; retrying in ${(wait / 1000).toFixed(1)} s (attempt ${attempt + 2} of ${opts.retries + 1})`,
      );
      await sleep(wait);
    }
  };
}

export function apiClient(opts: HttpOptions): ApiClient {
  return createClient({ baseUrl: opts.baseUrl, apiKey: opts.apiKey, fetch: retryingFetch(opts) });
}
