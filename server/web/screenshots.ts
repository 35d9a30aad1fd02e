// Screenshots in the key editor (internalListKeyScreenshots, internalAddKeyScreenshot, internalGetKeyScreenshot,
// internalDeleteKeyScreenshot): each image drawn in an SVG with the key's region outlined over it (SVG geometry, not
// a style attribute, which the pages' Content-Security-Policy refuses), an upload form with the region in pixels
// (numbers, so the keyboard marks it as well as a mouse), and Remove on a person's own (an owner's on any). The
// image is served from the dashboard's origin through the internal route, which answers only the PNG, JPEG and WebP
// it checked on upload, with `nosniff`. A refused upload shows the editor again with the reason.
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components } from '../../generated/internal.js';
import type { App } from '../infra/app.js';
import type { Session } from '../domain/users/sessions.js';
import { apiFor, type Api } from './api.js';
import { redirectWithFlash } from './flash.js';
import { csrfField, timeOf } from './forms.js';
import { html, type Html } from './html.js';
import { keyHref } from './layout.js';
import { messageOf } from './projects.js';
import { sessionOf, signedIn } from './auth.js';
import { htmlReply, messagePage } from './web.js';
import { roleOf } from './project-role.js';

export type KeyScreenshot = components['schemas']['KeyScreenshot'];

/** The upload's body at most: the internal route's image limit (2 MiB) and the form's other fields. */
const UPLOAD_BYTES = 2 * 1024 * 1024 + 64 * 1024;
const REGION = ['x', 'y', 'width', 'height'] as const;

/** The key's screenshots, or none when the API refuses them (the editor works without them). */
export async function screenshotsOf(api: Api, projectId: string, key: string): Promise<KeyScreenshot[]> {
  const r = await api.GET('/projects/{projectId}/keys/{key}/screenshots', { params: { path: { projectId, key } } });
  return r.data?.screenshots ?? [];
}

function figure(s: Session, base: string, shot: KeyScreenshot, n: number): Html {
  const r = shot.region;
  const label = `Screenshot ${n}${r ? `, the key's text outlined at ${r.x},${r.y}, ${r.width}×${r.height} pixels` : ''}`;
  const mine = shot.addedBy === s.user.id || roleOf(s) === 'owner';
  return html`<figure class="screenshot">
    <svg
      role="img"
      aria-label="${label}"
      viewBox="0 0 ${shot.width} ${shot.height}"
      preserveAspectRatio="xMinYMin meet"
    >
      <image href="${base}/${shot.id}" width="${shot.width}" height="${shot.height}" />
      ${r ? html`<rect class="region" x="${r.x}" y="${r.y}" width="${r.width}" height="${r.height}" />` : ''}
    </svg>
    <figcaption>
      ${shot.width}×${shot.height}, added ${timeOf(shot.createdAt)}${r ? '' : ' (no region marked)'}
      ${
        mine
          ? html`<form method="post" action="${base}/${shot.id}/delete" class="inline">
              ${csrfField(s)}
              <button type="submit" aria-label="Remove screenshot ${n}">Remove</button>
            </form>`
          : ''
      }
    </figcaption>
  </figure>`;
}

/** The editor's screenshots section: the images with their regions, and the upload form. */
export function screenshotsSection(
  s: Session,
  projectId: string,
  keyRef: string,
  shots: KeyScreenshot[],
  error?: string,
): Html {
  const base = `${keyHref(projectId, keyRef)}/screenshots`;
  return html`<section class="screenshots" aria-labelledby="screenshots-h">
    <h2 id="screenshots-h">Screenshots</h2>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    ${shots.length ? shots.map((shot, i) => figure(s, base, shot, i + 1)) : html`<p>No screenshots yet.</p>`}
    ${
      roleOf(s) === 'translator'
        ? ''
        : shots.length < 10
          ? html`<form method="post" action="${base}" enctype="multipart/form-data">
              ${csrfField(s)}
              <label for="shot-file">Screenshot (PNG, JPEG or WebP, at most 2 MiB)</label>
              <input id="shot-file" name="image" type="file" accept="image/png,image/jpeg,image/webp" required />
              <fieldset>
                <legend>Where the key's text is, in the image's pixels (optional)</legend>
                ${REGION.map(
                  (f) =>
                    html`<label for="shot-${f}">${f}</label>
                      <input
                        id="shot-${f}"
                        name="${f}"
                        type="number"
                        min="${f === 'x' || f === 'y' ? 0 : 1}"
                        max="8000"
                      />`,
                )}
              </fieldset>
              <button type="submit">Add screenshot</button>
            </form>`
          : html`<p class="hint">A key takes at most 10 screenshots.</p>`
    }
  </section>`;
}

/**
 * The screenshot routes. `again` draws the editor with an upload's refusal (keys.ts owns the editor page), or
 * undefined when the key is gone.
 */
export function screenshotRoutes(
  app: App,
  server: Hapi.Server,
  again: (session: Session, projectId: string, key: string, error: string) => Promise<string | undefined>,
): ServerRoute[] {
  const image = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const key = String(request.params.key);
    const session = sessionOf(request);
    const screenshotId = Number(request.params.screenshotId);
    const missing = () => htmlReply(h, 404, messagePage('Not found', 'There is no such screenshot.', session));
    if (!Number.isSafeInteger(screenshotId) || screenshotId < 1) return missing();
    const r = await apiFor(server, session).GET('/projects/{projectId}/keys/{key}/screenshots/{screenshotId}', {
      params: { path: { projectId, key, screenshotId } },
      parseAs: 'arrayBuffer',
    });
    if (!r.response.ok) return missing();
    // Answered with the internal route's own headers: its type, nosniff, sandbox and caching.
    const reply = h.response(Buffer.from(r.data as ArrayBuffer));
    for (const name of ['content-type', 'x-content-type-options', 'content-security-policy', 'cache-control']) {
      const value = r.response.headers.get(name);
      if (value) reply.header(name, value);
    }
    return reply;
  };

  const add = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const key = String(request.params.key);
    const session = sessionOf(request);
    const payload = (request.payload ?? {}) as Record<string, unknown>;
    const refuse = async (status: number, error: string) => {
      const page = await again(session, projectId, key, error);
      return page
        ? htmlReply(h, status, page)
        : htmlReply(h, 404, messagePage('Key not found', 'There is no key of this name.', session));
    };
    const file = payload.image;
    const data = Buffer.isBuffer(file) ? file : typeof file === 'string' ? Buffer.from(file) : undefined;
    if (!data?.length) return refuse(400, 'Choose an image file; nothing was added.');
    const fields = REGION.map((f) => (typeof payload[f] === 'string' ? payload[f].trim() : ''));
    let region: { x: number; y: number; width: number; height: number } | undefined;
    if (fields.some((v) => v !== '')) {
      if (!fields.every((v) => /^\d{1,4}$/.test(v)))
        return refuse(400, 'A region needs x, y, width and height, each a whole number of pixels; nothing was added.');
      const [x, y, width, height] = fields.map(Number);
      region = { x, y, width, height };
    }
    const r = await apiFor(server, session).POST('/projects/{projectId}/keys/{key}/screenshots', {
      params: { path: { projectId, key } },
      body: { image: data.toString('base64'), ...(region ? { region } : {}) },
    });
    if (!r.data) return refuse(r.response.status, `${messageOf(r.error)} Nothing was added.`);
    return redirectWithFlash(app, h, session, keyHref(projectId, key), { notice: 'Screenshot added.' });
  };

  const remove = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const key = String(request.params.key);
    const session = sessionOf(request);
    const screenshotId = Number(request.params.screenshotId);
    if (!Number.isSafeInteger(screenshotId) || screenshotId < 1)
      return htmlReply(h, 404, messagePage('Not found', 'There is no such screenshot.', session));
    const r = await apiFor(server, session).DELETE('/projects/{projectId}/keys/{key}/screenshots/{screenshotId}', {
      params: { path: { projectId, key, screenshotId } },
    });
    if (!r.response.ok)
      return htmlReply(
        h,
        r.response.status,
        messagePage('Not removed', `${messageOf(r.error)} Nothing changed.`, session),
      );
    return redirectWithFlash(app, h, session, keyHref(projectId, key), { notice: 'Screenshot removed.' });
  };

  const editor = (r: Request) => keyHref(String(r.params.projectId), String(r.params.key));
  return [
    {
      method: 'GET',
      path: '/projects/{projectId}/keys/{key}/screenshots/{screenshotId}',
      options: signedIn(editor),
      handler: image,
    },
    {
      method: 'POST',
      path: '/projects/{projectId}/keys/{key}/screenshots',
      options: {
        ...signedIn(editor),
        payload: { allow: 'multipart/form-data', multipart: { output: 'data' }, maxBytes: UPLOAD_BYTES },
      },
      handler: add,
    },
    {
      method: 'POST',
      path: '/projects/{projectId}/keys/{key}/screenshots/{screenshotId}/delete',
      options: signedIn(editor),
      handler: remove,
    },
  ];
}
