// Comments in the key editor (internalListKeyComments, internalAddKeyComment, internalDeleteKeyComment): threads one
// level deep under the history, a form to start one and one to reply to each, and Delete on a person's own comments
// (an owner's on any). Bodies are plain text from people, escaped like all user text (html.ts); a mention
// (`@email` of a dashboard person) is shown with the person's name. A comment may be written in any language, so
// its text and the fields take their direction from what is typed (`dir="auto"`). Posts answer 303 with a flash
// (decision 0003); a refused post shows the editor again with the text that was typed.
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components } from '../../generated/internal.js';
import type { App } from '../infra/app.js';
import type { Session } from '../domain/users/sessions.js';
import { apiFor, type Api } from './api.js';
import { redirectWithFlash } from './flash.js';
import { html, type Html } from './html.js';
import { timeOf } from './forms.js';
import { keyHref } from './layout.js';
import { messageOf } from './projects.js';
import { sessionOf, signedIn } from './auth.js';
import { formOf, htmlReply, messagePage } from './web.js';
import { roleOf } from './project-role.js';

export type KeyComment = components['schemas']['KeyComment'];

/** What a refused comment post gives back to the editor: the text typed, the thread it was for, why. */
export interface CommentDraft {
  body: string;
  parentId?: number;
  error: string;
}

/** The key's comments, or none when the API refuses them (the editor works without them). */
export async function commentsOf(api: Api, projectId: string, key: string): Promise<KeyComment[]> {
  const r = await api.GET('/projects/{projectId}/keys/{key}/comments', { params: { path: { projectId, key } } });
  return r.data?.comments ?? [];
}

/** A body with its mentions shown as the people they name. */
function bodyHtml(c: KeyComment): Html {
  if (!c.mentions.length) return html`${c.body}`;
  const byEmail = new Map(c.mentions.map((m) => [m.email.toLowerCase(), m]));
  const parts: Array<Html | string> = [];
  let at = 0;
  for (const m of c.body.matchAll(/@(\S+@\S+)/g)) {
    const email = m[1].replace(/[.,;:!?)]+$/, '');
    const person = byEmail.get(email.toLowerCase());
    if (!person) continue;
    parts.push(c.body.slice(at, m.index));
    parts.push(html`<span class="mention" title="${person.email}">@${person.name}</span>`);
    at = m.index + 1 + email.length;
  }
  parts.push(c.body.slice(at));
  return html`${parts}`;
}

function commentItem(s: Session, action: string, c: KeyComment): Html {
  const mine = c.author.userId === s.user.id || roleOf(s) === 'owner';
  return html`<article class="comment" id="comment-${c.id}" aria-labelledby="comment-${c.id}-by">
    <p class="comment-meta">
      <strong id="comment-${c.id}-by">${c.author.name ?? c.author.userId}</strong>
      ${timeOf(c.createdAt)}
    </p>
    ${c.deleted ? html`<p class="comment-deleted">(deleted)</p>` : html`<p class="comment-body" dir="auto">${bodyHtml(c)}</p>`}
    ${
      mine && !c.deleted
        ? html`<form method="post" action="${action}/${c.id}/delete" class="inline">
            <input type="hidden" name="csrf" value="${s.csrf}" />
            <button type="submit" aria-label="Delete the comment of ${c.createdAt.slice(0, 16).replace('T', ' ')} UTC">
              Delete
            </button>
          </form>`
        : ''
    }
  </article>`;
}

function commentForm(s: Session, action: string, label: string, id: string, draft?: CommentDraft, parentId?: number) {
  const mine = draft && draft.parentId === parentId;
  return html`<form method="post" action="${action}" class="comment-form">
    <input type="hidden" name="csrf" value="${s.csrf}" />
    ${parentId ? html`<input type="hidden" name="parentId" value="${parentId}" />` : ''}
    ${mine ? html`<p class="error" role="alert">${draft.error}</p>` : ''}
    <label for="${id}">${label}</label>
    <textarea id="${id}" name="body" rows="2" maxlength="2000" required dir="auto">${mine ? draft.body : ''}</textarea>
    <button type="submit">${parentId ? 'Reply' : 'Comment'}</button>
  </form>`;
}

/** The editor's comments section: threads in the order started, each with its replies and a reply form. */
export function commentsSection(
  s: Session,
  projectId: string,
  keyRef: string,
  comments: KeyComment[],
  draft?: CommentDraft,
): Html {
  const action = `${keyHref(projectId, keyRef)}/comments`;
  const threads = comments.filter((c) => c.parentId === null);
  const replies = (id: number) => comments.filter((c) => c.parentId === id);
  return html`<section class="comments" aria-labelledby="comments-h">
    <h2 id="comments-h">Comments</h2>
    <p class="hint">Mention someone with @ and their email (@ana@example.com).</p>
    ${threads.length ? '' : html`<p>No comments yet.</p>`}
    ${threads.map(
      (t) =>
        html`<div class="thread">
          ${commentItem(s, action, t)}
          <div class="replies">
            ${replies(t.id).map((r) => commentItem(s, action, r))}
            <details ${draft?.parentId === t.id ? 'open' : ''}>
              <summary>Reply</summary>
              ${commentForm(s, action, 'Your reply', `reply-${t.id}`, draft, t.id)}
            </details>
          </div>
        </div>`,
    )}
    ${commentForm(s, action, 'New comment', 'comment-new', draft)}
  </section>`;
}

/**
 * The comment posts. `again` draws the editor with a refused draft (keys.ts owns the editor page), or undefined
 * when the key is gone.
 */
export function commentRoutes(
  app: App,
  server: Hapi.Server,
  again: (session: Session, projectId: string, key: string, draft: CommentDraft) => Promise<string | undefined>,
): ServerRoute[] {
  const add = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const key = String(request.params.key);
    const session = sessionOf(request);
    const form = formOf(request);
    const body = typeof form.body === 'string' ? form.body.replace(/\r\n?/g, '\n') : '';
    const parentId = /^[1-9]\d{0,9}$/.test(form.parentId ?? '') ? Number(form.parentId) : undefined;
    const refuse = async (status: number, error: string) => {
      const page = await again(session, projectId, key, { body, parentId, error });
      return page
        ? htmlReply(h, status, page)
        : htmlReply(h, 404, messagePage('Key not found', 'There is no key of this name.', session));
    };
    if (!body.trim()) return refuse(400, 'A comment cannot be empty; nothing was added.');
    const r = await apiFor(server, session).POST('/projects/{projectId}/keys/{key}/comments', {
      params: { path: { projectId, key } },
      body: { body, ...(parentId ? { parentId } : {}) },
    });
    if (!r.data) return refuse(r.response.status, `${messageOf(r.error)} Nothing was added.`);
    return redirectWithFlash(app, h, session, keyHref(projectId, key), {
      notice: r.data.mentions.length
        ? `Comment added; it mentions ${r.data.mentions.map((m) => m.name).join(', ')}.`
        : 'Comment added.',
    });
  };

  const remove = async (request: Request, h: ResponseToolkit) => {
    const projectId = String(request.params.projectId);
    const key = String(request.params.key);
    const session = sessionOf(request);
    const commentId = Number(request.params.commentId);
    if (!Number.isSafeInteger(commentId) || commentId < 1)
      return htmlReply(h, 404, messagePage('Comment not found', 'There is no such comment.', session));
    const r = await apiFor(server, session).DELETE('/projects/{projectId}/keys/{key}/comments/{commentId}', {
      params: { path: { projectId, key, commentId } },
    });
    if (!r.response.ok)
      return htmlReply(
        h,
        r.response.status,
        messagePage('Not deleted', `${messageOf(r.error)} Nothing changed.`, session),
      );
    return redirectWithFlash(app, h, session, keyHref(projectId, key), { notice: 'Comment deleted.' });
  };

  const editor = (r: Request) => keyHref(String(r.params.projectId), String(r.params.key));
  return [
    {
      method: 'POST',
      path: '/projects/{projectId}/keys/{key}/comments',
      options: signedIn(editor),
      handler: add,
    },
    {
      method: 'POST',
      path: '/projects/{projectId}/keys/{key}/comments/{commentId}/delete',
      options: signedIn(editor),
      handler: remove,
    },
  ];
}
