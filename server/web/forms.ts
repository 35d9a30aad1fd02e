// What the API keys, webhooks, users and content pages share: the CSRF field of their forms (checked before any
// handler runs: auth.ts), the messages of the internal API's refusals, and a secret shown once.
import { html, type Html } from './html.js';
import type { Session } from '../domain/users/sessions.js';
import { messagePage } from './web.js';

/** The hidden CSRF field every form carries. */
export const csrfField = (s: Session): Html => html`<input type="hidden" name="csrf" value="${s.csrf}" />`;

/** The message of an internal API error answer (`{error, message}`). */
export const apiMessage = (error: unknown): string =>
  error && typeof error === 'object' && 'message' in error ? String(error.message) : '';

/** An internal API answer's data, or an error naming the call (a 500 page) for an answer the page does not expect. */
export function dataOf<T>(r: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (r.data === undefined) throw new Error(`internal API ${what}: ${r.response.status} ${JSON.stringify(r.error)}`);
  return r.data;
}

export const timeOf = (iso: string | null | undefined, never = 'never'): Html | string =>
  iso ? html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>` : never;

/** The page of an owner-only section for anyone else: what they may not do, and nothing to click. */
export const ownersOnly = (s: Session, what: string) =>
  messagePage('Owners only', `Only an owner can ${what}. Ask an owner of this dashboard.`, s);

/** A secret shown once, from the one-time flash of the post that made it (flash.ts), with a copy button (dashboard.js data-copy). */
export function secretOnce(label: string, secret: string): Html {
  return html`<section class="secret" aria-labelledby="secret-title">
    <h2 id="secret-title">${label}</h2>
    <p>Copy it now: it is shown only this once and cannot be read again.</p>
    <p><code id="new-secret" class="mono">${secret}</code></p>
    <button type="button" data-copy="new-secret">Copy</button>
  </section>`;
}
