// The publish page, `/projects/{projectId}/publish`: what a publish now would change against the current version,
// per language (added, changed and removed keys with their texts), the gate refusals, the export collisions and
// the format warnings (internalPreviewPublish, which builds the snapshot a publish would), then the flags of
// `PublishRequest` and a Publish button (internalPublish). Everyone may look; the button is an owner's, and the API
// refuses anyone else (403) whatever posts the form. Keys and texts are hostile input: escaped (html.ts).
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components, operations } from '../../generated/internal.js';
import type { App } from '../infra/app.js';
import { apiFor } from './api.js';
import { html, type Html } from './html.js';
import { appPage, projectPath } from './layout.js';
import { dataOf, messageOf, projectNotFound, queryText } from './projects.js';
import { redirectWithFlash } from './flash.js';
import type { Session } from '../domain/users/sessions.js';
import { formOf, htmlReply } from './web.js';
import { sessionOf, signedIn } from './auth.js';
import { roleOf } from './project-role.js';

type Preview = components['schemas']['PublishPreview'];
type LanguageDiff = components['schemas']['LanguageDiff'];
type PublishBody = NonNullable<operations['internalPublish']['requestBody']>['content']['application/json'];

const MODES = ['source', 'skip', 'hold'] as const;
type Mode = (typeof MODES)[number];
const modeOf = (v: string | undefined): Mode | undefined => MODES.find((m) => m === v);

const more = (listed: number, total: number) =>
  total > listed ? html`<p>And ${total - listed} more not listed.</p>` : '';

/** One language's differences as a table (shared with the versions page). */
export function languageDiff(d: LanguageDiff, headingLevel: 'h2' | 'h3' = 'h3'): Html {
  const title = html`${d.lang}${d.isBase ? ' (base language: sources)' : ''}`;
  const heading = headingLevel === 'h2' ? html`<h2>${title}</h2>` : html`<h3>${title}</h3>`;
  const counts = html`<p class="diff-counts">
    <span class="added">${d.addedTotal} added</span>, <span class="changed">${d.changedTotal} changed</span>,
    <span class="removed">${d.removedTotal} removed</span>
  </p>`;
  if (d.addedTotal + d.changedTotal + d.removedTotal === 0)
    return html`<div class="diff" data-lang="${d.lang}">
      ${heading}
      <p>No changes.</p>
    </div>`;
  return html`<div class="diff" data-lang="${d.lang}">
    ${heading} ${counts}
    <table>
      <thead>
        <tr>
          <th scope="col">Change</th>
          <th scope="col">Key</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        ${d.added.map(
          (x) =>
            html`<tr class="added">
              <td>added</td>
              <td class="key"><code>${x.key}</code></td>
              <td></td>
              <td class="source">${x.text}</td>
            </tr>`,
        )}
        ${d.changed.map(
          (x) =>
            html`<tr class="changed">
              <td>changed</td>
              <td class="key"><code>${x.key}</code></td>
              <td class="source">${x.old}</td>
              <td class="source">${x.new}</td>
            </tr>`,
        )}
        ${d.removed.map(
          (x) =>
            html`<tr class="removed">
              <td>removed</td>
              <td class="key"><code>${x.key}</code></td>
              <td class="source">${x.text}</td>
              <td></td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${more(d.added.length, d.addedTotal)} ${more(d.changed.length, d.changedTotal)}
    ${more(d.removed.length, d.removedTotal)}
  </div>`;
}

function listing(title: string, items: string[], total: number, cls: string): Html {
  if (total === 0) return html``;
  return html`<h3>${title} (${total})</h3>
    <ul class="${cls}">
      ${items.map((x) => html`<li class="source">${x}</li>`)}
    </ul>
    ${more(items.length, total)}`;
}

function refusals(p: Preview): Html {
  const none =
    p.icuRejectedTotal +
      p.markupRejectedTotal +
      p.collisions.length +
      p.formatWarningsTotal +
      p.pending +
      p.exhausted ===
    0;
  return html`<section aria-labelledby="checks">
    <h2 id="checks">Checks</h2>
    ${none ? html`<p class="ok">Every cell passes the gates and every file writes every message natively.</p>` : ''}
    ${
      p.pending || p.exhausted
        ? html`<p class="warn">
            ${p.pending} cells are left out or baked from the
            source${p.exhausted ? html`, ${p.exhausted} of them fill markers no job will fill` : ''}: a publish that
            requires completeness is refused.
          </p>`
        : ''
    }
    ${
      p.collisions.length
        ? html`<h3>Export collisions (a publish is refused)</h3>
            <ul class="error">
              ${p.collisions.map(
                (c) =>
                  html`<li>
                    ${c.format}: <code>${c.name}</code> from ${c.keys.map((k) => html`<code>${k}</code> `)}
                  </li>`,
              )}
            </ul>`
        : ''
    }
    ${listing('Refused by the ICU gate (left out)', p.icuRejected, p.icuRejectedTotal, 'error')}
    ${listing('Refused by the markup gate (left out)', p.markupRejected, p.markupRejectedTotal, 'error')}
    ${listing('Format warnings (written in a documented fallback)', p.formatWarnings, p.formatWarningsTotal, 'warn')}
  </section>`;
}

function previewForm(projectId: string, p: Preview, mode: Mode | undefined, approvedOnly: boolean): Html {
  return html`<form method="get" action="${projectPath(projectId, 'publish')}" class="filters">
    <div>
      <label for="preview-mode">Missing values</label>
      <select id="preview-mode" name="incompleteMode">
        <option value="" ${mode === undefined ? html`selected` : ''}>project default (${p.incompleteMode})</option>
        ${MODES.map((m) => html`<option value="${m}" ${mode === m ? html`selected` : ''}>${m}</option>`)}
      </select>
    </div>
    <div>
      <input
        type="checkbox"
        id="preview-approved"
        name="approvedOnly"
        value="true"
        ${approvedOnly ? html`checked` : ''}
      />
      <label for="preview-approved" class="inline">Approved translations only</label>
    </div>
    <div><button type="submit">Preview with these flags</button></div>
  </form>`;
}

function publishForm(s: Session, projectId: string, p: Preview, mode: Mode | undefined, approvedOnly: boolean): Html {
  if (roleOf(s) !== 'owner') return html`<p>Only an owner can publish.</p>`;
  return html`<form method="post" action="${projectPath(projectId, 'publish')}">
    <input type="hidden" name="csrf" value="${s.csrf}" />
    <label for="label">Label (optional)</label>
    <input id="label" name="label" type="text" maxlength="500" />
    <label for="incompleteMode">Missing values</label>
    <select id="incompleteMode" name="incompleteMode">
      <option value="" ${mode === undefined ? html`selected` : ''}>project default (${p.incompleteMode})</option>
      <option value="source" ${mode === 'source' ? html`selected` : ''}>source: bake the base text</option>
      <option value="skip" ${mode === 'skip' ? html`selected` : ''}>skip: leave the key out of that language</option>
      <option value="hold" ${mode === 'hold' ? html`selected` : ''}>hold (as skip)</option>
    </select>
    <label for="requiredOutputFormat">Required output format</label>
    <select id="requiredOutputFormat" name="requiredOutputFormat">
      <option value="">none</option>
      ${p.formats.map((f) => html`<option value="${f}">${f}</option>`)}
    </select>
    <fieldset>
      <legend>Flags</legend>
      <p>
        <input
          type="checkbox"
          id="approvedOnly"
          name="approvedOnly"
          value="true"
          ${approvedOnly ? html`checked` : ''}
        />
        <label for="approvedOnly" class="inline">Approved translations only</label>
      </p>
      <p>
        <input type="checkbox" id="require_complete" name="require_complete" value="true" />
        <label for="require_complete" class="inline"
          >Refuse unless complete (no missing, pending or refused cells)</label
        >
      </p>
      <p>
        <input type="checkbox" id="skipIfIdentical" name="skipIfIdentical" value="true" checked />
        <label for="skipIfIdentical" class="inline">Mint nothing if identical to the current version</label>
      </p>
    </fieldset>
    <p><button type="submit">Publish</button></p>
  </form>`;
}

function publishPage(
  s: Session,
  projectId: string,
  p: Preview,
  opts: { mode?: Mode; approvedOnly: boolean; error?: string },
): string {
  const changes = p.languages.reduce((n, d) => n + d.addedTotal + d.changedTotal + d.removedTotal, 0);
  return appPage(
    s,
    'Publish',
    html`<section>
        <h1>Publish</h1>
        ${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
        <p>
          ${
            p.currentVersion
              ? html`Compared with the current version <code>${p.currentVersion}</code>:`
              : html`Nothing is published yet: everything below would be new.`
          }
          ${p.keyCount} keys; formats ${p.formats.length ? p.formats.join(', ') : 'none (bundles only)'}; missing values
          ${p.incompleteMode}; ${p.approvedOnly ? 'approved translations only' : 'any reviewed state'}.
          ${p.identical ? html`<strong>Identical to the current version.</strong>` : html`${changes} changes.`}
        </p>
        ${previewForm(projectId, p, opts.mode, opts.approvedOnly)}
      </section>
      ${refusals(p)}
      <section aria-labelledby="changes">
        <h2 id="changes">Changes by language</h2>
        ${p.languages.map((d) => languageDiff(d))}
      </section>
      <section aria-labelledby="publish-now">
        <h2 id="publish-now">Publish now</h2>
        ${publishForm(s, projectId, p, opts.mode, opts.approvedOnly)}
      </section>`,
    { projectId, section: 'publish' },
  );
}

type Api = ReturnType<typeof apiFor>;

async function preview(api: Api, projectId: string, mode: Mode | undefined, approvedOnly: boolean) {
  return api.GET('/projects/{projectId}/publish/preview', {
    params: { path: { projectId }, query: { incompleteMode: mode, approvedOnly: approvedOnly || undefined } },
  });
}

export function publishRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const getPublish = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const session = sessionOf(request);
    const mode = modeOf(queryText(request, 'incompleteMode'));
    const approvedOnly = queryText(request, 'approvedOnly') === 'true';
    const r = await preview(apiFor(server, session), projectId, mode, approvedOnly);
    if (r.response.status === 404 || r.response.status === 400) return htmlReply(h, 404, projectNotFound(session));
    return htmlReply(h, 200, publishPage(session, projectId, dataOf(r, 'GET publish preview'), { mode, approvedOnly }));
  };

  const postPublish = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const session = sessionOf(request);
    const form = formOf(request);
    const api = apiFor(server, session);
    const mode = modeOf(form.incompleteMode);
    const approvedOnly = form.approvedOnly === 'true';
    const body: PublishBody = {
      ...(form.label ? { label: form.label } : {}),
      ...(mode ? { incompleteMode: mode } : {}),
      approvedOnly,
      require_complete: form.require_complete === 'true',
      skipIfIdentical: form.skipIfIdentical === 'true',
      ...(form.requiredOutputFormat
        ? { requiredOutputFormat: form.requiredOutputFormat as PublishBody['requiredOutputFormat'] }
        : {}),
    };
    const r = await api.POST('/projects/{projectId}/publish', { params: { path: { projectId } }, body });
    const status = r.response.status;
    if (status === 201 || status === 200) {
      const v = dataOf(r, 'POST publish');
      return redirectWithFlash(app, h, session, projectPath(projectId, 'versions'), {
        notice: v.unchanged
          ? `Nothing was published: the content is identical to version ${v.versionId}.`
          : `Published version ${v.versionId}.`,
      });
    }
    if (status === 404) return htmlReply(h, 404, projectNotFound(session));
    const error =
      status === 403
        ? 'Only an owner can publish; nothing changed.'
        : `The publish was refused: ${messageOf(r.error)} Nothing was published.`;
    const p = await preview(api, projectId, mode, approvedOnly);
    return htmlReply(
      h,
      status,
      publishPage(session, projectId, dataOf(p, 'GET publish preview'), { mode, approvedOnly, error }),
    );
  };

  const here = (r: Request) => projectPath(String(r.params.projectId), 'publish');
  return [
    { method: 'GET', path: '/projects/{projectId}/publish', options: signedIn(here), handler: getPublish },
    { method: 'POST', path: '/projects/{projectId}/publish', options: signedIn(here), handler: postPublish },
  ];
}
