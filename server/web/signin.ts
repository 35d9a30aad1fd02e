// Sign-in and sign-out (the dashboard's home page, `/`, is the projects list: projects.ts).
// The sign-in form is protected against login CSRF by a double-submit token (csrf.ts), checked before the handler.
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { App } from '../infra/app.js';
import { html, page } from './html.js';
import { closeSession, openSession } from '../domain/users/sessions.js';
import {
  accountOf,
  admitAttempt,
  attemptSucceeded,
  clientOf,
  deviceOf,
  refundAttempt,
} from '../domain/users/throttle.js';
import { deviceUser, rememberDevice } from '../domain/users/devices.js';
import { findUserByEmail, HashQueueFull, verifyPassword } from '../domain/users/users.js';
import { cookieNames, cookieOf, maybeSessionOf } from './auth.js';
import { SIGNIN_FORM, signinToken } from './csrf.js';
import { formOf, htmlReply, messagePage, redirect, safeNext, signinUrl } from './web.js';

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

export function signinRoutes(app: App): ServerRoute[] {
  const names = cookieNames(app);

  const getSignin = (request: Request, h: ResponseToolkit) => {
    const next = safeNext(request.query.next);
    if (request.auth.isAuthenticated) return redirect(h, next);
    // A session cookie that names no live session: the session ended (sign-out deletes the cookie). Said once.
    const ended = cookieOf(request, names.session) !== undefined;
    if (ended) h.unstate(names.session);
    return htmlReply(h, 200, signinPage(next, signinToken(request), ended ? { notice: SESSION_EXPIRED } : {}));
  };

  const postSignin = async (request: Request, h: ResponseToolkit) => {
    const form = formOf(request);
    const next = safeNext(form.next);
    const csrf = signinToken(request);
    const email = (form.email ?? '').slice(0, 254);
    const password = (form.password ?? '').slice(0, 256);
    const { db } = app;
    const user = email ? await findUserByEmail(db, email) : undefined;
    // Throttled before any hashing. A browser that signed in before as this person (or holds their live session)
    // answers only for its own failures; any other attempt is charged to its client and to the account it names.
    const deviceToken = cookieOf(request, names.device);
    const current = maybeSessionOf(request);
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
      right = await verifyPassword(password, user?.password_hash, app.config.passwordScryptN);
    } catch (err) {
      if (!(err instanceof HashQueueFull)) throw err;
      await refundAttempt(db, subjects);
      const error = 'Too many sign-ins are being checked right now. Try again in a moment.';
      return htmlReply(h, 503, signinPage(next, csrf, { email, error })).header('retry-after', '1');
    }
    if (!right) return htmlReply(h, 401, signinPage(next, csrf, { email, error: 'Wrong email or password.' }));
    await attemptSucceeded(db, subjects);
    // Told only to someone who knows the password: a deactivated person learns why they cannot sign in.
    if (user!.deactivated_at !== null)
      return htmlReply(
        h,
        403,
        signinPage(next, csrf, { email, error: 'This account is deactivated; ask an owner to reactivate it.' }),
      );
    const session = await openSession(db, user!.id);
    const device = await rememberDevice(db, user!.id, deviceToken);
    h.state(names.session, session.token);
    h.unstate(names.signin);
    h.state(names.device, device);
    return redirect(h, next);
  };

  // Without a session there is nothing to end (and no token to check): the sign-in page.
  const postSignout = async (request: Request, h: ResponseToolkit) => {
    const session = maybeSessionOf(request);
    if (!session) return redirect(h, '/signin');
    await closeSession(app.db, session.token);
    h.unstate(names.session);
    return redirect(h, '/signin');
  };

  // Anyone may ask for these: a session, when there is one, is read but not required.
  const anyone = { strategy: 'session', mode: 'try' } as const;
  const signinRefused = (request: Request) =>
    messagePage(
      'Refused',
      html`This form was not sent by this site's sign-in page.
        <a href="${signinUrl(safeNext(formOf(request).next))}">Sign in</a>`,
    );
  return [
    { method: 'GET', path: '/signin', options: { auth: anyone, plugins: SIGNIN_FORM }, handler: getSignin },
    {
      method: 'POST',
      path: '/signin',
      options: { auth: anyone, plugins: { ...SIGNIN_FORM, dashboard: { refused: signinRefused } } },
      handler: postSignin,
    },
    {
      method: 'POST',
      path: '/signout',
      options: {
        auth: anyone,
        plugins: {
          dashboard: { refused: (_, s) => messagePage('Refused', 'This form was not sent by this site.', s) },
        },
      },
      handler: postSignout,
    },
  ];
}
