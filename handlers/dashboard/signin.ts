// Sign-in and sign-out (the dashboard's home page, `/`, is the projects list: projects.ts).
// The sign-in form is protected against login CSRF by a double-submit token: GET /signin sets a random value in an
// HttpOnly cookie and in the form, and POST /signin accepts only the two equal (and an Origin of this origin).
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { App } from '../platform/app.js';
import { html, page } from './html.js';
import {
  clearSigninFailures,
  closeSession,
  newToken,
  openSession,
  recordSigninFailure,
  SESSION_TTL_MS,
  signinLocked,
} from './sessions.js';
import { findUserByEmail, verifyPassword } from './users.js';
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

function signinPage(next: string, csrf: string, opts: { email?: string; error?: string } = {}) {
  return page(
    'Sign in',
    html`<section>
      <h1>Sign in</h1>
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
    return htmlReply(h, 200, signinPage(next, token), cookies);
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
    if (await signinLocked(db, email))
      return htmlReply(
        h,
        429,
        signinPage(next, csrf, { email, error: 'Too many failed attempts for this email. Try again in 15 minutes.' }),
      );
    const user = email ? await findUserByEmail(db, email) : undefined;
    // An unknown email is checked against a decoy hash: the same scrypt run, so timing does not tell them apart.
    if (!(await verifyPassword(password, user?.password_hash))) {
      await recordSigninFailure(db, email);
      return htmlReply(h, 401, signinPage(next, csrf, { email, error: 'Wrong email or password.' }));
    }
    await clearSigninFailures(db, email);
    const session = await openSession(db, user!.id);
    return redirect(h, next, [
      setCookie(names, names.session, session.token, SESSION_TTL_MS / 1000),
      setCookie(names, names.signin, '', 0),
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
