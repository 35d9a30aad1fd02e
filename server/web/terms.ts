// The termbase pages (owners and reviewers): `/projects/{projectId}/terms` lists the terms the project uses (its own
// and its workspace's), filtered by text, language and scope, a page at a time, and adds one;
// `/projects/{projectId}/terms/{termId}` edits one; `…/{termId}/delete` asks before deleting. Every post answers
// 303 to a page with a one-time flash (flash.ts); a refusal shows the form again with what was typed. Data from the
// internal API only (internal*Term*: the public termbase rules). `sourceTerms` is the key editor's highlight
// (keys.ts): the source with its terms marked and the translations they require listed under it.
import type Hapi from '@hapi/hapi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { components } from '../../generated/internal.js';
import type { App } from '../infra/app.js';
import { apiFor, type Api } from './api.js';
import { flashHtml, redirectWithFlash, takeFlashes, type Flash } from './flash.js';
import { apiMessage, csrfField, dataOf } from './forms.js';
import { html, type Html } from './html.js';
import { appPage, projectPath } from './layout.js';
import type { Session } from '../domain/users/sessions.js';
import { formOf, htmlReply, messagePage } from './web.js';
import { sessionOf, signedIn } from './auth.js';

type Term = components['schemas']['Term'];
type PartOfSpeech = components['schemas']['PartOfSpeech'];
type Project = components['schemas']['Project'];

const section = 'terms';
const PAGE = 50;
const PARTS: PartOfSpeech[] = [
  'noun',
  'proper noun',
  'verb',
  'adjective',
  'adverb',
  'pronoun',
  'numeral',
  'determiner',
  'adposition',
  'auxiliary',
  'coordinating conjunction',
  'subordinating conjunction',
  'particle',
  'interjection',
  'other',
];
const FLAGS = [
  { field: 'forbidden', label: 'Forbidden: its translations are never to be used' },
  { field: 'nonTranslatable', label: 'Not translated: a name kept as it is (brand, product)' },
  { field: 'caseSensitive', label: 'Case-sensitive' },
  { field: 'abbreviation', label: 'Abbreviation: its exact words only' },
] as const;

const termPath = (projectId: string, termId: string, rest = '') =>
  projectPath(projectId, `${section}/${encodeURIComponent(termId)}${rest}`);

type PageAnswer = { status: number; body: string };

async function projectOf(api: Api, s: Session, projectId: string): Promise<Project | PageAnswer> {
  const r = await api.GET('/projects/{projectId}', { params: { path: { projectId } } });
  if (r.response.status === 404)
    return { status: 404, body: messagePage('Project not found', 'There is no project with this id.', s) };
  return dataOf(r, 'get project');
}

const targetsOf = (p: Project) => p.languages.filter((l) => !l.isBase && !l.removed).map((l) => l.code);

/** What a term form posts, as the internal API takes it; the form's own translation fields are `tr_<lang>`. */
function bodyOf(form: Record<string, string>) {
  const translations: Record<string, string> = {};
  for (const [k, v] of Object.entries(form)) if (k.startsWith('tr_') && v.trim()) translations[k.slice(3)] = v.trim();
  const part = PARTS.find((p) => p === form.partOfSpeech) ?? null;
  return {
    text: (form.text ?? '').trim(),
    description: form.description?.trim() || null,
    partOfSpeech: part,
    forbidden: form.forbidden === 'on',
    nonTranslatable: form.nonTranslatable === 'on',
    caseSensitive: form.caseSensitive === 'on',
    abbreviation: form.abbreviation === 'on',
    translations,
  };
}

/** The fields of a term's form (add and edit), filled from `term` or from what was posted. */
function termFields(prefix: string, langs: string[], term?: Partial<Term>, form?: Record<string, string>): Html {
  const v = form ? bodyOf(form) : undefined;
  const text = v?.text ?? term?.text ?? '';
  const description = v ? (v.description ?? '') : (term?.description ?? '');
  const part = v ? v.partOfSpeech : term?.partOfSpeech;
  const translations = v?.translations ?? term?.translations ?? {};
  const flag = (f: (typeof FLAGS)[number]['field']) => (v ? v[f] : Boolean(term?.[f]));
  const id = (name: string) => `${prefix}-${name}`;
  return html`<p>
      <label for="${id('text')}">Term</label>
      <input id="${id('text')}" name="text" required maxlength="255" value="${text}" />
    </p>
    <p>
      <label for="${id('description')}">Meaning (which sense: a user's account, not a bank account)</label>
      <input id="${id('description')}" name="description" maxlength="1000" size="60" value="${description}" />
    </p>
    <p>
      <label for="${id('pos')}">Part of speech</label>
      <select id="${id('pos')}" name="partOfSpeech">
        <option value="">(none)</option>
        ${PARTS.map((p) => html`<option value="${p}" ${p === part ? html`selected` : ''}>${p}</option>`)}
      </select>
    </p>
    <fieldset>
      <legend>Flags</legend>
      ${FLAGS.map(
        (f) =>
          html`<div class="check">
            <input
              id="${id(f.field)}"
              name="${f.field}"
              type="checkbox"
              value="on"
              ${flag(f.field) ? html`checked` : ''}
            />
            <label for="${id(f.field)}">${f.label}</label>
          </div>`,
      )}
    </fieldset>
    <fieldset>
      <legend>Translations</legend>
      ${langs.map(
        (l) =>
          html`<p>
            <label for="${id(`tr-${l}`)}">${l}</label>
            <input id="${id(`tr-${l}`)}" name="tr_${l}" maxlength="255" value="${translations[l] ?? ''}" lang="${l}" />
          </p>`,
      )}
    </fieldset>`;
}

const flagsOf = (t: Term) =>
  [
    t.forbidden ? 'forbidden' : '',
    t.nonTranslatable ? 'not translated' : '',
    t.caseSensitive ? 'case-sensitive' : '',
    t.abbreviation ? 'abbreviation' : '',
  ]
    .filter(Boolean)
    .join(', ');

interface ListQuery {
  q?: string;
  lang?: string;
  scope?: 'project' | 'workspace';
  offset: number;
}

function queryOf(request: Request): ListQuery {
  const q = request.query as Record<string, unknown>;
  const str = (x: unknown) => (typeof x === 'string' && x.trim() ? x.trim().slice(0, 200) : undefined);
  const scope = q.scope === 'project' || q.scope === 'workspace' ? q.scope : undefined;
  const offset = Number(q.offset);
  return {
    q: str(q.q),
    lang: str(q.lang)?.slice(0, 35),
    scope,
    offset: Number.isInteger(offset) && offset > 0 ? offset : 0,
  };
}

const listHref = (projectId: string, q: ListQuery, offset: number) => {
  const p = new URLSearchParams();
  if (q.q) p.set('q', q.q);
  if (q.lang) p.set('lang', q.lang);
  if (q.scope) p.set('scope', q.scope);
  if (offset) p.set('offset', String(offset));
  const s = p.toString();
  return `${projectPath(projectId, section)}${s ? `?${s}` : ''}`;
};

interface Extra {
  error?: string;
  flashes?: Flash[];
  form?: Record<string, string>;
}

async function listPage(api: Api, s: Session, projectId: string, q: ListQuery, extra: Extra = {}): Promise<PageAnswer> {
  const project = await projectOf(api, s, projectId);
  if ('status' in project) return project;
  const langs = targetsOf(project);
  const r = await api.GET('/projects/{projectId}/terms', {
    params: {
      path: { projectId },
      query: {
        offset: q.offset,
        limit: PAGE,
        ...(q.q ? { q: q.q } : {}),
        ...(q.lang ? { lang: q.lang } : {}),
        ...(q.scope ? { scope: q.scope } : {}),
      },
    },
  });
  const refused = r.data ? '' : apiMessage(r.error);
  const list = r.data ?? { terms: [], total: 0, offset: 0, limit: PAGE };
  const table = list.terms.length
    ? html`<table class="terms">
        <caption>
          Terms ${list.offset + 1} to ${list.offset + list.terms.length} of ${list.total}
        </caption>
        <thead>
          <tr>
            <th scope="col">Term</th>
            <th scope="col">Meaning</th>
            ${langs.map((l) => html`<th scope="col">${l}</th>`)}
            <th scope="col">Flags</th>
            <th scope="col">Shared</th>
            <th scope="col">Edit</th>
          </tr>
        </thead>
        <tbody>
          ${list.terms.map(
            (t) =>
              html`<tr>
                <td class="term">${t.text}${t.partOfSpeech ? html` <small>${t.partOfSpeech}</small>` : ''}</td>
                <td>${t.description ?? ''}</td>
                ${langs.map((l) => html`<td lang="${l}">${t.translations[l] ?? ''}</td>`)}
                <td>${flagsOf(t)}</td>
                <td>${t.scope === 'workspace' ? 'workspace' : 'this project'}</td>
                <td>
                  <a href="${termPath(projectId, t.termId)}">Edit<span class="visually-hidden"> ${t.text}</span></a>
                </td>
              </tr>`,
          )}
        </tbody>
      </table>`
    : html`<p>${q.q || q.lang || q.scope ? 'No term matches the filter.' : 'This project uses no terms yet.'}</p>`;
  const pages = html`<nav aria-label="Pages of terms" class="pages">
    ${q.offset > 0 ? html`<a href="${listHref(projectId, q, Math.max(0, q.offset - PAGE))}">Previous page</a>` : ''}
    ${q.offset + PAGE < list.total ? html`<a href="${listHref(projectId, q, q.offset + PAGE)}">Next page</a>` : ''}
  </nav>`;
  return {
    status: 200,
    body: appPage(
      s,
      `Terms · ${project.name}`,
      html`<section>
          <h1>Terms of ${project.name}</h1>
          ${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}
          ${refused ? html`<p class="error" role="alert">${refused}</p>` : ''}
          <p>
            Terms in ${project.baseLang} and the translation each requires. The editor marks them in sources, and the
            glossary check holds translations to them (docs/guides/terms.md). Workspace terms are shared by every
            project of the workspace in ${project.baseLang}.
          </p>
        </section>
        ${flashHtml(extra.flashes ?? [])}
        <section>
          <h2>Terms</h2>
          <form method="get" action="${projectPath(projectId, section)}" class="filters">
            <label for="filter-q">Text</label>
            <input id="filter-q" name="q" type="search" maxlength="200" value="${q.q ?? ''}" />
            <label for="filter-lang">Translated into</label>
            <select id="filter-lang" name="lang">
              <option value="">any language</option>
              ${langs.map((l) => html`<option value="${l}" ${l === q.lang ? html`selected` : ''}>${l}</option>`)}
            </select>
            <label for="filter-scope">Shared</label>
            <select id="filter-scope" name="scope">
              <option value="">project and workspace</option>
              <option value="project" ${q.scope === 'project' ? html`selected` : ''}>this project only</option>
              <option value="workspace" ${q.scope === 'workspace' ? html`selected` : ''}>workspace only</option>
            </select>
            <button type="submit">Filter</button>
          </form>
          ${table} ${pages}
        </section>
        <section>
          <h2>Add a term</h2>
          <form method="post" action="${projectPath(projectId, section)}">
            ${csrfField(s)} ${termFields('new', langs, undefined, extra.form)}
            <p>
              <label for="new-scope">Used by</label>
              <select id="new-scope" name="scope">
                <option value="project">this project</option>
                <option value="workspace" ${extra.form?.scope === 'workspace' ? html`selected` : ''}>
                  every project of the workspace
                </option>
              </select>
            </p>
            <p><button type="submit">Add term</button></p>
          </form>
        </section>`,
      { projectId, section },
    ),
  };
}

async function termOf(api: Api, projectId: string, termId: string): Promise<Term | undefined> {
  const r = await api.GET('/projects/{projectId}/terms/{termId}', { params: { path: { projectId, termId } } });
  return r.data;
}

async function editPage(
  api: Api,
  s: Session,
  projectId: string,
  termId: string,
  extra: Extra = {},
): Promise<PageAnswer> {
  const project = await projectOf(api, s, projectId);
  if ('status' in project) return project;
  const term = await termOf(api, projectId, termId);
  if (!term) return { status: 404, body: messagePage('Term not found', 'This project uses no such term.', s) };
  // The project's languages, and any other a workspace term has.
  const langs = [...new Set([...targetsOf(project), ...Object.keys(term.translations)])];
  return {
    status: 200,
    body: appPage(
      s,
      `Term ${term.text} · ${project.name}`,
      html`<p><a href="${projectPath(projectId, section)}">All terms</a></p>
        <section>
          <h1>Term <q>${term.text}</q></h1>
          ${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}
          ${
            term.scope === 'workspace'
              ? html`<p class="warn">A workspace term: a change applies to every project of the workspace.</p>`
              : ''
          }
        </section>
        ${flashHtml(extra.flashes ?? [])}
        <form method="post" action="${termPath(projectId, termId)}">
          ${csrfField(s)} ${termFields('edit', langs, term, extra.form)}
          <p><button type="submit">Save term</button></p>
        </form>
        <p><a href="${termPath(projectId, termId, '/delete')}">Delete this term</a></p>`,
      { projectId, section },
    ),
  };
}

async function deletePage(api: Api, s: Session, projectId: string, termId: string): Promise<PageAnswer> {
  const term = await termOf(api, projectId, termId);
  if (!term) return { status: 404, body: messagePage('Term not found', 'This project uses no such term.', s) };
  return {
    status: 200,
    body: appPage(
      s,
      `Delete term ${term.text}`,
      html`<section aria-labelledby="delete-title">
        <h1 id="delete-title">Delete the term <q>${term.text}</q>?</h1>
        <p class="warn">
          ${
            term.scope === 'workspace'
              ? 'It is a workspace term: every project of the workspace loses it.'
              : 'The editor stops marking it and the glossary check stops holding translations to it.'
          }
          This cannot be undone.
        </p>
        <form method="post" action="${termPath(projectId, termId, '/delete')}" class="confirm-actions">
          ${csrfField(s)}
          <button type="submit" class="danger">Delete term</button>
          <a href="${termPath(projectId, termId)}">Cancel</a>
        </form>
      </section>`,
      { projectId, section },
    ),
  };
}

/**
 * The key editor's source with the terms it uses marked (`<mark>`, the required translations in its title) and
 * listed under it with their translations; undefined when the source uses none (the editor shows it as before).
 */
export async function sourceTerms(api: Api, projectId: string, source: string): Promise<Html | undefined> {
  const r = await api.POST('/projects/{projectId}/terms/match', {
    params: { path: { projectId } },
    body: { text: source },
  });
  const matches = r.data?.matches ?? [];
  if (!matches.length) return undefined;
  const parts: Html[] = [];
  let at = 0;
  for (const m of matches) {
    const wanted = Object.entries(m.term.translations)
      .map(([l, t]) => `${l}: ${t}`)
      .join('; ');
    const title = m.term.forbidden
      ? `${m.term.text}: never ${wanted}`
      : m.term.nonTranslatable
        ? `${m.term.text}: kept as it is`
        : `${m.term.text}${wanted ? ` → ${wanted}` : ''}`;
    parts.push(
      html`${source.slice(at, m.start)}<mark class="term" title="${title}">${source.slice(m.start, m.end)}</mark>`,
    );
    at = m.end;
  }
  parts.push(html`${source.slice(at)}`);
  const seen = new Set<string>();
  const terms = matches.map((m) => m.term).filter((t) => !seen.has(t.termId) && seen.add(t.termId));
  return html`<dd class="source">${parts}</dd>
    <dt>Terms in this source</dt>
    <dd>
      <ul class="terms">
        ${terms.map(
          (t) =>
            html`<li>
              <strong>${t.text}</strong>${t.description ? html` (${t.description})` : ''}:
              ${
                t.nonTranslatable
                  ? 'kept as it is'
                  : Object.entries(t.translations).length
                    ? html`${t.forbidden ? 'never ' : ''}${Object.entries(t.translations).map(
                        ([l, x], i) => html`${i ? '; ' : ''}<span lang="${l}">${l}: ${x}</span>`,
                      )}`
                    : 'no translation yet'
              }
            </li>`,
        )}
      </ul>
    </dd>`;
}

export function termRoutes(app: App, server: Hapi.Server): ServerRoute[] {
  const ids = (request: Request) => ({
    projectId: String(request.params.projectId),
    termId: typeof request.params.termId === 'string' ? request.params.termId : '',
  });
  const reply = (h: ResponseToolkit, r: PageAnswer, status = r.status) =>
    htmlReply(h, r.status === 200 ? status : r.status, r.body);

  const list = async (request: Request, h: ResponseToolkit) => {
    const { projectId } = ids(request);
    const session = sessionOf(request);
    const flashes = await takeFlashes(app, session, projectPath(projectId, section));
    return reply(h, await listPage(apiFor(server, session), session, projectId, queryOf(request), { flashes }));
  };

  const create = async (request: Request, h: ResponseToolkit) => {
    const { projectId } = ids(request);
    const session = sessionOf(request);
    const form = formOf(request);
    const api = apiFor(server, session);
    const again = async (status: number, error: string) =>
      reply(h, await listPage(api, session, projectId, { offset: 0 }, { error, form }), status);
    const body = bodyOf(form);
    if (!body.text) return again(400, 'A term cannot be empty; nothing was added.');
    const made = await api.POST('/projects/{projectId}/terms', {
      params: { path: { projectId } },
      body: { ...body, scope: form.scope === 'workspace' ? 'workspace' : 'project' },
    });
    if (!made.data) return again(made.response.status, `${apiMessage(made.error)} Nothing was added.`);
    return redirectWithFlash(app, h, session, projectPath(projectId, section), {
      notice: `Added the term “${made.data.text}”.`,
    });
  };

  const one = async (request: Request, h: ResponseToolkit) => {
    const { projectId, termId } = ids(request);
    const session = sessionOf(request);
    const flashes = await takeFlashes(app, session, termPath(projectId, termId));
    return reply(h, await editPage(apiFor(server, session), session, projectId, termId, { flashes }));
  };

  const update = async (request: Request, h: ResponseToolkit) => {
    const { projectId, termId } = ids(request);
    const session = sessionOf(request);
    const form = formOf(request);
    const api = apiFor(server, session);
    const again = async (status: number, error: string) =>
      reply(h, await editPage(api, session, projectId, termId, { error, form }), status);
    const body = bodyOf(form);
    if (!body.text) return again(400, 'A term cannot be empty; nothing changed.');
    const r = await api.PATCH('/projects/{projectId}/terms/{termId}', {
      params: { path: { projectId, termId } },
      body,
    });
    if (!r.data) return again(r.response.status, `${apiMessage(r.error)} Nothing changed.`);
    return redirectWithFlash(app, h, session, projectPath(projectId, section), {
      notice: `Saved the term “${r.data.text}”.`,
    });
  };

  const confirmRemove = async (request: Request, h: ResponseToolkit) => {
    const { projectId, termId } = ids(request);
    const session = sessionOf(request);
    return reply(h, await deletePage(apiFor(server, session), session, projectId, termId));
  };

  const remove = async (request: Request, h: ResponseToolkit) => {
    const { projectId, termId } = ids(request);
    const session = sessionOf(request);
    const api = apiFor(server, session);
    const term = await termOf(api, projectId, termId);
    const r = await api.DELETE('/projects/{projectId}/terms/{termId}', { params: { path: { projectId, termId } } });
    if (r.response.status !== 204)
      return reply(
        h,
        await listPage(api, session, projectId, { offset: 0 }, { error: `${apiMessage(r.error)} Nothing changed.` }),
        r.response.status,
      );
    return redirectWithFlash(app, h, session, projectPath(projectId, section), {
      notice: `Deleted the term “${term?.text ?? termId}”.`,
    });
  };

  const P = '/projects/{projectId}/terms';
  const listPath = (r: Request) => projectPath(ids(r).projectId, section);
  const onePath = (r: Request) => termPath(ids(r).projectId, ids(r).termId);
  const deletePath = (r: Request) => termPath(ids(r).projectId, ids(r).termId, '/delete');
  return [
    { method: 'GET', path: P, options: signedIn(listPath), handler: list },
    { method: 'POST', path: P, options: signedIn(listPath), handler: create },
    { method: 'GET', path: `${P}/{termId}`, options: signedIn(onePath), handler: one },
    { method: 'POST', path: `${P}/{termId}`, options: signedIn(onePath), handler: update },
    { method: 'GET', path: `${P}/{termId}/delete`, options: signedIn(deletePath), handler: confirmRemove },
    { method: 'POST', path: `${P}/{termId}/delete`, options: signedIn(deletePath), handler: remove },
  ];
}
