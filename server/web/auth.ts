// Who is signed in to the dashboard, on Hapi's own terms: the cookies are Hapi state (server.state, read from
// request.state, set with h.state and h.unstate), and the session is the `session` auth strategy, whose scheme
// reads the session cookie (server/domain/users/sessions.ts: idle and absolute expiry) and gives the route
// credentials {user, session, scope: [role]}. A route declares how it is used:
// - `options: signedIn(...)` (`auth: 'session'`): a person must be signed in; without a live session a page answers
//   303 to the sign-in page with a same-origin `next` (or a bare 401 for a fragment dashboard.js fetches).
//   Owner-only routes add `access.scope` (on a project's page, the person's role in the project: project-role.ts),
//   and anyone else gets the "Owners only" page. A form post is checked for
//   this session's CSRF token as the scheme's payload authentication (csrf.ts).
// - `auth: { strategy: 'session', mode: 'try' }`: the sign-in pages, which serve anyone.
import type { Request, RouteOptions, Server, ServerAuthSchemeObject, ServerStateCookieOptions } from '@hapi/hapi';
import type { App } from '../infra/app.js';
import { readSession, SESSION_TTL_MS, type Session } from '../domain/users/sessions.js';
import { DEVICE_TTL_MS } from '../domain/users/devices.js';
import { ownersOnly } from './forms.js';
import { notePendingOperations } from './nav.js';
import { noteProjectRole, roleOf } from './project-role.js';
import { refusal, registerSigninCsrf, sessionFormIsOurs } from './csrf.js';
import { htmlReply, redirect, signinUrl } from './web.js';

/** What a dashboard route says about itself (route `plugins.dashboard`). */
interface DashboardRoute {
  /** Without a live session: the path the sign-in page returns to, or false for a bare 401. */
  signin?: ((request: Request) => string) | false;
  /** Owners only: what a reviewer may not do, for the "Owners only" page. */
  owners?: string;
  /** The page of a form post this site did not send, when the common one (csrf.ts) does not fit. */
  refused?: (request: Request, s?: Session) => string;
}

declare module '@hapi/hapi' {
  interface PluginSpecificConfiguration {
    dashboard?: DashboardRoute;
  }
}

interface Cookies {
  /** HTTPS (PUBLIC_APP_URL): `Secure` cookies under the `__Host-` prefix (no Domain, Path=/, Secure). */
  secure: boolean;
  session: string;
  signin: string;
  /** A browser that signed in before (server/domain/users/devices.ts). */
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

/** Every dashboard cookie: HttpOnly, SameSite=Lax (a link from a chat or a mail arrives signed in), Path=/. */
export function cookieOptions(c: Cookies, ttlMs: number): ServerStateCookieOptions {
  return { ttl: ttlMs, path: '/', isHttpOnly: true, isSameSite: 'Lax', isSecure: c.secure, encoding: 'none' };
}

// The session cookie outlives the session (12 hours; 2 without activity) by a day, so that a browser still sends it
// once the session has ended and the sign-in page can say why the person has to sign in again. The value is worth
// nothing by then: the database decides.
const SESSION_COOKIE_MS = SESSION_TTL_MS + 24 * 60 * 60 * 1000;

/** A cookie's value: a browser that sends one name twice gets the first, as a browser orders them. */
export function cookieOf(request: Request, name: string): string | undefined {
  const v = (request.state as Record<string, unknown> | null)?.[name];
  const first: unknown = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first : undefined;
}

/** The session of a route that requires one (`signedIn(...)`). */
export function sessionOf(request: Request): Session {
  return (request.auth.credentials as unknown as { session: Session }).session;
}

/** The session of a route that serves anyone, when there is one. */
export const maybeSessionOf = (request: Request): Session | undefined =>
  request.auth.isAuthenticated ? sessionOf(request) : undefined;

/** A route for signed-in people: `signin` is where the sign-in page returns to (false: 401); `owners` see above. */
export function signedIn(
  signin: ((request: Request) => string) | false,
  opts: { owners?: string } = {},
): Partial<RouteOptions> {
  return {
    auth: { strategy: 'session', ...(opts.owners ? { access: { scope: ['owner'] } } : {}) },
    plugins: { dashboard: { signin, owners: opts.owners } },
  };
}

const dashboardOf = (request: Request): DashboardRoute | undefined => request.route.settings.plugins?.dashboard;

function scheme(app: App, names: Cookies): ServerAuthSchemeObject {
  return {
    options: { payload: true },
    async authenticate(request, h) {
      const session = await readSession(app.db, cookieOf(request, names.session));
      if (session) {
        // A page of a project shows how many operations wait for approval in its navigation (nav.ts).
        const projectId = (request.params as Record<string, unknown> | undefined)?.projectId;
        if (typeof projectId === 'string') await noteProjectRole(app.db, session, projectId);
        if (request.method === 'get' && typeof projectId === 'string')
          await notePendingOperations(request.server, session, projectId);
        return h.authenticated({ credentials: { user: session.user, session, scope: [roleOf(session)] } });
      }
      const signin = dashboardOf(request)?.signin;
      if (request.auth.mode !== 'required' || signin === undefined)
        return h.unauthenticated(new Error('no dashboard session'));
      if (signin === false) return htmlReply(h, 401, '').takeover();
      return redirect(h, signinUrl(signin(request))).takeover();
    },
    // The sign-in form's token is crumb's (csrf.ts); every other form of a signed-in person carries the session's.
    payload(request, h) {
      if (request.route.settings.plugins?.crumb !== undefined) return h.continue;
      const session = sessionOf(request);
      return sessionFormIsOurs(app, request, session) ? h.continue : refusal(request, h, session).takeover();
    },
  };
}

/**
 * The session strategy, the cookies and the CSRF checks. Call before the server's JSON error answers are
 * registered (server/app/servers.ts): Hapi's 403 of a dashboard route is answered here with a page.
 */
export async function registerDashboardAuth(server: Server, app: App) {
  const names = cookieNames(app);
  server.state(names.session, cookieOptions(names, SESSION_COOKIE_MS));
  server.state(names.device, cookieOptions(names, DEVICE_TTL_MS));
  server.auth.scheme('dashboard-session', () => scheme(app, names));
  server.auth.strategy('session', 'dashboard-session');
  await registerSigninCsrf(server, app, names.signin, cookieOptions(names, 0));
  server.ext('onPreResponse', (request, h) => {
    const res = request.response;
    const route = dashboardOf(request);
    if (!route || !('isBoom' in res) || !res.isBoom || res.output.statusCode !== 403) return h.continue;
    const session = maybeSessionOf(request);
    // A reviewer on an owner-only route (access.scope); else crumb's refusal of a sign-in form.
    if (route.owners && session) return htmlReply(h, 403, ownersOnly(session, route.owners));
    return refusal(request, h, session);
  });
}
