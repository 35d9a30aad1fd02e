// What every dashboard page shares: posted forms, same-origin `next` paths, and HTML answers with the page headers
// (who is signed in and the CSRF checks: auth.ts, csrf.ts).
import type { Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';
import { html, page, PAGE_HEADERS, type Html } from './html.js';
import type { Session } from '../domain/users/sessions.js';
import { roleOf } from './project-role.js';

/** The posted form as strings only (a repeated field is refused by taking none of it). */
export function formOf(request: Request): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  const payload = request.payload;
  if (payload && typeof payload === 'object' && !Buffer.isBuffer(payload))
    for (const [k, v] of Object.entries(payload)) if (typeof v === 'string') out[k] = v;
  return out;
}

const BASE = 'http://dashboard.invalid';

/**
 * `next` as a path of this origin (path, query, fragment), else `/`: no scheme, no `//host`, no backslash (which
 * browsers read as a slash), no control characters, no sign-in page (a loop). The answer is the normalised path,
 * so it is the normalised path that is checked: `/.//evil.example`, `/a/..//evil.example` and `/%2e//evil.example`
 * all normalise to `//evil.example`, which a browser reads as another host.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next.length > 2000 || !next.startsWith('/')) return '/';
  if (next.startsWith('//') || [...next].some((c) => c === '\\' || c < ' ' || c === '\u007f')) return '/';
  let u: URL;
  try {
    u = new URL(next, BASE);
  } catch {
    return '/';
  }
  if (u.origin !== BASE || u.pathname === '/signin' || u.pathname === '/signout') return '/';
  const path = u.pathname + u.search + u.hash;
  if (!path.startsWith('/') || path.startsWith('//') || new URL(path, BASE).origin !== BASE) return '/';
  return path;
}

export const signinUrl = (next: string) => (next === '/' ? '/signin' : `/signin?next=${encodeURIComponent(next)}`);

/** Millicredits as credits, with the decimals there are (1500 → "1.5"). */
export const credits = (mc: number) => (mc / 1000).toLocaleString('en-US', { maximumFractionDigits: 3 });

export function htmlReply(h: ResponseToolkit, status: number, body: string): ResponseObject {
  const r = h.response(body).code(status).type('text/html; charset=utf-8');
  for (const [k, v] of Object.entries(PAGE_HEADERS)) r.header(k, v);
  return r;
}

export const redirect = (h: ResponseToolkit, location: string): ResponseObject =>
  h.response().code(303).header('location', location).header('cache-control', 'no-store');

/** The header bar of a signed-in page: who is signed in and a sign-out button. */
export function signedInHeader(s: Session): Html {
  return html`<form method="post" action="/signout">
    <span>${s.user.name} (${roleOf(s)})</span> <input type="hidden" name="csrf" value="${s.csrf}" />
    <button type="submit">Sign out</button>
  </form>`;
}

/** A page that states what happened and offers nothing to do. */
export function messagePage(title: string, message: Html | string, s?: Session): string {
  return page(
    title,
    html`<section>
      <h1>${title}</h1>
      <p>${message}</p>
    </section>`,
    s && signedInHeader(s),
  );
}
