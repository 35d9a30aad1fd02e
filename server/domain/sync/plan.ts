// Sync classification (spec: `syncCatalog`): what the file changes, against the project as it is. Read-only, so the
// dry run and the real run share it; the real run applies the plan in the same transaction it read in.
import type { components } from '../../../generated/openapi.js';
import {
  baseValueOf,
  dict,
  isTranslatable,
  own,
  type Catalog,
  type CatalogValue,
} from '../../../packages/core/src/catalog.js';
import { sameLanguageAndScript } from '../../../packages/core/src/languages.js';
import { normalizeLanguage } from '../project/languages.js';
import type { KeyRow, ProjectRow } from '../../infra/tables.js';
import { readInSlices } from '../../infra/slices.js';
import { listLanguages } from '../project/projects.js';
import type { Db } from '../../infra/db.js';
import { bool, parseJson } from '../../infra/db.js';
import { invalidArgument } from '../../infra/errors.js';
import { formsToIcu, pluralCategories } from '../../../packages/core/src/icu.js';
import { pairCost } from '../billing/credits.js';
import { contentToken, DEFAULT_NAMESPACE, namespacedCtx, orderedForms, type Forms } from '../catalog/keys.js';
import { cellStates, type CellState } from '../catalog/cells.js';
import { outdatedMode, retranslatesItself } from '../catalog/outdated.js';
import { canonicalKey, hashedBefore, isKeyName, MAX_KEY_NAME } from './canonical.js';

/** Characters of an entry's comment (xcstrings `comment`). */
const MAX_COMMENT = 4000;

interface Cell {
  icu: string;
  forms: Forms | null;
}

function cellOf(v: CatalogValue): Cell {
  if (v.kind === 'text') return { icu: v.text, forms: null };
  const forms = orderedForms(v.forms);
  return { icu: formsToIcu(forms, v.arg ?? 'count'), forms };
}

/**
 * i18next looks `_zero` up for a count of 0 in every language: in a base language without a CLDR `zero` category
 * (English), ICU says that with `=0`, which the json renderers write back as `_zero`.
 */
function i18nextZero(v: CatalogValue, meta: Record<string, unknown> | undefined, base: string): CatalogValue {
  const plural = meta?.plural as { style?: unknown } | undefined;
  if (v.kind !== 'plural' || plural?.style !== 'i18next') return v;
  if (own(v.forms, 'zero') === undefined || own(v.forms, '=0') !== undefined) return v;
  if (pluralCategories(base).includes('zero')) return v;
  const forms = dict(Object.entries(v.forms).map(([k, f]) => [k === 'zero' ? '=0' : k, f] as const));
  return { ...v, forms };
}

export type Conflict = components['schemas']['SyncConflict'];
export type Diagnostic = components['schemas']['SyncDiagnostic'];

export interface EntryPlan {
  name: string;
  fileKey: string;
  comment: string | null;
  meta: Record<string, unknown> | null;
  source: Cell;
  token: string;
  /** Existing key, if any. */
  key?: {
    id: number;
    token: string;
    source: string;
    forms: string | null;
    enabled: boolean;
    verified: boolean;
    fileKey: string | null;
    comment: string | null;
    meta: string | null;
  };
  action: 'create' | 'update' | 'match' | 'kept';
  reenable: boolean;
  /**
   * A key of the default namespace this first sync of a named namespace takes in (its name, values and history
   * kept; its token salted for the namespace), so a project that split one file into several pays nothing twice.
   */
  adopt?: true;
  /** Target cells the file carries, by project language code. */
  cells: Map<string, Cell>;
}

export interface TranslationWrite {
  entry: EntryPlan;
  lang: string;
  cell: Cell;
  replace: boolean;
}

export interface SyncPlan {
  entries: EntryPlan[];
  orphans: number[];
  /** The orphans' names, sorted. */
  orphanNames: string[];
  writes: TranslationWrite[];
  conflicts: Conflict[];
  diagnostics: Diagnostic[];
  counts: {
    created: number;
    updatedSources: number;
    matchedSources: number;
    updatedTranslations: number;
    unchangedTranslations: number;
    disabledOrphans: number;
    reenabled: number;
  };
  /** Keys of the default namespace taken into the sync's named namespace (EntryPlan.adopt). */
  adopted: number;
  /** Project target languages an AI fill may use (live, ai mode). */
  fillLangs: string[];
  /** Languages the file carries cells for (project codes, base excluded). */
  fileLangs: Set<string>;
  /** Stored cell state per `keyId|lang`: has a value, or a marker of a live job. */
  stored: Map<string, CellState>;
  languageSpellings: Record<string, string>;
  /**
   * `keyId|lang` of stored values a project in `retranslate` mode queues again because this sync changes their
   * source (server/domain/catalog/outdated.ts): the engine's values of the AI languages the file does not carry.
   */
  retranslate: Set<string>;
}

export async function planSync(
  db: Db,
  project: ProjectRow,
  catalog: Catalog,
  opts: { onConflict: 'server' | 'file'; pulledAt: number | null; baseOnly: boolean; namespace?: string },
): Promise<SyncPlan> {
  // The whole-catalog rule applies within the sync's namespace only (spec: SyncRequest.namespace): keys of the
  // other namespaces are never read, matched or disabled here.
  const namespace = opts.namespace ?? DEFAULT_NAMESPACE;
  const base = project.base_lang;
  const live = await listLanguages(db, project.id);
  const targetCodes = new Set(live.map((l) => l.code));
  const fillLangs = live.filter((l) => l.fill_mode === 'ai').map((l) => l.code);

  // Which spelling in the file is the base language, and which are targets of the project.
  const spellings = new Set(catalog.entries.flatMap((e) => Object.keys(e.values)));
  // Keyed by the file's language spellings; entries' values are read with own() for the same reason: names from a
  // file are data, never a way into Object.prototype.
  const languageSpellings = dict<string>();
  let baseSpelling: string | null = catalog.sourceLanguage ?? null;
  const targetSpelling = new Map<string, string>();
  for (const s of spellings) {
    let code: string;
    try {
      code = normalizeLanguage(s);
    } catch {
      throw invalidArgument(`"${s}" is not a language code.`);
    }
    languageSpellings[code] = s;
    if (opts.baseOnly) continue;
    if (baseSpelling === null && sameLanguageAndScript(code, base)) baseSpelling = s;
    else if (s !== baseSpelling && targetCodes.has(code)) targetSpelling.set(s, code);
  }

  const names = new Map<string, string>();
  const entries: EntryPlan[] = [];
  for (const e of catalog.entries) {
    // Not for translators (Android `translatable="false"`): no key, so nothing is charged and no target file has it.
    if (!isTranslatable(e)) continue;
    // Limits both databases store whole (spec: SyncRequest); the canonical name is at most 255 (canonical.ts).
    if (e.fileKey === '') throw invalidArgument('A key of the file is empty: every entry needs a name.');
    // A key spelled as a name is read by that name (`ref`): one longer than a name may be is refused, not renamed.
    if (isKeyName(e.fileKey) && e.fileKey.length > MAX_KEY_NAME)
      throw invalidArgument(
        `${e.fileKey.slice(0, 100)}…: a key name is at most ${MAX_KEY_NAME} characters; this one has ${e.fileKey.length}.`,
      );
    if (e.comment && e.comment.length > MAX_COMMENT)
      throw invalidArgument(`${e.fileKey.slice(0, 100)}: the comment is longer than ${MAX_COMMENT} characters.`);
    const name = canonicalKey(e.fileKey);
    const clash = names.get(name);
    if (clash !== undefined)
      throw invalidArgument(`"${clash}" and "${e.fileKey}" are the same key once canonicalized (${name}).`);
    names.set(name, e.fileKey);
    const baseValue = opts.baseOnly
      ? baseValueOf(e, catalog.format)
      : baseSpelling
        ? own(e.values, baseSpelling)
        : undefined;
    // A catalog entry without a base value uses its key as the source text (as Xcode does).
    const source = baseValue ? cellOf(i18nextZero(baseValue, e.meta, base)) : { icu: e.fileKey, forms: null };
    const cells = new Map<string, Cell>();
    for (const [s, code] of targetSpelling) {
      const v = own(e.values, s);
      if (v) cells.set(code, cellOf(v));
    }
    // Remembered so a pull writes the entry back without a base localization, as it came.
    const meta = baseValue || opts.baseOnly ? (e.meta ?? null) : { ...(e.meta ?? {}), noSourceLocalization: true };
    entries.push({
      name,
      fileKey: e.fileKey,
      comment: e.comment ?? null,
      meta,
      source,
      cells,
      token: contentToken(source.forms ? null : source.icu, source.forms, namespacedCtx(namespace, null)),
      action: 'create',
      reenable: false,
    });
  }

  const columns = [
    'id',
    'name',
    'token',
    'source',
    'forms',
    'enabled',
    'source_verified',
    'source_updated_at',
    'file_key',
    'comment',
    'meta',
  ] as const;
  const existing = await readInSlices<KeyRow>('id', () =>
    db('keys')
      .where({ project_id: project.id, namespace })
      .select(...columns),
  );
  const named = namespace !== DEFAULT_NAMESPACE;
  const adopting = new Set<string>();
  // The first sync of a named namespace takes in the default namespace's keys the file carries: pushed before
  // through /translate (named as the file spells them) or synced whole before the project split its files.
  if (named && existing.length === 0) {
    const wanted = [...new Set(entries.flatMap((e) => [e.name, e.fileKey]))].filter((n) => n.length <= MAX_KEY_NAME);
    const found: KeyRow[] = [];
    for (let i = 0; i < wanted.length; i += 500)
      found.push(
        ...(await db('keys')
          .where({ project_id: project.id, namespace: DEFAULT_NAMESPACE })
          .whereIn('name', wanted.slice(i, i + 500))
          .select<KeyRow[]>(...columns)),
      );
    const defaults = new Map(found.map((k) => [k.name, k]));
    for (const ep of entries) {
      const k =
        defaults.get(ep.name) ??
        [defaults.get(ep.fileKey)].find((d) => d && (d.file_key === null || d.file_key === ep.fileKey));
      if (!k || adopting.has(k.name)) continue;
      adopting.add(k.name);
      ep.name = k.name;
      existing.push(k);
    }
  }
  const byName = new Map(existing.map((k) => [k.name, k]));
  for (const ep of entries) {
    if (byName.has(ep.name)) continue;
    const before = hashedBefore(ep.fileKey, ep.name);
    const stored = before === null ? undefined : byName.get(before);
    if (stored && stored.file_key === ep.fileKey) ep.name = stored.name;
    // A key adopted under the name /translate gave it (the file's spelling) keeps that name in its namespace.
    const spelled = named ? byName.get(ep.fileKey) : undefined;
    if (!stored && spelled && spelled.file_key === ep.fileKey) ep.name = spelled.name;
  }
  // Tokens are unique per project (translate deduplicates by them), but a file may hold one text under two
  // keys: the second gets a token salted with its name.
  const tokenOwner = new Map(existing.map((k) => [k.token, k.name]));
  for (const ep of entries) {
    const plain = ep.token;
    const salted = contentToken(
      ep.source.forms ? null : ep.source.icu,
      ep.source.forms,
      namespacedCtx(namespace, `\u0000${ep.name}`),
    );
    const stored = byName.get(ep.name)?.token;
    if (stored === plain || stored === salted) {
      ep.token = stored;
      tokenOwner.set(stored, ep.name);
      continue;
    }
    const owner = tokenOwner.get(plain);
    ep.token = owner === undefined || owner === ep.name ? plain : salted;
    tokenOwner.set(ep.token, ep.name);
  }
  const counts = {
    created: 0,
    updatedSources: 0,
    matchedSources: 0,
    updatedTranslations: 0,
    unchangedTranslations: 0,
    disabledOrphans: 0,
    reenabled: 0,
  };
  const conflicts: Conflict[] = [];
  const diagnostics: Diagnostic[] = [];
  let adopted = 0;
  for (const ep of entries) {
    const k = byName.get(ep.name);
    if (!k) {
      ep.action = 'create';
      counts.created++;
      continue;
    }
    ep.key = {
      id: Number(k.id),
      token: k.token,
      source: k.source,
      forms: k.forms,
      enabled: bool(k.enabled),
      verified: bool(k.source_verified),
      fileKey: k.file_key,
      comment: k.comment,
      meta: k.meta,
    };
    if (!ep.key.enabled) {
      ep.reenable = true;
      counts.reenabled++;
    }
    if (adopting.has(k.name)) {
      ep.adopt = true;
      adopted++;
      // Its token was hashed in the default namespace: the same text is a match, its token re-salted on the way in.
      const same = ep.source.forms
        ? k.forms !== null && k.forms === JSON.stringify(ep.source.forms)
        : k.forms === null && k.source === ep.source.icu;
      if (same) {
        ep.action = 'match';
        counts.matchedSources++;
        continue;
      }
    }
    if (k.token === ep.token) {
      ep.action = 'match';
      counts.matchedSources++;
      continue;
    }
    if (opts.pulledAt !== null && Number(k.source_updated_at) > opts.pulledAt) {
      const overwrite = opts.onConflict === 'file';
      conflicts.push({
        key: ep.name,
        lang: base,
        kind: 'source',
        resolution: overwrite ? 'overwritten' : 'kept',
        storedValue: k.source,
        fileValue: ep.source.icu,
      });
      if (!overwrite) {
        ep.action = 'kept';
        // Cells of the other shape than the kept source are withheld.
        const keptPlural = k.forms != null;
        for (const [lang, cell] of [...ep.cells]) {
          if ((cell.forms != null) !== keptPlural) {
            ep.cells.delete(lang);
            diagnostics.push({ code: 'SOURCE_SHAPE_KEPT', lang, key: ep.name });
          }
        }
        continue;
      }
    }
    ep.action = 'update';
    counts.updatedSources++;
  }
  const inFile = new Set(entries.map((e) => e.name));
  // A captured key awaiting review (spec: captureUnits) is not the file's until a person accepts it: disabling it
  // would hide it from review and make capture skip its string for good.
  const awaiting = new Set(
    (await db('keys').where({ project_id: project.id, captured: true, enabled: true }).select('id')).map((r) =>
      Number(r.id),
    ),
  );
  const orphanKeys = existing.filter((k) => !inFile.has(k.name) && bool(k.enabled) && !awaiting.has(Number(k.id)));
  const orphans = orphanKeys.map((k) => Number(k.id));
  const orphanNames = orphanKeys.map((k) => k.name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  counts.disabledOrphans = orphans.length;

  // Stored cells of the keys the file carries.
  const keyIds = entries.filter((e) => e.key).map((e) => e.key!.id);
  const stored = await cellStates(db, keyIds);
  const rowOf = (keyId: number, lang: string) => stored.get(`${keyId}|${lang}`)?.row;

  const writes: TranslationWrite[] = [];
  const fileLangs = new Set<string>();
  for (const ep of entries) {
    for (const [lang, cell] of ep.cells) {
      fileLangs.add(lang);
      const r = ep.key ? rowOf(ep.key.id, lang) : undefined;
      if (!r || r.status === 'pending') {
        writes.push({ entry: ep, lang, cell, replace: false });
        counts.updatedTranslations++;
        continue;
      }
      if (r.value === cell.icu) {
        counts.unchangedTranslations++;
        continue;
      }
      const signedOff = r.status === 'reviewed' || r.status === 'approved';
      if (r.origin === 'import' && !signedOff) {
        writes.push({ entry: ep, lang, cell, replace: true });
        counts.updatedTranslations++;
        continue;
      }
      const overwrite = opts.onConflict === 'file';
      conflicts.push({
        key: ep.name,
        lang,
        kind: 'translation',
        resolution: overwrite ? 'overwritten' : 'kept',
        storedStatus: r.status as Conflict['storedStatus'],
        storedValue: r.value ?? undefined,
        fileValue: cell.icu,
      });
      if (overwrite) {
        writes.push({ entry: ep, lang, cell, replace: true });
        counts.updatedTranslations++;
      }
    }
  }
  for (const lang of fillLangs) if (!fileLangs.has(lang)) diagnostics.push({ code: 'LANG_NOT_IN_FILE', lang });
  const retranslate = new Set<string>();
  if (outdatedMode(project) === 'retranslate')
    for (const ep of entries) {
      if (ep.action !== 'update' || !ep.key) continue;
      for (const lang of fillLangs) {
        const s = stored.get(`${ep.key.id}|${lang}`);
        if (!ep.cells.has(lang) && s?.value && retranslatesItself(s.row)) retranslate.add(`${ep.key.id}|${lang}`);
      }
    }
  return {
    entries,
    orphans,
    orphanNames,
    writes,
    conflicts,
    diagnostics,
    counts,
    adopted,
    fillLangs,
    fileLangs,
    stored,
    languageSpellings,
    retranslate,
  };
}

/** (key, language) pairs with no value anywhere: not stored, not in the file, not in flight. */
export function fillPairs(
  plan: SyncPlan,
  project: ProjectRow,
  keyIdOf: (e: EntryPlan) => number | null,
  /** Pairs (`name|lang`) the memory pre-translates (server/domain/memory/pretranslate.ts): not queued or estimated. */
  fromMemory?: Map<string, unknown>,
) {
  const pairs: Array<{ keyId: number; lang: string; cost: number; entry: EntryPlan; source: string }> = [];
  let planned = 0;
  let estimate = 0;
  const perLang = new Map<string, number>();
  for (const ep of plan.entries) {
    const willBeEnabled = !ep.key || ep.key.enabled || ep.reenable;
    const verified = ep.key?.verified ?? false;
    if (!willBeEnabled || (bool(project.auto_verify) && !verified)) continue;
    const keyId = keyIdOf(ep);
    const source =
      ep.action === 'kept' ? { icu: ep.key!.source, forms: parseJson<Forms | null>(ep.key!.forms, null) } : ep.source;
    const cost = pairCost(source.icu, source.forms);
    for (const lang of plan.fillLangs) {
      if (ep.cells.has(lang)) continue;
      const s = ep.key ? plan.stored.get(`${ep.key.id}|${lang}`) : undefined;
      // A stuck pair failed for the source the key still has: a sync that leaves that source (match, kept) does not
      // queue or estimate it again; one that changes it (update) does.
      const again = ep.key !== undefined && plan.retranslate.has(`${ep.key.id}|${lang}`);
      if ((s?.value && !again) || s?.liveJob || (s?.stuck && ep.action !== 'update')) continue;
      if (fromMemory?.has(`${ep.name}|${lang}`)) continue;
      planned++;
      estimate += cost;
      perLang.set(lang, (perLang.get(lang) ?? 0) + 1);
      if (keyId != null) pairs.push({ keyId, lang, cost, entry: ep, source: source.icu });
    }
  }
  return { pairs, planned, estimate, perLang };
}
