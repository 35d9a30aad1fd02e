// The key editor's machine suggestion (internalSuggestTranslation), for owners, who decide what the engine costs:
// "Suggest with the engine…" asks first what it would cost (the dry run: the pair's credits and the balance), the
// confirmation asks the engine, and the answer comes back on the editor beside the cell's field through a one-time
// flash (post/redirect/get: a reload asks, and pays, nothing again). Nothing is saved: Use puts the suggestion in the
// field as a memory match's Use does, and the person saves it or not.
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { App } from '../infra/app.js';
import type { Session } from '../domain/users/sessions.js';
import { apiFor } from './api.js';
import { langAttrs } from './direction.js';
import { redirectWithFlash, type EngineSuggestion } from './flash.js';
import { csrfField } from './forms.js';
import { html, type Html } from './html.js';
import { keyHref } from './layout.js';
import { messageOf } from './projects.js';
import { sessionOf, signedIn } from './auth.js';
import { credits, formOf, htmlReply, messagePage } from './web.js';
import { roleOf } from './project-role.js';

/** What the editor shows of a suggestion for one cell: its estimate to confirm, or the engine's answer. */
export type Asked = { kind: 'estimate'; answer: EngineSuggestion } | { kind: 'result'; answer: EngineSuggestion };

/** The fields a Use form carries to the editor's Check (keys.ts): the cell's status and base as the page has them. */
interface CellForm {
  lang: string;
  status: string;
  base: string;
}

/** The cell's machine-suggestion panel: the button, the estimate to confirm, or the suggestion with Use. */
export function suggestPanel(s: Session, projectId: string, keyRef: string, cell: CellForm, asked?: Asked): Html {
  if (roleOf(s) !== 'owner') return html``;
  const action = `${keyHref(projectId, keyRef)}/suggestion`;
  const id = `suggest-${cell.lang}`;
  const ask = (label: string, confirm: boolean) =>
    html`<form method="post" action="${action}" class="inline">
      ${csrfField(s)}
      <input type="hidden" name="lang" value="${cell.lang}" />
      ${confirm ? html`<input type="hidden" name="confirm" value="yes" />` : ''}
      <button type="submit">${label}</button>
    </form>`;
  if (asked?.kind === 'estimate')
    return html`<div class="engine-suggestion" id="${id}">
      <p id="${id}-estimate">
        A suggestion for ${cell.lang} costs <strong>${credits(asked.answer.estimatedCredits)} credits</strong>
        (available: ${credits(asked.answer.balance ?? 0)}); it is shown here and nothing is saved.
      </p>
      ${ask('Get the suggestion', true)} <a href="${keyHref(projectId, keyRef)}">Cancel</a>
    </div>`;
  if (asked?.kind === 'result') {
    const a = asked.answer;
    if (a.value === undefined)
      return html`<div class="engine-suggestion" id="${id}">
        <p class="warn">No suggestion: ${a.problem ?? 'the engine gave none'}. Nothing was charged.</p>
        ${ask('Suggest with the engine…', false)}
      </div>`;
    return html`<div class="engine-suggestion" id="${id}">
      <h3>Engine suggestion</h3>
      <p class="suggested" id="${id}-value" ${langAttrs(cell.lang)}>${a.value}</p>
      <p class="hint">
        Score ${Math.round((a.score ?? 0) * 100)}%${a.reason ? `: ${a.reason}` : ''}; ${credits(a.chargedCredits)}
        credits. Use puts it in the field; nothing is saved until you save.
      </p>
      <form method="post" action="${keyHref(projectId, keyRef)}" class="inline">
        ${csrfField(s)}
        <input type="hidden" name="lang" value="${cell.lang}" />
        <input type="hidden" name="base" value="${cell.base}" />
        <input type="hidden" name="status" value="${cell.status}" />
        <input type="hidden" name="value" value="${a.value}" />
        <button type="submit" name="do" value="check" data-use="cell-${cell.lang}-value">Use the suggestion</button>
      </form>
    </div>`;
  }
  return html`<div class="engine-suggestion" id="${id}">${ask('Suggest with the engine…', false)}</div>`;
}

/**
 * The suggestion post. `again` draws the editor with the estimate in the cell (keys.ts owns the editor page), or
 * undefined when the key is gone.
 */
export function suggestRoutes(
  app: App,
  server: Hapi.Server,
  again: (session: Session, projectId: string, key: string, asked: Asked) => Promise<string | undefined>,
): ServerRoute[] {
  const suggest = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const key = String(request.params.key);
    const session = sessionOf(request);
    const form = formOf(request);
    const lang = /^[A-Za-z0-9_-]{1,35}$/.test(form.lang ?? '') ? form.lang : '';
    const refused = (status: number, message: string) =>
      htmlReply(h, status, messagePage('No suggestion', message, session));
    if (!lang) return refused(400, 'Choose a language; nothing was asked.');
    const dryRun = form.confirm !== 'yes';
    const r = await apiFor(server, session).POST('/projects/{projectId}/keys/{key}/translations/{lang}/suggestion', {
      params: { path: { projectId, key, lang } },
      body: { dryRun },
    });
    if (r.response.status === 403)
      return refused(403, 'Only an owner can spend credits on the engine; nothing was asked.');
    if (!r.data) return refused(r.response.status, `${messageOf(r.error)} Nothing was asked.`);
    if (dryRun) {
      const page = await again(session, projectId, key, { kind: 'estimate', answer: r.data });
      return page ? htmlReply(h, 200, page) : refused(404, 'There is no key of this name.');
    }
    return redirectWithFlash(app, h, session, keyHref(projectId, key), {
      suggestion: r.data,
      notice: r.data.value !== undefined ? `The engine suggests a ${lang} translation; nothing is saved.` : undefined,
    });
  };
  return [
    {
      method: 'POST',
      path: '/projects/{projectId}/keys/{key}/suggestion',
      options: signedIn((r) => keyHref(String(r.params.projectId), String(r.params.key))),
      handler: suggest,
    },
  ];
}
