// The role a person holds on a project's pages: their own role, or, for a person with the translator role, the role
// an owner gave them in that project (owner, reviewer or translator: server/domain/users/grants.ts,
// docs/decisions/0033-project-roles.md). The pages draw what that role may do; the internal API enforces it again
// on every call (server/http/pipeline.ts), from the person's own role, never from this. Read once per request by
// the session scheme (auth.ts) and held beside that request's session object, as nav.ts holds its count.
import type { Db } from '../infra/db.js';
import type { Session } from '../domain/users/sessions.js';
import { grantIn } from '../domain/users/grants.js';

type Role = Session['user']['role'];

const roles = new WeakMap<Session, Role>();

/** Reads the role `s`'s person holds in `projectId`, for the pages drawn in this request. */
export async function noteProjectRole(db: Db, s: Session, projectId: string): Promise<void> {
  if (s.user.role !== 'translator') return;
  const grant = await grantIn(db, s.user.id, projectId);
  if (grant) roles.set(s, grant.role);
}

/** The role of the page's person: in the request's project when one was noted, else their own. */
export const roleOf = (s: Session): Role => roles.get(s) ?? s.user.role;
