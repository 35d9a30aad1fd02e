// Admission of a keyed public request, in the pipeline's order (pipeline.ts): the key (401), its project (404), then the
// project's rate window (429). These two statements are the only database work every request does. On SQLite
// the admissions that arrive in one event-loop turn run together as one IMMEDIATE transaction, so the file
// locks and the WAL commit are paid once per turn rather than twice per request; each request still counts
// exactly once, in the database, so every process sharing it enforces one limit. MySQL runs them per request.
import {
  hasScope,
  KEY_ROW_SQL,
  parseApiKey,
  principalFromRow,
  projectFromRow,
  type KeyClaim,
  type KeyLookupRow,
  type KeyPrincipal,
} from './apikeys.js';
import { dialectOf, hotRead, hotRow, hotTransaction, isStoreRefusal, type Db, type Prepare } from '../infra/db.js';
import { countRequest, SQLITE_COUNT_SQL, windowStart } from '../infra/ratelimit.js';
import type { ProjectRow } from '../infra/tables.js';

interface AdmissionRequest {
  token: string;
  /** The route's {projectId}; undefined on routes outside a project (/operations), which count against the key's. */
  projectId?: string;
  rateLimited: boolean;
  /** The scopes the route allows: a key refused by them (403) is not counted. */
  scopes: string[];
  now?: number;
}

interface Admission {
  /** Null: not a live key (401). */
  principal: KeyPrincipal | null;
  /** False: the key's project is deleted or is not the route's (404). */
  projectMatches: boolean;
  /** The key's project, read in the same statement as the key; null unless `projectMatches`. */
  project: ProjectRow | null;
  /** The request's place in its project's window, when it was counted. */
  count: number | null;
}

/**
 * A request is counted only once it is known to be a live key acting on its own project with a scope the route
 * allows. Refusals before any work (401, 404, 403) spend nothing: a capture-only key shipped inside an app build
 * cannot spend its owner's publish budget on routes it may not call (README, "Rate limit").
 */
function judge(
  row: KeyLookupRow | undefined,
  claim: KeyClaim,
  req: AdmissionRequest,
): Omit<Admission, 'count'> & { counts: boolean } {
  const principal = principalFromRow(row, claim);
  const projectMatches =
    !!principal && !principal.projectDeleted && (req.projectId === undefined || req.projectId === principal.projectId);
  return {
    principal,
    projectMatches,
    project: projectMatches ? projectFromRow(row!) : null,
    counts: projectMatches && req.rateLimited && hasScope(principal.scopes, req.scopes),
  };
}

export async function admit(db: Db, req: AdmissionRequest): Promise<Admission> {
  const claim = parseApiKey(req.token);
  if (!claim) return { principal: null, projectMatches: false, project: null, count: null };
  if (dialectOf(db) === 'sqlite') return enqueue(db, req, claim);
  const { principal, projectMatches, project, counts } = judge(
    await hotRow<KeyLookupRow>(db, KEY_ROW_SQL, [claim.keyId]),
    claim,
    req,
  );
  return {
    principal,
    projectMatches,
    project,
    count: counts ? await countRequest(db, principal!.projectId, req.now).catch(uncounted) : null,
  };
}

/**
 * A database that refuses writes (disk full, read-only) cannot count a request. Reads still work, so the request
 * goes on uncounted rather than every route of every tenant failing; its writes meet the same refusal (503).
 */
function uncounted(err: unknown): null {
  if (!isStoreRefusal(err)) throw err;
  return null;
}

interface Pending {
  req: AdmissionRequest;
  claim: KeyClaim;
  resolve: (a: Admission) => void;
  reject: (e: unknown) => void;
}
const queues = new WeakMap<Db, Pending[]>();

function enqueue(db: Db, req: AdmissionRequest, claim: KeyClaim): Promise<Admission> {
  let queue = queues.get(db);
  if (!queue) {
    queues.set(db, (queue = []));
    // The check phase follows the poll phase that parsed this turn's requests: they all join one batch.
    setImmediate(() => void flush(db));
  }
  const batch = queue;
  return new Promise((resolve, reject) => {
    batch.push({ req, claim, resolve, reject });
  });
}

function admitAll(batch: Pending[], prepare: Prepare, counting = true): Admission[] {
  const keyRow = prepare(KEY_ROW_SQL);
  const count = counting ? prepare(SQLITE_COUNT_SQL) : null;
  const out: Admission[] = [];
  for (const { req, claim } of batch) {
    const row = keyRow.get(claim.keyId) as KeyLookupRow | undefined;
    const { principal, projectMatches, project, counts } = judge(row, claim, req);
    out.push({
      principal,
      projectMatches,
      project,
      count:
        counts && count
          ? Number(
              (count.all(principal!.projectId, windowStart(req.now ?? Date.now())) as Array<{ count: number }>)[0]
                .count,
            )
          : null,
    });
  }
  return out;
}

async function flush(db: Db): Promise<void> {
  const batch = queues.get(db)!;
  queues.delete(db);
  try {
    const results = await hotTransaction(db, (prepare) => admitAll(batch, prepare)).catch((err) => {
      if (!isStoreRefusal(err)) throw err;
      // uncounted(): the batch is admitted on the key lookups alone.
      return hotRead(db, (prepare) => admitAll(batch, prepare, false));
    });
    for (let i = 0; i < batch.length; i++) batch[i].resolve(results[i]);
  } catch (err) {
    for (const item of batch) item.reject(err);
  }
}
