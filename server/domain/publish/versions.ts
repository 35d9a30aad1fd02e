// Versions: immutable snapshots named YYYY.MM.DD.N (UTC day, N from 1 within it). Minting writes the version,
// its snapshot, the delivery objects and the strings.published event in one transaction: a failure anywhere, the
// object store included, mints nothing. The manifest follows the commit (manifest.ts), so delivery never names a
// version the database does not hold.
import type { components } from '../../../generated/openapi.js';
import type { FormatId } from '../../../packages/core/src/catalog.js';
import type { DeliveryIndex } from '../../../packages/core/src/delivery.js';
import { writeDelivery, type StagedDelivery } from './store.js';
import { capList } from '../../../packages/core/src/gates.js';
import { storeHead } from './parts-store.js';
import { effectiveFormats } from '../project/projects.js';
import type { Db } from '../../infra/db.js';
import { contentRev } from '../project/revision.js';
import {
  dialectOf,
  isStoreRefusal,
  isUniqueViolation,
  lockProject,
  parseJson,
  retryContended,
} from '../../infra/db.js';
import { Refusal, notFound } from '../../infra/errors.js';
import { rateLimited } from '../../infra/ratelimit.js';
import { countDaily, usedDaily } from '../billing/quotas.js';
import { newEventId, recordEvent } from '../webhooks/events.js';
import type { ObjectStore } from '../../infra/objects.js';
import type { ProjectRow, VersionRow } from '../../infra/tables.js';
import { writeManifest } from './manifest.js';

const DAILY_PUBLISH_CAP = 30;

const dayOf = (now: number) => new Date(now).toISOString().slice(0, 10).replace(/-/g, '.');

export async function currentVersion(db: Db, p: ProjectRow): Promise<VersionRow | undefined> {
  const id = (await db('projects').where({ id: p.id }).first('current_version'))?.current_version;
  return id ? db('versions').where({ project_id: p.id, id }).first() : undefined;
}

/** A version id, `current` or `previous` (the newest version older than the current one). */
export async function resolveVersion(db: Db, p: ProjectRow, ref: string): Promise<VersionRow> {
  // A version id (what pulls name) is one read; only `current` and `previous` need the current version.
  if (ref !== 'current' && ref !== 'previous') {
    const row: VersionRow | undefined = await db('versions').where({ project_id: p.id, id: ref }).first();
    if (!row) throw notFound(`No version ${ref} in this project.`);
    return row;
  }
  const current = await currentVersion(db, p);
  let row: VersionRow | undefined;
  if (ref === 'current') row = current;
  else {
    row =
      current &&
      (await db('versions')
        .where({ project_id: p.id })
        .andWhere((w) => {
          w.where('day', '<', current.day).orWhere((x) => {
            x.where('day', current.day).andWhere('seq', '<', current.seq);
          });
        })
        .orderBy('day', 'desc')
        .orderBy('seq', 'desc')
        .first());
  }
  if (!row) throw notFound(`No version ${ref} in this project.`);
  return row;
}

/** The effective output formats (spec: `addOutputFormat`): configured, else the union of every retained version's. */
export async function projectFormats(db: Db, p: ProjectRow): Promise<FormatId[]> {
  const rows = await db('versions').where({ project_id: p.id }).orderBy('day').orderBy('seq').select('formats');
  return effectiveFormats(
    p,
    rows.map((r) => parseJson<string[]>(r.formats, [])),
  ) as FormatId[];
}

type PublishResult = components['schemas']['PublishResult'];
type VersionFields = Omit<
  PublishResult,
  | 'icuRejected'
  | 'icuRejectedTotal'
  | 'markupRejected'
  | 'markupRejectedTotal'
  | 'formatWarnings'
  | 'formatWarningsTotal'
  | 'unchanged'
>;

/** A version as the publish and restore answers show it, with the answer's own fields (`extra`). */
export function versionView<E extends Omit<PublishResult, keyof VersionFields>>(
  v: VersionRow,
  extra: E,
): VersionFields & E {
  return {
    versionId: v.id,
    label: v.label,
    snapshotAt: new Date(Number(v.snapshot_at)).toISOString(),
    keyCount: Number(v.key_count),
    languages: parseJson<PublishResult['languages']>(v.languages, []),
    formats: parseJson<string[]>(v.formats, []),
    ...extra,
  };
}

/**
 * The daily cap on publishes and restores (publishVersion, restoreVersion; the `publish` daily count,
 * billing/quotas.ts): `429 rate_limited` once the cap is reached.
 */
async function refuseOverCap(db: Db, projectId: string, now: number): Promise<void> {
  if ((await usedDaily(db, projectId, 'publish', now)) >= DAILY_PUBLISH_CAP) throw overCap();
}

const overCap = () => rateLimited(`At most ${DAILY_PUBLISH_CAP} publishes and restores per project per day.`, 3600);

/**
 * The cap before any work: a capped publish or restore is refused before it renders. The mint checks it again
 * under the publish lock, where the count it reads is the one it increments.
 */
export async function checkDailyCap(db: Db, projectId: string, now: number): Promise<void> {
  await refuseOverCap(db, projectId, now);
}

/** A version's cells that were not approved: the first ones as `key [lang]` (what a 409 lists) and how many. */
export interface Unapproved {
  listed: string[];
  total: number;
}

/** Earlier versions stored the whole list; a version stores its capped list and total. */
export function unapprovedOf(v: VersionRow): Unapproved {
  const stored = parseJson<string[] | Unapproved | null>(v.unapproved, null);
  if (!stored) return { listed: [], total: 0 };
  return Array.isArray(stored) ? { listed: capList(stored), total: stored.length } : stored;
}

/** A prepared publish to mint from (prepare.ts): its objects are in the store under `token`. */
export interface PreparedSource {
  token: string;
  rev: number;
  index: DeliveryIndex;
}

/** The prepared publish was replaced, or the content changed, after the publish chose it: nothing was minted. */
export class PreparedStale extends Error {}

/**
 * The version's objects: a prepared publish's (its head stored with it), or staged by this publish or restore,
 * with the snapshot's head to store (`headBody`; a restore's is stored already).
 */
export type MintContent = { prepared: PreparedSource } | { staged: StagedDelivery; headBody?: string };

export interface MintInput {
  project: ProjectRow;
  digest: string;
  keyCount: number;
  baseLang: string;
  /** Target languages, in order. */
  languages: string[];
  formats: FormatId[];
  label: string | null;
  restoredFrom: string | null;
  unapproved: Unapproved;
  /** Mint nothing when the current version has this digest (`skipIfIdentical`): decided under the publish lock. */
  skipIfIdentical?: boolean;
  content: MintContent;
}

/**
 * The mint's first statement. Holding the project's prepared row to the commit orders every mint against the
 * prepare that replaces it (prepare.ts), which then deletes the old prepared objects and any snapshot no version
 * names: none of them can vanish under a mint. (SQLite transactions are serial anyway.)
 */
async function lockPrepared(trx: Db, projectId: string) {
  const q = trx('prepared_publishes').where({ project_id: projectId }).first('token', 'content_rev');
  return dialectOf(trx) === 'mysql' ? q.forUpdate() : q;
}

/** Inside the mint: the prepared publish is still the one chosen, and still the project's content. */
async function checkPrepared(
  trx: Db,
  projectId: string,
  p: PreparedSource,
  row: { token: string; content_rev: unknown } | undefined,
): Promise<void> {
  if (row?.token !== p.token || Number(row.content_rev) !== p.rev || (await contentRev(trx, projectId)) !== p.rev)
    throw new PreparedStale();
}

/** What a mint did: a new version, or (skipIfIdentical) the current one it left as it was. */
type Minted = { row: VersionRow; unchanged: false } | { row: VersionRow; unchanged: true };

/**
 * What a refused write of the object store answers, before or during a mint: `503 unavailable`, nothing minted
 * (any other error as it is).
 */
export async function storeRefusal(db: Db, project: ProjectRow, err: unknown): Promise<unknown> {
  if (!isStoreRefusal(err)) return err;
  const current = await currentVersion(db, project);
  return new Refusal(
    'unavailable',
    `The datastore refused a write (${(err as { code?: string }).code}): nothing was minted${current ? ` and delivery still serves ${current.id}` : ''}. Objects written for the refused version may remain under its id, unreferenced. Re-run the call once the store accepts writes.`,
  );
}

/**
 * Mints a version. Mints of one project are serialized (lockProject), so N is read and taken by one mint at a
 * time; a deadlock or a lost race is retried, and what still loses answers `503 contended`, nothing minted.
 */
export async function mintVersion(db: Db, objects: ObjectStore, m: MintInput): Promise<Minted> {
  const { project } = m;
  let minted: Minted;
  try {
    minted = await retryContended(() => db.transaction((trx) => mintIn(trx, objects, m)), {
      retryOn: isUniqueViolation,
    });
  } catch (err) {
    throw await storeRefusal(db, project, err);
  }
  if (minted.unchanged) return minted;
  try {
    await writeManifest(db, objects, project.id);
  } catch (err) {
    // Committed already: whatever stopped the manifest, the answer says the version exists and delivery lags.
    const code = (err as { code?: string }).code ?? (err as Error).name;
    throw new Refusal(
      'unavailable',
      `Version ${minted.row.id} was minted, but the object store refused its manifest (${code}): delivery still serves the previous version until the store accepts writes, when a background sweep writes it. Do not publish again for this.`,
    );
  }
  return minted;
}

async function mintIn(trx: Db, objects: ObjectStore, m: MintInput): Promise<Minted> {
  const { project, content } = m;
  const now = Date.now();
  const day = dayOf(now);
  // First: every read below (the current version, the day's N and count) sees the mints before this one.
  await lockProject(trx, project.id, 'publish');
  const prepared = await lockPrepared(trx, project.id);
  if ('prepared' in content) await checkPrepared(trx, project.id, content.prepared, prepared);
  if (m.skipIfIdentical) {
    const current = await currentVersion(trx, project);
    if (current && current.digest === m.digest) return { row: current, unchanged: true };
  }
  await refuseOverCap(trx, project.id, now);
  const last = await trx('versions').where({ project_id: project.id, day }).max({ seq: 'seq' });
  const seq = Number(last[0]?.seq ?? 0) + 1;
  const id = `${day}.${seq}`;
  const languages = [{ code: m.baseLang, isBase: true }, ...m.languages.map((code) => ({ code, isBase: false }))];
  // The objects before any row: if the store refuses, the transaction has written nothing yet to roll back.
  const manifest = await writeDelivery(
    objects,
    project.id,
    id,
    now,
    'prepared' in content ? content.prepared : content.staged,
  );
  const row: VersionRow = {
    project_id: project.id,
    id,
    day,
    seq,
    label: m.label,
    snapshot_at: now,
    digest: m.digest,
    formats: JSON.stringify(m.formats),
    key_count: m.keyCount,
    languages: JSON.stringify(languages),
    restored_from: m.restoredFrom,
    all_approved: m.unapproved.total === 0,
    unapproved: m.unapproved.total ? JSON.stringify(m.unapproved) : null,
    manifest,
    created_at: now,
  };
  await trx('versions').insert(row);
  // A prepared publish stored its snapshot already, and a restore names a stored one.
  if ('headBody' in content && content.headBody !== undefined)
    await storeHead(trx, project.id, m.digest, content.headBody);
  await trx('projects').where({ id: project.id }).update({ current_version: id });
  if (!(await countDaily(trx, project.id, 'publish', DAILY_PUBLISH_CAP, now))) throw overCap();
  const eventId = newEventId();
  await recordEvent(
    trx,
    project.id,
    'strings.published',
    {
      id: eventId,
      type: 'strings.published',
      schemaVersion: 1,
      createdAt: new Date(now).toISOString(),
      project: { id: project.id, handle: project.handle, slug: project.slug },
      data: { versionId: id, label: m.label, keyCount: m.keyCount, languages },
    },
    now,
    eventId,
  );
  return { row, unchanged: false };
}
