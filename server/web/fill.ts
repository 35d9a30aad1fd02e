// The AI fill's page of a project (`/projects/{projectId}/fill`, docs/guides/translation.md): the style guide the
// engine is told with every batch (for the project, and per target language), the rule that holds AI values scored
// below a threshold from the publish until a person reviews them, a link to those values, and what the last fills
// cost (the engine's tokens and the credits per 1,000 strings). Data through the internal API only (internalGetProject,
// internalUpdateProject, internalGetFillUsage, internalListKeys); a reviewer reads, an owner saves (the API refuses
// a reviewer's save: 403).
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components } from '../../generated/internal.js';
import type { App } from '../infra/app.js';
import type { Session } from '../domain/users/sessions.js';
import { apiFor, type Api } from './api.js';
import { sessionOf, signedIn } from './auth.js';
import { redirectWithFlash, takeFlashes } from './flash.js';
import { apiMessage, csrfField, dataOf, timeOf } from './forms.js';
import { html, type Html } from './html.js';
import { appPage, projectPath } from './layout.js';
import { formOf, htmlReply, messagePage } from './web.js';
import { roleOf } from './project-role.js';

type Project = components['schemas']['Project'];
type Usage = Awaited<ReturnType<typeof usageOf>>;

const here = (projectId: string) => projectPath(projectId, 'fill');
/** The list's threshold a reviewer starts from (internalListKeys `aiScoreBelow`). */
const LOW = 0.7;

async function usageOf(api: Api, projectId: string) {
  return dataOf(await api.GET('/projects/{projectId}/fill/usage', { params: { path: { projectId } } }), 'fill usage');
}

interface PageState {
  project: Project;
  usage: Usage;
  low: number;
  owner: boolean;
  notice?: string;
  error?: string;
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

function costSection(u: Usage): Html {
  if (!u.fills.length) return html`<p>No fill has run yet.</p>`;
  return html`${
      u.perThousand
        ? html`<p id="per-thousand">
            Per 1,000 strings over the last ${u.fills.length} fills: ${fmt(u.perThousand.promptTokens)} prompt tokens,
            ${fmt(u.perThousand.completionTokens)} completion tokens, ${fmt(u.perThousand.requests)} engine requests,
            ${fmt(u.perThousand.credits)} credits.
          </p>`
        : ''
    }
    <table>
      <caption>
        The last fills, newest first
      </caption>
      <thead>
        <tr>
          <th scope="col">Started</th>
          <th scope="col">Status</th>
          <th scope="col">Strings</th>
          <th scope="col">Prompt tokens</th>
          <th scope="col">Completion tokens</th>
          <th scope="col">Requests</th>
          <th scope="col">Credits</th>
        </tr>
      </thead>
      <tbody>
        ${u.fills.map(
          (f) =>
            html`<tr>
              <td>${timeOf(f.createdAt)}</td>
              <td>${f.status}</td>
              <td>${f.strings}</td>
              <td>${f.promptTokens}</td>
              <td>${f.completionTokens}</td>
              <td>${f.requests}</td>
              <td>${fmt(f.chargedMc / 1000)}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

function fillPage(s: Session, projectId: string, st: PageState): string {
  const p = st.project;
  const langs = p.languages.filter((l) => !l.isBase && !l.removed).map((l) => l.code);
  const guide = p.fillInstructions;
  const disabled = st.owner ? '' : html`disabled`;
  const body = html`<h1>AI fill</h1>
    ${st.notice ? html`<p class="notice" role="status">${st.notice}</p>` : ''}
    ${st.error ? html`<p class="error" role="alert">${st.error}</p>` : ''}
    <p>
      <a id="low-scores" href="${projectPath(projectId, 'keys')}?aiScoreBelow=${LOW}"
        >${st.low} ${st.low === 1 ? 'key' : 'keys'} with AI values scored below ${LOW}</a
      >
    </p>
    <form method="post" action="${here(projectId)}">
      ${csrfField(s)}
      <h2>Style guide</h2>
      <p>
        What the engine is told with every batch, beside the terms, comments and limits of the keys: formality, tone,
        the product's voice, locale conventions.
      </p>
      <p>
        <label for="guide-project">For every language</label>
        <textarea id="guide-project" name="project" rows="5" maxlength="4000" ${disabled}>
${guide?.project ?? ''}</textarea>
      </p>
      ${langs.map(
        (l) =>
          html`<p>
            <label for="guide-${l}">For ${l}</label>
            <textarea id="guide-${l}" name="lang-${l}" rows="3" maxlength="4000" ${disabled}>
${guide?.languages?.[l] ?? ''}</textarea>
          </p>`,
      )}
      <h2>Review rule</h2>
      <p>
        <label for="review-below">Hold AI values scored below (0 to 1; empty: publish every value)</label>
        <input
          id="review-below"
          name="reviewBelow"
          type="number"
          min="0"
          max="1"
          step="0.05"
          value="${p.aiReviewBelow ?? ''}"
          ${disabled}
        />
      </p>
      ${st.owner ? html`<p><button type="submit">Save</button></p>` : html`<p>Only an owner can change these.</p>`}
    </form>
    <h2>Cost</h2>
    ${costSection(st.usage)}`;
  return appPage(s, 'AI fill', body, { projectId, section: 'fill' });
}

async function pageState(api: Api, s: Session, projectId: string): Promise<PageState | null> {
  const project = await api.GET('/projects/{projectId}', { params: { path: { projectId } } });
  if (project.response.status === 404) return null;
  const low = dataOf(
    await api.GET('/projects/{projectId}/keys', {
      params: { path: { projectId }, query: { aiScoreBelow: LOW, limit: 1 } },
    }),
    'list keys',
  ).total;
  return {
    project: dataOf(project, 'get project'),
    usage: await usageOf(api, projectId),
    low,
    owner: roleOf(s) === 'owner',
  };
}

async function fillGet(app: App, server: Hapi.Server, request: Request, h: ResponseToolkit) {
  const projectId = String(request.params.projectId);
  const session = sessionOf(request);
  const st = await pageState(apiFor(server, session), session, projectId);
  if (!st) return htmlReply(h, 404, messagePage('Project not found', 'There is no project with this id.', session));
  const notice = (await takeFlashes(app, session, here(projectId))).find((f) => f.notice)?.notice;
  return htmlReply(h, 200, fillPage(session, projectId, { ...st, notice }));
}

async function fillPost(app: App, server: Hapi.Server, request: Request, h: ResponseToolkit) {
  const projectId = String(request.params.projectId);
  const session = sessionOf(request);
  const form = formOf(request);
  const api = apiFor(server, session);
  const st = await pageState(api, session, projectId);
  if (!st) return htmlReply(h, 404, messagePage('Project not found', 'There is no project with this id.', session));
  const langs = st.project.languages.filter((l) => !l.isBase && !l.removed).map((l) => l.code);
  const languages: Record<string, string> = {};
  for (const l of langs) if (form[`lang-${l}`]?.trim()) languages[l] = form[`lang-${l}`];
  const below = (form.reviewBelow ?? '').trim();
  const reviewBelow = below === '' ? null : Number(below);
  if (reviewBelow !== null && !(reviewBelow >= 0 && reviewBelow <= 1))
    return htmlReply(
      h,
      400,
      fillPage(session, projectId, {
        ...st,
        error: 'The review threshold is a number from 0 to 1. Nothing was saved.',
      }),
    );
  const r = await api.PATCH('/projects/{projectId}', {
    params: { path: { projectId } },
    body: {
      fillInstructions: { ...(form.project?.trim() ? { project: form.project } : {}), languages },
      aiReviewBelow: reviewBelow,
    },
  });
  if (r.response.status === 403)
    return htmlReply(h, 403, messagePage('Refused', 'Only an owner can change the AI fill; nothing changed.', session));
  if (!r.data)
    return htmlReply(
      h,
      r.response.status,
      fillPage(session, projectId, { ...st, error: `${apiMessage(r.error)} Nothing was saved.` }),
    );
  return redirectWithFlash(app, h, session, here(projectId), {
    notice: 'Saved. The next fills are told the new guide.',
  });
}

export function fillRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const page = (r: Request) => here(String(r.params.projectId));
  return [
    {
      method: 'GET',
      path: '/projects/{projectId}/fill',
      options: signedIn(page),
      handler: (r, h) => fillGet(app, server, r, h),
    },
    {
      method: 'POST',
      path: '/projects/{projectId}/fill',
      options: signedIn(page),
      handler: (r, h) => fillPost(app, server, r, h),
    },
  ];
}
