// The navigation's count of a project's operations waiting for a person, so an owner sees on any page of the
// project that an agent asked for something. The count is read through the internal API (as the person signed in)
// when a page of the project is requested, and held beside that request's session object only: a WeakMap keyed by
// the session object the `session` auth scheme made for this request (auth.ts), gone with it, never shared between
// requests.
import type Hapi from '@hapi/hapi';
import { apiFor } from './api.js';
import type { Session } from '../domain/users/sessions.js';

/** More than this many waiting reads as "100+": the list stays cheap however many there are. */
const COUNT_CAP = 100;

const counts = new WeakMap<Session, { projectId: string; pending: number; more: boolean }>();

/** Reads how many of `projectId`'s operations wait for approval, for the pages `s` draws in this request. */
export async function notePendingOperations(server: Hapi.Server, s: Session, projectId: string): Promise<void> {
  const r = await apiFor(server, s).GET('/projects/{projectId}/operations', {
    params: { path: { projectId }, query: { state: 'pending_approval', limit: COUNT_CAP } },
  });
  // An unknown project, or a refusal: the page says so itself; the navigation shows no count.
  if (r.data) counts.set(s, { projectId, pending: r.data.operations.length, more: r.data.more });
}

/** The count read for `projectId` in this request: "3", "100+", or undefined when none was read. */
export function pendingOperationsOf(s: Session, projectId: string): string | undefined {
  const c = counts.get(s);
  if (!c || c.projectId !== projectId) return undefined;
  return c.more ? `${c.pending}+` : String(c.pending);
}
