// What changes between two snapshots, per language (the dashboard's publish preview and version diff): keys added,
// changed (old and new text) and removed, by key name; the base language compares sources. Reads one language's
// part of each snapshot at a time (parts-store.ts), as a publish does, and lists at most `cap` of each kind.
import type { Part } from '../../../packages/core/src/parts.js';
import { DeliveryIndexer, multiLanguageFormats } from '../../../packages/core/src/delivery.js';
import type { FormatId } from '../../../packages/core/src/catalog.js';
import type { ProjectRow } from '../../infra/tables.js';
import { invalidArgument } from '../../infra/errors.js';
import type { App } from '../../infra/app.js';
import { defaultParams, exhaustedOf, type GateSummary, type PublishParams } from './build.js';
import { openSnapshot, openVersion, storedSnapshot, type StoredSnapshot } from './parts-store.js';
import { preparedFor } from './prepare.js';
import { runTask, threadsFor } from './pool.js';
import { buildSnapshot, collisionsOf, publishEnv, type PublishEnv } from './stream.js';
import { currentVersion, resolveVersion } from './versions.js';

const DIFF_CAP = 100;

interface LanguageDiff {
  lang: string;
  isBase: boolean;
  added: Array<{ key: string; text: string }>;
  changed: Array<{ key: string; old: string; new: string }>;
  removed: Array<{ key: string; text: string }>;
  addedTotal: number;
  changedTotal: number;
  removedTotal: number;
}

/** How a diff names a key: its name, prefixed `<namespace>:` in a named namespace (one name may be in several). */
const diffName = (k: { name: string; namespace?: string }) => (k.namespace ? `${k.namespace}:${k.name}` : k.name);

/** A language's texts by key name (null: the snapshot does not hold the language). */
async function textsOf(s: StoredSnapshot | null, lang: string, isBase: boolean): Promise<Map<string, string> | null> {
  if (!s) return null;
  const out = new Map<string, string>();
  const { keys } = s.head;
  if (isBase) {
    if (s.head.baseLang !== lang) return null;
    for (const k of keys) out.set(diffName(k), k.source);
    return out;
  }
  const body = await s.part(lang);
  if (body === null) return null;
  const part = JSON.parse(body) as Part;
  for (let i = 0; i < keys.length; i++) {
    const c = part[i];
    if (c) out.set(diffName(keys[i]), c[0]);
  }
  return out;
}

function compare(lang: string, isBase: boolean, from: Map<string, string>, to: Map<string, string>, cap: number) {
  const d: LanguageDiff = {
    lang,
    isBase,
    added: [],
    changed: [],
    removed: [],
    addedTotal: 0,
    changedTotal: 0,
    removedTotal: 0,
  };
  const names = [...new Set([...from.keys(), ...to.keys()])].sort();
  for (const key of names) {
    const a = from.get(key);
    const b = to.get(key);
    if (a === undefined && b !== undefined) {
      if (d.addedTotal++ < cap) d.added.push({ key, text: b });
    } else if (a !== undefined && b === undefined) {
      if (d.removedTotal++ < cap) d.removed.push({ key, text: a });
    } else if (a !== b && a !== undefined && b !== undefined) {
      if (d.changedTotal++ < cap) d.changed.push({ key, old: a, new: b });
    }
  }
  return d;
}

/**
 * The differences from `from` (null: nothing published yet, everything is added) to `to`, per language: the base
 * language first, then every target language of either snapshot by code.
 */
async function diffSnapshots(from: StoredSnapshot | null, to: StoredSnapshot, cap = DIFF_CAP): Promise<LanguageDiff[]> {
  const out: LanguageDiff[] = [];
  const bases = [...new Set([to.head.baseLang, ...(from ? [from.head.baseLang] : [])])];
  for (const lang of bases) {
    const a = (await textsOf(from, lang, true)) ?? new Map<string, string>();
    const b = (await textsOf(to, lang, true)) ?? new Map<string, string>();
    out.push(compare(lang, true, a, b, cap));
  }
  const targets = [...new Set([...to.head.languages, ...(from?.head.languages ?? [])])]
    .filter((l) => !bases.includes(l))
    .sort();
  for (const lang of targets) {
    const a = (await textsOf(from, lang, false)) ?? new Map<string, string>();
    const b = (await textsOf(to, lang, false)) ?? new Map<string, string>();
    out.push(compare(lang, false, a, b, cap));
  }
  return out;
}

/** Two versions of a project (ids, `current` or `previous`) compared. */
export async function diffVersions(app: App, project: ProjectRow, fromRef: string, toRef: string, cap = DIFF_CAP) {
  const { db } = app;
  const from = await resolveVersion(db, project, fromRef);
  const to = await resolveVersion(db, project, toRef);
  return {
    from: from.id,
    to: to.id,
    languages: await diffSnapshots(
      await openVersion(db, project.id, from.id),
      await openVersion(db, project.id, to.id),
      cap,
    ),
  };
}

/** The format warnings rendering `s` in `formats` gives, every object rendered on the threads and none written. */
async function formatWarningsOf(env: PublishEnv, s: StoredSnapshot, formats: FormatId[]) {
  const { head } = s;
  const langs = [head.baseLang, ...head.languages];
  const threads = threadsFor(env, head.keys.length);
  const indexer = new DeliveryIndexer(head.baseLang, langs, formats);
  for (const lang of langs) {
    const rendered = await runTask(threads, 'renderLanguage', {
      head: s.ref,
      lang,
      part: lang === head.baseLang ? null : await s.part(lang),
      formats,
    });
    indexer.addLanguage(rendered);
  }
  for (const format of multiLanguageFormats(formats)) {
    const parts: Record<string, string> = {};
    for (const lang of head.languages) parts[lang] = (await s.part(lang))!;
    indexer.addMulti(format, await runTask(threads, 'renderWhole', { head: s.ref, parts, format }));
  }
  return { formatWarnings: indexer.index.formatWarnings, formatWarningsTotal: indexer.index.formatWarningsTotal };
}

/**
 * What `POST /publish` with these flags would mint now, against the current version: the snapshot is built by
 * the publish's own steps (stream.ts: the same gates, its parts stored as a refused publish's are) and rendered
 * for its format warnings without writing an object.
 */
export async function previewPublish(
  app: App,
  project: ProjectRow,
  flags: { incompleteMode?: 'source' | 'skip' | 'hold'; approvedOnly?: boolean },
  cap = DIFF_CAP,
) {
  const { db } = app;
  if (cap < 1) throw invalidArgument('cap must be at least 1.');
  const defaults = await defaultParams(db, project);
  const mode =
    flags.incompleteMode === undefined ? defaults.mode : flags.incompleteMode === 'source' ? 'source' : 'skip';
  const params: PublishParams = {
    mode,
    approvedOnly: flags.approvedOnly === true || defaults.approvedOnly,
    formats: defaults.formats,
  };
  const current = await currentVersion(db, project);
  const diffTo = async (next: StoredSnapshot) =>
    diffSnapshots(current ? await openVersion(db, project.id, current.id) : null, next, cap);
  /** What both ways below answer alike: the flags, and the snapshot's identity and gate results. */
  const summaryOf = async (digest: string, keyCount: number, g: GateSummary) => ({
    currentVersion: current?.id ?? null,
    identical: current?.digest === digest,
    keyCount,
    incompleteMode: params.mode,
    approvedOnly: params.approvedOnly,
    formats: params.formats,
    pending: g.pending,
    exhausted: await exhaustedOf(db, g.markersByJob),
    icuRejected: g.icuRejected,
    icuRejectedTotal: g.icuRejectedTotal,
    markupRejected: g.markupRejected,
    markupRejectedTotal: g.markupRejectedTotal,
  });
  // The prepared publish of these flags, when it is of the content as it is now, is what the publish would mint
  // (prepare.ts): its snapshot, gates and rendered warnings are read, not built and rendered again.
  const prepared = await preparedFor(db, project, params);
  if (prepared) {
    const s = prepared.summary;
    return {
      ...(await summaryOf(prepared.digest, s.keyCount, s)),
      languages: await diffTo(await openSnapshot(db, project.id, prepared.digest)),
      // A project whose keys collide is never prepared.
      collisions: [],
      formatWarnings: s.index.formatWarnings ?? [],
      formatWarningsTotal: s.index.formatWarningsTotal ?? 0,
    };
  }
  const env = publishEnv(app);
  const built = await buildSnapshot(env, project.id, params);
  const next = storedSnapshot(db, project.id, built.head, built.keys);
  const languages = await diffTo(next);
  const collisions = await collisionsOf(env, built, params.formats);
  return {
    ...(await summaryOf(built.digest, built.head.keys.length, built.gates)),
    languages,
    collisions: collisions.map((c) => ({ format: c.format, name: c.name, keys: c.keys })),
    // Files whose names collide cannot be rendered (the publish refuses them: 409 export_collision); the
    // collisions are the finding then, and there are no files to warn about.
    ...(collisions.length
      ? { formatWarnings: [], formatWarningsTotal: 0 }
      : await formatWarningsOf(env, next, params.formats)),
  };
}
