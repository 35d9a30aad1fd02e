// The dashboard's only way to data: the internal API (spec/internal.yaml), through its generated types and
// openapi-fetch, called in-process. Each call is a Hapi `server.inject` of the internal route, so it runs the same
// pipeline as a call from the network (validation, handler, errors) with the signed-in person as its actor: the
// pipeline checks the person's role against the route's `x-roles` on every call (server/http/pipeline.ts), and
// no admin token is held or sent. What the dashboard shows is what any tool of the internal API sees.
import type Hapi from '@hapi/hapi';
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../generated/internal.js';
import { injectFetch } from '../http/inject-fetch.js';
import { ACTOR_PLUGIN, type Actor } from '../http/pipeline.js';
import type { Session } from '../domain/users/sessions.js';

export type Api = Client<paths>;

/** An origin that never resolves: the requests never leave the process. */
const BASE = 'http://dashboard.invalid/internal/v1';

function actorOf(s: Session): Actor {
  return { userId: s.user.id, name: s.user.name, role: s.user.role };
}

/** The internal API as the person signed in to `s`. */
export function apiFor(server: Hapi.Server, s: Session): Api {
  const actor = actorOf(s);
  const fetch = injectFetch(server, { [ACTOR_PLUGIN]: actor });
  return createClient<paths>({ baseUrl: BASE, fetch });
}
