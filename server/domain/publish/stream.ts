// A publish one language at a time: the build reads the keys once, then each language's cells in
// chunks, gates them on a worker thread and stores the language's part; the render reads back one part at a time,
// renders it on a worker thread and writes its objects under a staging token. Memory holds the keys and about one
// language; the event loop only reads, writes and hands data over, never runs a gate or a renderer.
import type { FormatId } from '../../../packages/core/src/catalog.js';
import { findCollisions } from '../../../packages/core/src/collisions.js';
import {
  DeliveryIndexer,
  multiLanguageFormats,
  type DeliveryIndex,
  type ManifestObject,
  type StagedObject,
} from '../../../packages/core/src/delivery.js';
import { own } from '../../../packages/core/src/catalog.js';
import { REGISTRY } from '../../../packages/core/src/formats/index.js';
import { bcp47 } from '../../../packages/core/src/languages.js';
import { objectKeys } from '../../infra/objects.js';
import { digestOf, type KeyHead, type SnapshotHead } from '../../../packages/core/src/parts.js';
import { conflict } from '../../infra/errors.js';
import type { App } from '../../infra/app.js';
import type { Db } from '../../infra/db.js';
import { parseJson } from '../../infra/db.js';
import { readInSlices } from '../../infra/slices.js';
import type { KeyRow, TranslationRow } from '../../infra/tables.js';
import type { ObjectStore } from '../../infra/objects.js';
import { namespacesOf } from '../../../packages/core/src/snapshot.js';
import { markupPolicy } from '../project/projects.js';
import { catalogMetas, toSnapshotKey } from '../catalog/live.js';
import { blocksPublishOnErrors, severityMasks } from '../checks/read.js';
import { storePart, type StoredSnapshot } from './parts-store.js';
import { runTask, threadsFor } from './pool.js';
import { writeStaged } from './store.js';
import { mergeListed, type GateOutput, type HeadRef, type LanguageRows, type Listed } from './tasks.js';
import type { Unapproved } from './versions.js';
import type { GateSummary } from './build.js';

/** Lets requests run between the steps of a long publish. */
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A promise awaited later: its rejection is handled there, not reported as unhandled meanwhile. */
function later<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

/** What the publisher's steps need of the service. */
export interface PublishEnv {
  db: Db;
  objects: ObjectStore;
  /** PUBLISH_THREADS and PUBLISH_INLINE_KEYS (pool.ts). */
  threads: number;
  inlineKeys: number;
  log: App['log'];
}

export const publishEnv = (app: App): PublishEnv => ({
  db: app.db,
  objects: app.objects,
  threads: app.config.publishThreads,
  inlineKeys: app.config.publishInlineKeys,
  log: app.log,
});

/** The live keys of a project, as a head without parts, and their ids in the same order. */
async function readHead(db: Db, projectId: string) {
  const project = await db('projects').where({ id: projectId }).first('base_lang');
  const languages: string[] = (
    await db('project_languages')
      .where({ project_id: projectId })
      .whereNull('removed_at')
      .orderBy('code')
      .select('code')
  ).map((r) => r.code);
  const keys: KeyHead[] = [];
  const ids: number[] = [];
  const rows = await readInSlices<KeyRow>('id', () =>
    db('keys')
      .where({ project_id: projectId, enabled: true, captured: false })
      .select('id', 'name', 'file_key', 'comment', 'meta', 'ctx', 'source', 'forms', 'namespace'),
  );
  for (const r of rows) {
    const { cells: _cells, ...k } = toSnapshotKey(r, {});
    keys.push(k);
    ids.push(Number(r.id));
  }
  const catalogs = await catalogMetas(db, projectId);
  return { head: { baseLang: project!.base_lang, languages, keys, catalogs }, ids };
}

/** One language's stored cells of the head's keys, as the gate task takes them. */
async function readLanguage(
  db: Db,
  projectId: string,
  lang: string,
  indexOf: Map<number, number>,
  reviewBelow: number | null,
): Promise<LanguageRows> {
  const index: number[] = [];
  const value: Array<string | null> = [];
  const status: string[] = [];
  const imported: number[] = [];
  const job: number[] = [];
  const outdated: number[] = [];
  const checks: number[] = [];
  const masks = await severityMasks(db, projectId, lang);
  const rows = await readInSlices<TranslationRow>('key_id', () =>
    db('translations')
      .where({ project_id: projectId, lang })
      .select('key_id', 'value', 'status', 'origin', 'job_id', 'outdated_at', 'ai_score'),
  );
  for (const r of rows) {
    const i = indexOf.get(Number(r.key_id));
    // Disabled and captured keys have cells too; they are not published.
    if (i === undefined) continue;
    index.push(i);
    // An AI value scored below the project's rule (projects.ai_review_below) waits for a person: left out as a
    // cell without a value is, until a review, an approval or an edit moves it.
    const held =
      reviewBelow !== null &&
      r.origin === 'ai' &&
      r.status === 'translated' &&
      r.ai_score != null &&
      Number(r.ai_score) < reviewBelow;
    value.push(held ? null : r.value);
    status.push(r.status);
    imported.push(r.origin === 'import' ? 1 : 0);
    job.push(Number(r.job_id ?? 0));
    outdated.push(r.outdated_at != null ? 1 : 0);
    checks.push(masks.get(Number(r.key_id)) ?? 0);
  }
  return {
    index: Int32Array.from(index),
    value,
    status,
    imported: Uint8Array.from(imported),
    job: Float64Array.from(job),
    outdated: Uint8Array.from(outdated),
    checks: Uint8Array.from(checks),
  };
}

/** A snapshot built and stored in parts, not yet named by any version: what a publish decides on and renders. */
export interface BuiltSnapshot {
  head: SnapshotHead;
  /** The head as stored (it names every part). */
  body: string;
  /**
   * The head without parts, as the tasks parse it: gates and renders read the keys only, so a thread keeps one
   * parsed copy of them for a whole publish.
   */
  keys: HeadRef;
  /** The snapshot's digest (of its head, which names every part by its digest). */
  digest: string;
  gates: GateSummary;
  unapproved: Unapproved;
  /** gettext's collisions, found language by language (the other formats' are the keys' alone). */
  poGroups: Array<{ name: string; keys: string[] }>;
}

/**
 * Builds the snapshot a publish with these rules would freeze, storing each language's part as it goes (a part
 * no version ends up naming is collected later: parts-store.ts).
 */
export async function buildSnapshot(
  env: PublishEnv,
  projectId: string,
  params: { mode: 'skip' | 'source'; approvedOnly: boolean; formats: FormatId[] },
): Promise<BuiltSnapshot> {
  const { db } = env;
  const { head: base, ids } = await readHead(db, projectId);
  const indexOf = new Map<number, number>();
  for (let i = 0; i < ids.length; i++) indexOf.set(ids[i], i);
  // The gate task reads the keys from a head without parts (parts are what it makes).
  const keysBody = JSON.stringify({ ...base, parts: {} });
  const keysRef: HeadRef = { digest: digestOf(keysBody), body: keysBody };
  const outputs: GateOutput[] = [];
  const parts: Record<string, string> = {};
  const now = Date.now();
  const langs = base.languages;
  const threads = threadsFor(env, base.keys.length);
  const projectRow = await db('projects').where({ id: projectId }).first('markup_origins', 'ai_review_below');
  const { origins } = markupPolicy(projectRow ?? {});
  const reviewBelow = projectRow?.ai_review_below == null ? null : Number(projectRow.ai_review_below);
  const blockErrors = await blocksPublishOnErrors(db, projectId);
  // The next language's cells are read while this one is gated on its thread.
  let nextRows = langs.length ? later(readLanguage(db, projectId, langs[0], indexOf, reviewBelow)) : null;
  for (let i = 0; i < langs.length; i++) {
    const lang = langs[i];
    const rows = await nextRows!;
    const gating = later(
      runTask(threads, 'gateLanguage', {
        head: keysRef,
        lang,
        mode: params.mode,
        approvedOnly: params.approvedOnly,
        po: params.formats.includes('po'),
        origins,
        blockErrors,
        rows,
      }),
    );
    if (i + 1 < langs.length) nextRows = later(readLanguage(db, projectId, langs[i + 1], indexOf, reviewBelow));
    const out = await gating;
    await storePart(db, projectId, out.digest, out.body, now);
    parts[lang] = out.digest;
    out.body = '';
    outputs.push(out);
  }
  const head: SnapshotHead = { ...base, keysDigest: keysRef.digest, parts };
  const headBody = JSON.stringify(head);
  const digest = digestOf(headBody);
  const markersByJob: Record<string, number> = {};
  for (const o of outputs)
    for (const [job, n] of Object.entries(o.markersByJob)) markersByJob[job] = (markersByJob[job] ?? 0) + n;
  const sum = (f: (o: GateOutput) => number) => outputs.reduce((n, o) => n + f(o), 0);
  const lists = (f: (o: GateOutput) => Listed[]) => mergeListed(outputs.map(f));
  const poGroups = new Map<string, Set<string>>();
  for (const o of outputs)
    for (const g of o.poGroups) {
      const keys = poGroups.get(g.name) ?? new Set<string>();
      for (const k of g.keys) keys.add(k);
      poGroups.set(g.name, keys);
    }
  return {
    head,
    body: headBody,
    keys: keysRef,
    digest,
    gates: {
      pending: sum((o) => o.pending),
      outdated: sum((o) => o.outdated),
      markersByJob,
      icuRejected: lists((o) => o.icu),
      icuRejectedTotal: sum((o) => o.icuTotal),
      markupRejected: lists((o) => o.markup),
      markupRejectedTotal: sum((o) => o.markupTotal),
      checks: {
        error: sum((o) => o.checks.error),
        warning: sum((o) => o.checks.warning),
        info: sum((o) => o.checks.info),
      },
      ...(blockErrors
        ? { checksBlocked: lists((o) => o.blocked), checksBlockedTotal: sum((o) => o.blockedTotal) }
        : {}),
    },
    unapproved: { listed: lists((o) => o.unapproved), total: sum((o) => o.unapprovedTotal) },
    poGroups: [...poGroups].map(([name, keys]) => ({ name, keys: [...keys] })),
  };
}

/** The export collisions of a built snapshot in `formats`. */
export async function collisionsOf(env: PublishEnv, built: BuiltSnapshot, formats: FormatId[]) {
  const groups = await runTask(threadsFor(env, built.head.keys.length), 'collisions', {
    head: built.keys,
    formats: formats.filter((f) => f !== 'po'),
  });
  if (formats.includes('po')) for (const g of built.poGroups) groups.push({ format: 'po', ...g });
  return groups;
}

/** A publish refuses keys that collapse to one name in an output format (spec: 409 `export_collision`). */
export function refuseCollisions(groups: ReturnType<typeof findCollisions>): void {
  if (groups.length)
    throw conflict('export_collision', 'Keys collapse to one name in a configured output format.', { groups });
}

/** Objects written to the store at once while the next language renders. */
const IN_FLIGHT = 8;

/**
 * The current version's objects a render may copy instead of rendering again: those of every language whose cells
 * (part digest) are the same, when the keys, languages and file meta (`keysDigest`) and the formats are too. Only
 * files that wrote no fallback are copied: the publish result lists fallbacks by name, which only a render tells.
 */
interface Reusable {
  versionId: string;
  parts: Record<string, string>;
  manifest: { bundles: Record<string, ManifestObject>; files: Record<string, Record<string, ManifestObject>> };
}

/** The project's current version as a Reusable for rendering `head` in `formats`, when it is one. */
export async function reusableFor(
  env: PublishEnv,
  projectId: string,
  head: SnapshotHead,
  formats: FormatId[],
): Promise<Reusable | null> {
  const { db } = env;
  const id = (await db('projects').where({ id: projectId }).first('current_version'))?.current_version;
  const v =
    id && (await db('versions').where({ project_id: projectId, id }).first('id', 'digest', 'formats', 'manifest'));
  if (!v || !v.manifest || !head.keysDigest || parseJson<string[]>(v.formats, []).join() !== formats.join())
    return null;
  const stored = await db('snapshot_bodies').where({ project_id: projectId, digest: v.digest }).first('body');
  if (!stored) return null;
  // Parsed on a thread: a large project's head is megabytes of keys, and only two fields are wanted.
  const index = await runTask(threadsFor(env, head.keys.length), 'headIndex', {
    head: { digest: v.digest, body: stored.body },
  });
  if (index.keysDigest !== head.keysDigest || !index.parts) return null;
  return { versionId: v.id, parts: index.parts, manifest: JSON.parse(v.manifest) as Reusable['manifest'] };
}

/** The current version's objects of `lang`, when every one of them can be copied (see Reusable). */
function reusedObjects(r: Reusable | null, head: SnapshotHead, lang: string, formats: FormatId[]) {
  // A version with named namespaces renders every language again (their objects are not indexed for reuse).
  if (!r || head.keys.some((k) => k.namespace)) return null;
  if (lang !== head.baseLang && (r.parts[lang] === undefined || r.parts[lang] !== head.parts[lang])) return null;
  const code = bcp47(lang);
  const bundle = own(r.manifest.bundles, code);
  const files: Array<{ format: FormatId; entry: ManifestObject }> = [];
  for (const format of formats) {
    if (REGISTRY[format].multiLanguage) continue;
    const entry = own(own(r.manifest.files, format), code);
    if (!entry || entry.warnings !== 0) return null;
    files.push({ format, entry });
  }
  const prefix = `bundles/${r.versionId}/`;
  const named = (o: ManifestObject) =>
    o.url.startsWith(prefix) && (!o.stringsdict || o.stringsdict.url.startsWith(prefix));
  return bundle && named(bundle) && files.every((f) => named(f.entry)) ? { bundle, files } : null;
}

/**
 * Renders every object of a snapshot, a language at a time, and writes them under `token` in the staging tree
 * (objects.ts `prepared`), from where a mint copies them under the version's id; a language `reuse` still holds
 * is copied from it instead. Returns the objects' index (manifest entries and warnings); no body stays in memory
 * past its write.
 */
export async function renderSnapshot(
  env: PublishEnv,
  projectId: string,
  token: string,
  s: StoredSnapshot,
  formats: FormatId[],
  reuse: Reusable | null = null,
): Promise<DeliveryIndex> {
  const { head } = s;
  const langs = [head.baseLang, ...head.languages];
  const threads = threadsFor(env, head.keys.length);
  const indexer = new DeliveryIndexer(head.baseLang, langs, formats);
  const write = (objs: StagedObject[]) => writeStaged(env.objects, projectId, token, objs, IN_FLIGHT);
  const copy = (files: string[]) =>
    Promise.all(
      files.map((file) =>
        env.objects.copy(
          objectKeys.bundle(projectId, reuse!.versionId, file),
          objectKeys.prepared(projectId, token, file),
        ),
      ),
    );
  const renderOf = async (lang: string) =>
    reusedObjects(reuse, head, lang, formats) ??
    runTask(threads, 'renderLanguage', {
      head: s.ref,
      lang,
      part: lang === head.baseLang ? null : await s.part(lang),
      formats,
    });
  // The next language renders on its thread while this one's objects are written.
  let next = later(renderOf(langs[0]));
  for (let i = 0; i < langs.length; i++) {
    const rendered = await next;
    if (i + 1 < langs.length) next = later(renderOf(langs[i + 1]));
    if ('lang' in rendered) await write(indexer.addLanguage(rendered));
    else await copy(indexer.reuseLanguage(langs[i], rendered, `bundles/${reuse!.versionId}/`));
    await yieldTurn();
  }
  for (const format of multiLanguageFormats(formats)) {
    const parts: Record<string, string> = {};
    for (const lang of head.languages) parts[lang] = (await s.part(lang))!;
    for (const namespace of ['', ...namespacesOf(head.keys)]) {
      const file = await runTask(threads, 'renderWhole', { head: s.ref, parts, format, namespace });
      await write(indexer.addMulti(format, file, namespace));
    }
  }
  return indexer.index;
}
