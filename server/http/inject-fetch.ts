// A `fetch` that never leaves the process: each request is a Hapi `server.inject` of the same route, so it runs the
// whole pipeline (validation, admission, handler, errors) as a call from the network would. The dashboard calls the
// internal API this way (server/web/api.ts), and the service tests' SDK clients do (test/helpers/service.ts), where
// a socket is not what the test is about.
import type Hapi from '@hapi/hapi';

/** `plugins`: request plugin state set on every injected request (the dashboard's actor). */
export function injectFetch(
  server: Hapi.Server,
  plugins?: Record<string, unknown>,
): (input: Request | string | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const request = input instanceof Request && !init ? input : new Request(input, init);
    const url = new URL(request.url);
    const payload = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => (headers[k] = v));
    const res = await server.inject({
      method: request.method,
      url: url.pathname + url.search,
      headers,
      payload,
      // Hapi takes an explicit `plugins: undefined` as the request's plugin state, which it must always have.
      ...(plugins ? { plugins } : {}),
    });
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [String(v)]) out.append(k, one);
    }
    const empty = res.statusCode === 204 || res.statusCode === 304 || request.method === 'HEAD';
    return new Response(empty ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, headers: out });
  };
}
