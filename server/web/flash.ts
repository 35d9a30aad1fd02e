// What a form post did, told on the page its redirect shows (post/redirect/get): every post that writes answers 303
// to a GET, so reloading that page repeats nothing, and what the page says comes from here, never from its URL (a
// link could carry any text). A flash is a row of `dashboard_flashes` (migration 017):
// - tied to the session (by the SHA-256 the session table keys by) and to the path that shows it, so another tab of
//   the same person does not show it on another page;
// - sealed with AES-256-GCM under a key derived from the session token, which the database never holds: a secret
//   shown once (a new API key, a webhook's signing secret) rests there only sealed, for the moment between the post
//   and the page;
// - taken once: the read deletes each row by id and shows only the rows its own delete removed, so two concurrent
//   reads of the page show it once between them;
// - kept at most FLASH_TTL_MS: a redirect nobody followed leaves nothing readable behind for long.
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import type { ResponseObject, ResponseToolkit } from '@hapi/hapi';
import type { components, operations } from '../../generated/internal.js';
import type { App } from '../infra/app.js';
import { secretOnce } from './forms.js';
import { html, type Html } from './html.js';
import type { Session } from '../domain/users/sessions.js';
import { redirect } from './web.js';

const FLASH_TTL_MS = 10 * 60_000;

export interface Flash {
  /** What happened, shown as a status notice. */
  notice?: string;
  /** A secret shown once (forms.ts secretOnce). */
  secret?: { label: string; value: string };
  /** A content publish's per-document outcome (content.ts). */
  contentPublish?: components['schemas']['ContentPublishResult'];
  /** The engine's suggestion for a cell, shown beside its field and never stored (keys.ts). */
  suggestion?: EngineSuggestion;
}

/** internalSuggestTranslation's answer. */
export type EngineSuggestion =
  operations['internalSuggestTranslation']['responses']['200']['content']['application/json'];

const TABLE = 'dashboard_flashes';
const sessionHash = (s: Session) => createHash('sha256').update(s.token).digest('hex');
const keyOf = (s: Session) => createHmac('sha256', s.token).update('flash').digest();

function seal(s: Session, flash: Flash): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', keyOf(s), iv);
  const body = Buffer.concat([c.update(JSON.stringify(flash), 'utf8'), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64url');
}

function open(s: Session, sealed: string): Flash | undefined {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const d = createDecipheriv('aes-256-gcm', keyOf(s), raw.subarray(0, 12));
    d.setAuthTag(raw.subarray(12, 28));
    return JSON.parse(Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8')) as Flash;
  } catch {
    return undefined;
  }
}

/** The path a location shows (no query, no fragment): where its flash is taken. */
const pathOf = (location: string) => new URL(location, 'http://dashboard.invalid').pathname;

/** Keeps `flash` for the next GET of `location`'s path in this session. */
async function putFlash(app: App, s: Session, location: string, flash: Flash, now = Date.now()): Promise<void> {
  // Flashes nobody took go with the next one anyone puts.
  await app
    .db(TABLE)
    .where('created_at', '<', now - FLASH_TTL_MS)
    .delete();
  await app
    .db(TABLE)
    .insert({ session_hash: sessionHash(s), path: pathOf(location), sealed: seal(s, flash), created_at: now });
}

/** The post's answer: `flash` kept for `location`, then 303 to it. */
export async function redirectWithFlash(
  app: App,
  h: ResponseToolkit,
  s: Session,
  location: string,
  flash: Flash,
): Promise<ResponseObject> {
  await putFlash(app, s, location, flash);
  return redirect(h, location);
}

/** The flashes kept for `path` in this session, oldest first, each returned to one read only. */
export async function takeFlashes(app: App, s: Session, path: string, now = Date.now()): Promise<Flash[]> {
  const rows = await app
    .db(TABLE)
    .where({ session_hash: sessionHash(s), path: pathOf(path) })
    .andWhere('created_at', '>=', now - FLASH_TTL_MS)
    .orderBy('id')
    .select<Array<{ id: number | string; sealed: string }>>('id', 'sealed');
  const out: Flash[] = [];
  for (const row of rows) {
    // The delete decides who shows it: a concurrent read of the same page removes nothing and shows nothing.
    if ((await app.db(TABLE).where({ id: row.id }).delete()) !== 1) continue;
    const flash = open(s, row.sealed);
    if (flash) out.push(flash);
  }
  return out;
}

/** The notices and secrets of `flashes` (the content publish table is the content page's own). */
export function flashHtml(flashes: Flash[]): Html {
  return html`${flashes.map(
    (f) =>
      html`${f.notice ? html`<p class="ok" role="status">${f.notice}</p>` : ''}${
        f.secret ? secretOnce(f.secret.label, f.secret.value) : ''
      }`,
  )}`;
}
