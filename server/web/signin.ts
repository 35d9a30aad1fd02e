// Sign-in and sign-out (the dashboard's home page, `/`, is the projects list: projects.ts).
// The sign-in form is protected against login CSRF by a double-submit token: GET /signin sets a random value in an
// HttpOnly cookie and in the form, and POST /signin accepts only the two equal (and an Origin of this origin).
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { App } from '../infra/app.js';
import { html, page } from './html.js';
import { closeSession, newToken, openSession, SESSION_TTL_MS } from '../domain/users/sessions.js';
import {
  accountOf,
  admitAttempt,
  attemptSucceeded,
  clientOf,
  deviceOf,
  refundAttempt,
} from '../domain/users/throttle.js';
import { DEVICE_TTL_MS, deviceUser, rememberDevice } from '../domain/users/devices.js';
import { findUserByEmail, HashQueueFull, verifyPassword } from '../domain/users/users.js';
import {
  cookieNames,
  formIsOurs,
  formOf,
  htmlReply,
  messagePage,
  readCookie,
  redirect,
  safeNext,
  sessionOf,
  setCookie,
  signinUrl,
} from './web.js';

const SIGNIN_COOKIE_SECONDS = 60 * 60;
// The session cookie outlives the session (12 hours; 2 without activity) by a day, so that a browser still sends it
// once the session has ended and the sign-in page can say why the person has to sign in again. The value is worth
// nothing by then: the database decides.
const SESSION_COOKIE_SECONDS = SESSION_TTL_MS / 1000 + 24 * 60 * 60;
const SESSION_EXPIRED = 'Your session expired; sign in again.';

const waitText = (seconds: number) =>
  seconds < 120 ? `${seconds} second${seconds === 1 ? '' : 's'}` : `${Math.ceil(seconds / 60)} minutes`;

function signinPage(next: string, csrf: string, opts: { email?: string; error?: string; notice?: string } = {}) {
  return page(
    'Sign in',
    html`<section>
      <h1>Sign in</h1>
      ${opts.notice ? html`<p class="notice" role="status" id="signin-reason">${opts.notice}</p>` : ''}
      ${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
      <form method="post" action="/signin">
        <input type="hidden" name="csrf" value="${csrf}" />
        <input type="hidden" name="next" value="${next}" />
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          maxlength="254"
          value="${opts.email ?? ''}"
        />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256" />
        <p><button type="submit">Sign in</button></p>
      </form>
    </section>`,
  );
}

/** The double-submit value of this browser's sign-in form, reused while its cookie lives (several tabs agree). */
function signinToken(app: App, request: Request): { token: string; cookies: string[] } {
  const c = cookieNames(app);
  const have = readCookie(request, c.signin);
  if (have && /^[A-Za-z0-9_-]{43}$/.test(have)) return { token: have, cookies: [] };
  const token = newToken();
  return { token, cookies: [setCookie(c, c.signin, token, SIGNIN_COOKIE_SECONDS)] };
}

export function signinRoutes(app: App): ServerRoute[] {
  const names = cookieNames(app);

  const getSignin = async (request: Request, h: ResponseToolkit) => {
    const next = safeNext(request.query.next);
    if (await sessionOf(app, request)) return redirect(h, next);
    const { token, cookies } = signinToken(app, request);
    // A session cookie that names no live session: the session ended (sign-out deletes the cookie). Said once.
    const ended = readCookie(request, names.session) !== undefined;
    if (ended) cookies.push(setCookie(names, names.session, '', 0));
    return htmlReply(h, 200, signinPage(next, token, ended ? { notice: SESSION_EXPIRED } : {}), cookies);
  };

  const postSignin = async (request: Request, h: ResponseToolkit) => {
    const form = formOf(request);
    const next = safeNext(form.next);
    const expected = readCookie(request, names.signin);
    if (!formIsOurs(app, request, form, expected))
      return htmlReply(
        h,
        403,
        messagePage(
          'Refused',
          html`This form was not sent by this site's sign-in page. <a href="${signinUrl(next)}">Sign in</a>`,
        ),
      );
    const csrf = expected!;
    const email = (form.email ?? '').slice(0, 254);
    const password = (form.password ?? '').slice(0, 256);
    const { db } = app;
    const user = email ? await findUserByEmail(db, email) : undefined;
    // Throttled before any hashing. A browser that signed in before as this person (or holds their live session)
    // answers only for its own failures; any other attempt is charged to its client and to the account it names.
    const deviceToken = readCookie(request, names.device);
    const current = await sessionOf(app, request);
    const knownBy =
      user && (await deviceUser(db, deviceToken)) === user.id
        ? deviceToken
        : user && current?.user.id === user.id
          ? current.token
          : undefined;
    const subjects = knownBy ? [deviceOf(knownBy)] : [clientOf(request.info.remoteAddress), accountOf(email)];
    const admission = await admitAttempt(db, subjects);
    if (!admission.admitted) {
      const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
      const error = `Too many sign-in attempts. Try again in ${waitText(seconds)}.`;
      return htmlReply(h, 429, signinPage(next, csrf, { email, error })).header('retry-after', String(seconds));
    }
    let right: boolean;
    try {
      // An unknown email is checked against a decoy hash: the same scrypt run, so timing does not tell them apart.
      right = await verifyPassword(password, user?.password_hash);
    } catch (err) {
      if (!(err instanceof HashQueueFull)) throw err;
      await refundAttempt(db, subjects);
      const error = 'Too many sign-ins are being checked right now. Try again in a moment.';
      return htmlReply(h, 503, signinPage(next, csrf, { email, error })).header('retry-after', '1');
    }
    if (!right) return htmlReply(h, 401, signinPage(next, csrf, { email, error: 'Wrong email or password.' }));
    await attemptSucceeded(db, subjects);
    const session = await openSession(db, user!.id);
    const device = await rememberDevice(db, user!.id, deviceToken);
    return redirect(h, next, [
      setCookie(names, names.session, session.token, SESSION_COOKIE_SECONDS),
      setCookie(names, names.signin, '', 0),
      setCookie(names, names.device, device, DEVICE_TTL_MS / 1000),
    ]);
  };

  const postSignout = async (request: Request, h: ResponseToolkit) => {
    const session = await sessionOf(app, request);
    if (!session) return redirect(h, '/signin');
    if (!formIsOurs(app, request, formOf(request), session.csrf))
      return htmlReply(h, 403, messagePage('Refused', 'This form was not sent by this site.', session));
    await closeSession(app.db, session.token);
    return redirect(h, '/signin', [setCookie(names, names.session, '', 0)]);
  };

  return [
    { method: 'GET', path: '/signin', handler: getSignin },
    { method: 'POST', path: '/signin', handler: postSignin },
    { method: 'POST', path: '/signout', handler: postSignout },
  ];
}
