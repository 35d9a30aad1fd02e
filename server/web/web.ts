// What every dashboard page shares: cookies, the signed-in session, the CSRF and Origin checks of form posts,
// same-origin `next` paths, and HTML answers with the page headers.
import type { Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';
import type { App } from '../infra/app.js';
import { html, page, PAGE_HEADERS, type Html } from './html.js';
import { sameSecret } from '../infra/secrets.js';
import { notePendingOperations } from './nav.js';
import { readSession, type Session } from '../domain/users/sessions.js';

interface Cookies {
  /** HTTPS (PUBLIC_APP_URL): `Secure` cookies under the `__Host-` prefix (no Domain, Path=/, Secure). */
  secure: boolean;
  session: string;
  signin: string;
  /** A browser that signed in before (devices.ts). */
  device: string;
}

export function cookieNames(app: App): Cookies {
  const secure = app.config.publicAppUrl.startsWith('https:');
  const prefix = secure ? '__Host-' : '';
  return {
    secure,
    session: `${prefix}glossa_session`,
    signin: `${prefix}glossa_signin`,
    device: `${prefix}glossa_device`,
  };
}

/** A Set-Cookie value: HttpOnly, SameSite=Lax (a link from a chat or a mail arrives signed in), Path=/. */
export function setCookie(c: Cookies, name: string, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${c.secure ? '; Secure' : ''}`;
}

export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export async function sessionOf(app: App, request: Request): Promise<Session | undefined> {
  const session = await readSession(app.db, readCookie(request, cookieNames(app).session));
  // A page of a project shows how many operations wait for approval in its navigation (nav.ts).
  const projectId = (request.params as Record<string, unknown> | undefined)?.projectId;
  if (session && request.method === 'get' && typeof projectId === 'string')
    await notePendingOperations(request.server, session, projectId);
  return session;
}

/**
 * A form post is this origin's own: an `Origin` header, when sent (browsers send it on every POST), names this
 * origin (PUBLIC_APP_URL's, or the Host the browser addressed), `Sec-Fetch-Site` is not `cross-site`, and the
 * form's `csrf` field equals `expected` (compared in constant time).
 */
export function formIsOurs(app: App, request: Request, form: Record<string, unknown>, expected: string | undefined) {
  const origin = request.headers.origin as string | undefined;
  if (origin !== undefined) {
    const allowed = [new URL(app.config.publicAppUrl).origin];
    const host = request.headers.host as string | undefined;
    if (host) allowed.push(`http://${host}`, `https://${host}`);
    if (!allowed.includes(origin)) return false;
  }
  if (request.headers['sec-fetch-site'] === 'cross-site') return false;
  const sent = form.csrf;
  return typeof sent === 'string' && expected !== undefined && sameSecret(sent, expected);
}

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

export function htmlReply(h: ResponseToolkit, status: number, body: string, cookies: string[] = []): ResponseObject {
  const r = h.response(body).code(status).type('text/html; charset=utf-8');
  for (const [k, v] of Object.entries(PAGE_HEADERS)) r.header(k, v);
  for (const c of cookies) r.header('set-cookie', c, { append: true });
  return r;
}

export function redirect(h: ResponseToolkit, location: string, cookies: string[] = []): ResponseObject {
  const r = h.response().code(303).header('location', location).header('cache-control', 'no-store');
  for (const c of cookies) r.header('set-cookie', c, { append: true });
  return r;
}

/** The header bar of a signed-in page: who is signed in and a sign-out button. */
export function signedInHeader(s: Session): Html {
  return html`<form method="post" action="/signout">
    <span>${s.user.name} (${s.user.role})</span> <input type="hidden" name="csrf" value="${s.csrf}" />
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
