// The CSRF checks of the dashboard's form posts. Every post needs an `Origin` of this origin when one is sent
// (browsers send it on every POST) and a `Sec-Fetch-Site` other than `cross-site`, and a token in its `csrf` field:
// - a signed-in form's token is the session's (HMAC of the session token, server/domain/users/sessions.ts): no
//   cookie holds it, so a cookie another site plants cannot forge it. The `session` auth scheme checks it as the
//   request's payload authentication (auth.ts): a handler runs only for a form of the session it acts for.
// - the sign-in form has no session yet: its token is a double submit, @hapi/crumb's model. GET /signin sets a random
//   value in an HttpOnly cookie and in the form (reused while the cookie lives, so several tabs agree), and POST
//   /signin accepts only the two equal.
import Crumb from '@hapi/crumb';
import type { Request, ResponseToolkit, RouteOptions, Server, ServerStateCookieOptions } from '@hapi/hapi';
import type { App } from '../infra/app.js';
import { sameSecret } from '../infra/secrets.js';
import type { Session } from '../domain/users/sessions.js';
import { formOf, htmlReply, messagePage } from './web.js';

declare module '@hapi/hapi' {
  interface PluginSpecificConfiguration {
    /** @hapi/crumb's settings of a route (its README): the sign-in form's only. */
    crumb?: { key?: string } | false;
  }
}

/** The form field every dashboard form carries its token in. */
const FIELD = 'csrf';
const SIGNIN_COOKIE_MS = 60 * 60 * 1000;

/** The sign-in form's routes: the double-submit token, named `csrf` in the form like every other token. */
export const SIGNIN_FORM: RouteOptions['plugins'] = { crumb: { key: FIELD } };

const isSigninForm = (request: Request) => request.route.settings.plugins?.crumb !== undefined;

/** The post names this origin (PUBLIC_APP_URL's, or the Host the browser addressed) and is not a cross-site one. */
function sameOrigin(app: App, request: Request): boolean {
  const origin = request.headers.origin as string | undefined;
  if (origin !== undefined) {
    const allowed = [new URL(app.config.publicAppUrl).origin];
    const host = request.headers.host as string | undefined;
    if (host) allowed.push(`http://${host}`, `https://${host}`);
    if (!allowed.includes(origin)) return false;
  }
  return request.headers['sec-fetch-site'] !== 'cross-site';
}

/** A signed-in form post is this site's and this session's (compared in constant time). */
export function sessionFormIsOurs(app: App, request: Request, s: Session): boolean {
  const sent = formOf(request)[FIELD];
  return sameOrigin(app, request) && typeof sent === 'string' && sameSecret(sent, s.csrf);
}

/** The page of a form post this site did not send (the route's own words, else the common ones); nothing changed. */
export function refusal(request: Request, h: ResponseToolkit, s?: Session) {
  const own = request.route.settings.plugins?.dashboard?.refused;
  const body = own
    ? own(request, s)
    : messagePage('Refused', 'This form was not sent by this site; nothing changed.', s);
  return htmlReply(h, 403, body);
}

/**
 * The sign-in form's double submit (@hapi/crumb, cookie `name`), and its Origin check. Crumb refuses with Hapi's
 * 403, which the dashboard answers with `refusal` (auth.ts). Crumb acts on the sign-in routes only: the API routes
 * on the same server, and the dashboard's own in-process calls to them, carry no form.
 */
export async function registerSigninCsrf(server: Server, app: App, name: string, cookie: ServerStateCookieOptions) {
  server.ext('onPostAuth', (request: Request, h: ResponseToolkit) =>
    request.method === 'post' && isSigninForm(request) && !sameOrigin(app, request)
      ? refusal(request, h).takeover()
      : h.continue,
  );
  await server.register({
    plugin: Crumb.plugin,
    options: {
      key: name,
      autoGenerate: false,
      addToViewContext: false,
      cookieOptions: { ...cookie, ttl: SIGNIN_COOKIE_MS },
      // Signed in already, GET /signin only sends the person on: no token to hand out.
      skip: (request) => !isSigninForm(request) || (request.method === 'get' && request.auth.isAuthenticated),
    },
  });
}

/** The sign-in form's token for this request: the browser's cookie, or the one crumb set for it now. */
export function signinToken(request: Request): string {
  const crumb = (request.plugins as { crumb?: unknown }).crumb;
  return String((Array.isArray(crumb) ? crumb[0] : crumb) ?? '');
}
