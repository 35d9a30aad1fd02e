// The CLI's HTTP layer: the typed SDK client over a fetch that retries what is safe to retry and says so.
// - 429: waits Retry-After (seconds, capped by GLOSSA_MAX_RETRY_WAIT, default 60) and sends it again.
// - 502, 503, 504 and network errors: backs off (0.5 s, 1 s, 2 s, ...) and sends again. A body with a
//   `requestId` is sent under `<requestId>-r<n>`: the service records a refused request as failed, and a
//   refusal is resent under a new requestId (`RequestRecord`). A CI rerun reaches the first one again, so the
//   derived ids stay idempotent.
// - 500 is never retried: the write may have committed; the command fails and says rerunning is safe.
// - Every attempt has a deadline (`--request-timeout`, GLOSSA_REQUEST_TIMEOUT, default 30 s): a stalled connection
//   is a network error like a refused one, retried as above, so a run ends within about
//   (retries + 1) x timeout + the backoffs instead of hanging on a socket.
// At most `retries` extra attempts (GLOSSA_RETRIES, default 4). A failure that is not an answer names the host and
// its cause (`connect ECONNREFUSED 127.0.0.1:9`, `no answer within 30 s`). `signal` (the MCP server's call) stops
// everything at once: nothing is sent after it aborts. --verbose shows each request's method, path, status and
// request id, never the Authorization header.
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
  /** Deadline of one attempt, ms. */
  timeoutMs: number;
  /** The caller gave up (an MCP client cancelled or timed out): no request is sent or retried after it. */
  signal?: AbortSignal;
  fetch?: typeof globalThis.fetch;
}

/** Why a request got no answer, as a person can act on it: the host and the cause. */
function networkCause(e: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `no answer within ${timeoutMs / 1000} s`;
  const err = e as Error & { cause?: { code?: string; message?: string } };
  return err.cause?.message || err.cause?.code || err.message || String(e);
}

/** A request that never got an answer: thrown with its host and cause (http.ts header). */
class NetworkError extends Error {}

/** Waits `ms`, or less when `signal` aborts (the loop then stops at its check). */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

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
    const host = new URL(request.url).host;
    for (let attempt = 0; ; attempt++) {
      if (opts.signal?.aborted) throw new NetworkError(`${request.method} ${host}${path}: the call was cancelled`);
      let res: Response | undefined;
      let failure: unknown;
      const started = Date.now();
      const deadline = AbortSignal.timeout(opts.timeoutMs);
      const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
      try {
        res = await inner(new Request(request, { body, signal, ...(body === null ? {} : { duplex: 'half' }) }));
      } catch (e) {
        if (opts.signal?.aborted) throw new NetworkError(`${request.method} ${host}${path}: the call was cancelled`);
        failure = `${host}: ${networkCause(e, deadline.aborted, opts.timeoutMs)}`;
      }
      if (res)
        opts.out.verbose(
          `${request.method} ${path} -> ${res.status} (${Date.now() - started} ms)${res.headers.get('x-request-id') ? ` request-id ${res.headers.get('x-request-id')}` : ''}`,
        );
      const retryable = !res || res.status === 429 || res.status === 502 || res.status === 503 || res.status === 504;
      if (!retryable || attempt >= opts.retries) {
        if (res) return res;
        throw new NetworkError(
          `${request.method} ${path} got no answer from ${String(failure)}${opts.retries ? ` (${attempt + 1} attempts)` : ''}`,
        );
      }
      let wait: number;
      let why: string;
      if (res?.status === 429) {
        const after = Number(res.headers.get('retry-after'));
        wait = Math.min(Number.isFinite(after) && after >= 0 ? after : 60, opts.maxRetryWait) * 1000;
        why = 'rate limited (429)';
      } else {
        wait = opts.backoffMs * 2 ** attempt;
        why = res ? `the service answered ${res.status}` : `network error (${String(failure)})`;
        if (res) body = retryRequestId(body, attempt + 1);
      }
      await res?.body?.cancel();
      opts.out.note(
        `${request.method} ${path}: ${why}; retrying in ${(wait / 1000).toFixed(1)} s (attempt ${attempt + 2} of ${opts.retries + 1})`,
      );
      await sleep(wait, opts.signal);
    }
  };
}

export function apiClient(opts: HttpOptions): ApiClient {
  return createClient({ baseUrl: opts.baseUrl, apiKey: opts.apiKey, fetch: retryingFetch(opts) });
}
