// The frame of every signed-in page: who is signed in, and the navigation (the project's sections when a page
// belongs to a project, with the number of operations waiting for approval: nav.ts). Sections an owner alone may use are shown to owners only, and a translator sees the
// project's overview and keys only; the server refuses the others anyway (spec x-roles).
import { html, page, type Html } from './html.js';
import { pendingOperationsOf } from './nav.js';
import type { Session } from '../domain/users/sessions.js';
import { signedInHeader } from './web.js';
import { roleOf } from './project-role.js';

interface Where {
  projectId?: string;
  /** The nav entry of this page (its path's last part, e.g. `keys`). */
  section?: string;
}

const PROJECT_SECTIONS: Array<{ path: string; label: string; owner?: boolean; translator?: boolean }> = [
  { path: '', label: 'Overview', translator: true },
  { path: 'keys', label: 'Keys', translator: true },
  { path: 'terms', label: 'Terms' },
  { path: 'captured', label: 'Captured keys' },
  { path: 'checks', label: 'Checks' },
  { path: 'fill', label: 'AI fill' },
  { path: 'publish', label: 'Publish' },
  { path: 'versions', label: 'Versions' },
  { path: 'operations', label: 'Operations' },
  { path: 'content', label: 'Content' },
  { path: 'api-keys', label: 'API keys', owner: true },
  { path: 'webhooks', label: 'Webhooks', owner: true },
  { path: 'settings', label: 'Settings', owner: true },
];

export const projectPath = (projectId: string, section = '') =>
  `/projects/${encodeURIComponent(projectId)}${section ? `/${section}` : ''}`;

/** A key's editor: by name, or by token for a named namespace's key. */
export const keyHref = (projectId: string, key: string) =>
  `${projectPath(projectId, 'keys')}/${encodeURIComponent(key)}`;

function navOf(s: Session, where: Where): Html {
  const item = (href: string, label: Html | string, current: boolean) =>
    html`<li><a href="${href}" ${current ? html`aria-current="page"` : ''}>${label}</a></li>`;
  const top = [
    item('/', 'Projects', !where.projectId && where.section === 'projects'),
    s.user.role === 'owner' ? item('/users', 'Users', where.section === 'users') : '',
    item('/account', 'Your account', where.section === 'account'),
  ];
  const pending = where.projectId ? pendingOperationsOf(s, where.projectId) : undefined;
  const label = (x: (typeof PROJECT_SECTIONS)[number]) =>
    x.path === 'operations' && pending !== undefined && pending !== '0'
      ? html`${x.label} <span class="badge">${pending}<span class="visually-hidden"> waiting for approval</span></span>`
      : x.label;
  const project = where.projectId
    ? PROJECT_SECTIONS.filter((x) =>
        roleOf(s) === 'translator' ? x.translator : !x.owner || roleOf(s) === 'owner',
      ).map((x) => item(projectPath(where.projectId!, x.path), label(x), (where.section ?? '') === x.path))
    : [];
  return html`<nav class="main" aria-label="Main">
    <ul>
      ${top}${project}
    </ul>
  </nav>`;
}

export function appPage(s: Session, title: string, body: Html, where: Where = {}): string {
  return page(title, body, signedInHeader(s), navOf(s, where));
}
