// Importing a translated file (spec: `importTranslations`): one target language's values from any format the service
// renders, or XLIFF, matched to the project's keys and stored as imported values under sync's rules 3 and 4
// (plan.ts): an imported value gives way to a newer import; a value the project produced or a person signed off is
// kept and listed as a conflict unless `onConflict: file`. Nothing is created, translated or charged. The plan is
// read-only, so the dry run and the real run share it; the real run applies it in the transaction it read in.
import {
  FormatError,
  own,
  type Catalog,
  type CatalogEntry,
  type CatalogValue,
  type FormatId,
} from '../../../packages/core/src/catalog.js';
import { detectFormat, getFormat, REGISTRY } from '../../../packages/core/src/formats/index.js';
import { categoriesFor } from '../../../packages/core/src/formats/po.js';
import { isStringsdict, parseStringsdict } from '../../../packages/core/src/formats/ios_strings.js';
import { formsToIcu, icuToForms, isValidIcu } from '../../../packages/core/src/icu.js';
import { sameLanguageAndScript } from '../../../packages/core/src/languages.js';
import type { components } from '../../../generated/openapi.js';
import type { Db } from '../../infra/db.js';
import { Refusal, invalidArgument } from '../../infra/errors.js';
import type { KeyRow, ProjectRow } from '../../infra/tables.js';
import { readInSlices } from '../../infra/slices.js';
import { decode } from '../catalog/file.js';
import { cellStates } from '../catalog/cells.js';
import { writeImported } from '../catalog/history.js';
import { DEFAULT_NAMESPACE } from '../catalog/keys.js';
import { normalizeLanguage } from '../project/languages.js';
import { listLanguages } from '../project/projects.js';
import { contentChanged } from '../project/revision.js';
import { canonicalKey } from './canonical.js';
import { rememberCells } from '../memory/entries.js';
import { argOrder, printfSpecifiers, printfToIcu } from '../../../packages/core/src/printf.js';

type ImportRequest = components['schemas']['ImportRequest'];
type ImportResult = components['schemas']['ImportResult'];
type ImportConflict = components['schemas']['ImportConflict'];

const MAX_ENTRIES = 1000;
const MAX_ROWS = 50;

/**
 * States a file gives a value that no one finished: PO `fuzzy` (msgfmt leaves such a message out too) and an
 * xcstrings `new` (Xcode's state of a string added but not yet translated). XLIFF's own untranslated states are
 * left out by its parser (formats/xliff.ts).
 */
const NOT_DONE = new Set(['fuzzy', 'new']);

interface ImportFile {
  format: FormatId;
  catalog: Catalog;
  lang: string;
}

/** `parse()`'s catalog, its FormatError answered with its code, and the entry limit. */
function parsed(format: FormatId, parse: () => Catalog): Catalog {
  let catalog: Catalog;
  try {
    catalog = parse();
  } catch (err) {
    if (err instanceof FormatError)
      throw new Refusal(err.code, `The file is not a valid ${format} file: ${err.message}`);
    throw invalidArgument(`The file is not a valid ${format} file.`);
  }
  if (catalog.entries.length > MAX_ENTRIES)
    throw new Refusal('too_many_entries', `The file has ${catalog.entries.length} entries; at most ${MAX_ENTRIES}.`);
  return catalog;
}

/** The file as a catalog of `lang`: decoded, detected against the declared format, parsed, its language checked. */
function readImportFile(body: ImportRequest, project: ProjectRow, targets: Set<string>): ImportFile {
  let lang: string;
  try {
    lang = normalizeLanguage(body.lang);
  } catch {
    throw invalidArgument(`"${body.lang}" is not a language code.`);
  }
  if (lang === project.base_lang)
    throw invalidArgument(`${lang} is the project's base language: import a target language's file.`);
  if (!targets.has(lang)) throw invalidArgument(`${lang} is not a language of this project: add it first.`);

  const text = decode(body.contentBase64);
  // The `.stringsdict` beside a `.strings` file holds its plurals: an `ios_strings` file of its own kind.
  if ((!body.format || body.format === 'ios_strings') && isStringsdict(text))
    return { format: 'ios_strings', catalog: parsed('ios_strings', () => parseStringsdict(text)), lang };
  const detected = detectFormat(text, body.fileName);
  const declared = body.format;
  if (declared && getFormat(declared).detect(text, body.fileName) === 0)
    throw new Refusal('format_mismatch', `The file is ${detected ?? 'not recognized'}, not ${declared}.`);
  const format = declared ?? detected;
  if (!format) throw invalidArgument('The file is in no format the service reads: name it with `format`.');
  const catalog = parsed(format, () => getFormat(format).parse(text));
  // A catalog of every language (xcstrings) names its languages; a one-language file may say which it holds.
  const declaredLang = REGISTRY[format].multiLanguage
    ? null
    : bilingual(format)
      ? (catalog.language ?? null)
      : (catalog.language ?? catalog.sourceLanguage ?? null);
  if (declaredLang !== null && declaredLang !== 'und') {
    let code: string | null = null;
    try {
      code = normalizeLanguage(declaredLang);
    } catch {
      // a language header that is no code: the import's `lang` says what the file holds
    }
    if (code !== null && !sameLanguageAndScript(code, lang))
      throw new Refusal('language_mismatch', `The file holds "${declaredLang}"; the import names "${lang}".`);
  }
  return { format, catalog, lang };
}

/** XLIFF holds a source and a target; the other one-language formats hold the one language (Angular's `locale`). */
const bilingual = (format: FormatId) => format === 'xliff12' || format === 'xliff20';

/** The spelling of the file's source language, when it has one (XLIFF, xcstrings). */
function sourceSpelling(catalog: Catalog, base: string): string | null {
  if (bilingual(catalog.format)) return catalog.sourceLanguage;
  if (catalog.format !== 'xcstrings') return null;
  if (catalog.sourceLanguage) return catalog.sourceLanguage;
  for (const e of catalog.entries)
    for (const s of Object.keys(e.values))
      if (canonicalOrNull(s) && sameLanguageAndScript(canonicalOrNull(s)!, base)) return s;
  return null;
}

function canonicalOrNull(s: string): string | null {
  try {
    return normalizeLanguage(s);
  } catch {
    return null;
  }
}

/** The entry's value in the import's language: xcstrings by its spelling, any other file its one target value. */
function targetOf(e: CatalogEntry, file: ImportFile, srcSpelling: string | null): CatalogValue | undefined {
  if (REGISTRY[file.format].multiLanguage) {
    for (const [s, v] of Object.entries(e.values)) if (canonicalOrNull(s) === file.lang) return v;
    return undefined;
  }
  const values = Object.entries(e.values).filter(([s]) => s !== srcSpelling);
  return values.length ? values[0][1] : undefined;
}

/** The entry's source text as the file has it (to match keys by source): its source value, or a PO msgid. */
function sourceTextOf(e: CatalogEntry, format: FormatId, srcSpelling: string | null): string | null {
  const v = srcSpelling ? own(e.values, srcSpelling) : undefined;
  if (v) return v.kind === 'text' ? v.text : null;
  return format === 'po' ? e.fileKey : null;
}

/** Formats whose renderers write ICU arguments as printf specifiers (packages/core/src/printf.ts). */
const PRINTF_FORMATS = new Set<FormatId>(['android_xml', 'ios_strings', 'xcstrings']);

/**
 * The value as one ICU message: a plural's forms under the plural argument the key's source names (a file names its
 * own, or none), gettext's numbered forms (translate-toolkit's plural groups) as the language's categories. A printf
 * file's specifiers (Android, Apple `.strings` and `.xcstrings`) become the source's ICU arguments again when the source has ICU
 * arguments and no printf of its own (a project whose sources came in as printf keeps the file's text as it is).
 * Null: a plural key given one text (a `.strings` file holds a plural's `other` form; its forms are elsewhere).
 */
function icuOf(
  v: CatalogValue,
  key: KeyRow,
  lang: string,
  meta: Record<string, unknown> | undefined,
  format: FormatId,
): string | null {
  const sourcePlural = icuToForms(key.source);
  const arg = sourcePlural?.arg ?? (v.kind === 'plural' ? v.arg : undefined) ?? 'count';
  const printf = PRINTF_FORMATS.has(format) && !printfSpecifiers(key.source).length;
  const order = printf ? argOrder(key.source) : [];
  // gettext and ARB files write a plural's `#` as `{count}` (formats/po.ts, formats/arb.ts): read it back as `#`
  // where the source's forms use `#`, so a round trip gives the value it started from.
  const gettext = format === 'po' || format === 'arb' || typeof meta?.gettextPlural === 'number';
  const braceCount = gettext && sourcePlural !== null && key.source.includes('#');
  const conv = (text: string, pound?: string) =>
    order.length ? printfToIcu(text, order, pound) : braceCount && pound ? text.split(`{${pound}}`).join('#') : text;
  if (v.kind === 'text') {
    const text = conv(v.text);
    const forms = sourcePlural ? icuToForms(text) : null;
    if (sourcePlural && !forms) return null;
    if (!braceCount || !forms) return text;
    // An ARB plural is ICU whose forms show the count as `{count}`.
    const pounded: Record<string, string> = {};
    for (const [k, f] of Object.entries(forms.forms)) pounded[k] = f.split(`{${forms.arg}}`).join('#');
    return formsToIcu(pounded, forms.arg);
  }
  const numbered = typeof meta?.gettextPlural === 'number' ? meta.gettextPlural : null;
  const cats = numbered === null ? null : categoriesFor(lang, numbered);
  const forms: Record<string, string> = {};
  for (const [k, text] of Object.entries(v.forms)) forms[cats ? (cats[Number(k)] ?? `=${k}`) : k] = conv(text, arg);
  return formsToIcu(forms, arg);
}

/** One cell the file carries: the key it matched and the value as ICU. */
interface Carried {
  key: KeyRow;
  value: string;
}

interface ImportPlan {
  lang: string;
  writes: Array<Carried & { action: 'created' | 'updated' }>;
  conflicts: ImportConflict[];
  /** The cells of conflicts kept over the file's value, by key id: the file's value waits on them. */
  kept: Array<{ keyId: number; fileValue: string }>;
  unchanged: number;
  unknown: string[];
  /** Plural keys the file gives one text (icuOf). */
  skippedShape: number;
}

type KeyRowWithCtx = KeyRow & { ctx: string | null };

/** Reads the project's keys (of the namespace), matches the file's entries to them, and classifies each cell. */
export async function planImport(db: Db, project: ProjectRow, body: ImportRequest): Promise<ImportPlan> {
  const live = await listLanguages(db, project.id);
  const file = readImportFile(body, project, new Set(live.map((l) => l.code)));
  const { catalog, lang } = file;
  const keys = await readInSlices<KeyRowWithCtx>('id', () =>
    db('keys')
      .where({ project_id: project.id, namespace: body.namespace ?? DEFAULT_NAMESPACE })
      .select('id', 'name', 'source', 'forms', 'ctx', 'file_key', 'enabled'),
  );
  const byName = new Map(keys.map((k) => [k.name, k]));
  const byFileKey = new Map<string, KeyRowWithCtx>();
  for (const k of keys) if (k.file_key != null && !byFileKey.has(k.file_key)) byFileKey.set(k.file_key, k);
  // Source texts held by exactly one key (by ctx too): a match by text is only taken when it is unambiguous.
  const bySource = new Map<string, KeyRowWithCtx | null>();
  for (const k of keys) {
    const id = JSON.stringify([k.ctx ?? null, k.source]);
    bySource.set(id, bySource.has(id) ? null : k);
  }
  const srcSpelling = sourceSpelling(catalog, project.base_lang);

  const carried = new Map<number, Carried>();
  const unknown: string[] = [];
  let skippedShape = 0;
  for (const e of catalog.entries) {
    const v = targetOf(e, file, srcSpelling);
    if (!v || (v.state !== undefined && NOT_DONE.has(v.state))) continue;
    const noteName = e.comment?.split('\n')[0];
    const sourceText = sourceTextOf(e, file.format, srcSpelling);
    const key =
      byName.get(e.fileKey) ??
      byName.get(canonicalKey(e.fileKey)) ??
      byFileKey.get(e.fileKey) ??
      (noteName ? byName.get(noteName) : undefined) ??
      (sourceText !== null ? (bySource.get(JSON.stringify([e.ctx ?? null, sourceText])) ?? undefined) : undefined) ??
      (sourceText !== null && e.ctx === undefined
        ? (bySource.get(JSON.stringify([null, sourceText])) ?? undefined)
        : undefined);
    if (!key) {
      unknown.push(e.fileKey);
      continue;
    }
    const value = icuOf(v, key, lang, e.meta, file.format);
    if (value === null) {
      skippedShape++;
      continue;
    }
    // Values are non-empty ICU messages, as a sync's (catalog/file.ts): markup is the publish gate's to judge.
    if (value === '' || !isValidIcu(value, 'text'))
      throw invalidArgument(`${e.fileKey} [${lang}]: values must be non-empty ICU message strings.`);
    const seen = carried.get(Number(key.id));
    if (seen && seen.value !== value)
      throw invalidArgument(`${e.fileKey}: the file gives ${key.name} two different values.`);
    carried.set(Number(key.id), { key, value });
  }

  const stored = await cellStates(db, [...carried.keys()], [lang]);
  const plan: ImportPlan = { lang, writes: [], conflicts: [], kept: [], unchanged: 0, unknown, skippedShape };
  for (const [id, c] of carried) {
    const r = stored.get(`${id}|${lang}`)?.row;
    if (!r || r.status === 'pending' || r.value == null) {
      plan.writes.push({ ...c, action: 'created' });
      continue;
    }
    if (r.value === c.value) {
      plan.unchanged++;
      continue;
    }
    const signedOff = r.status === 'reviewed' || r.status === 'approved';
    if (r.origin === 'import' && !signedOff) {
      plan.writes.push({ ...c, action: 'updated' });
      continue;
    }
    const overwrite = body.onConflict === 'file';
    plan.conflicts.push({
      key: c.key.name,
      lang,
      resolution: overwrite ? 'overwritten' : 'kept',
      storedStatus: r.status as ImportConflict['storedStatus'],
      storedValue: r.value,
      fileValue: c.value,
    });
    if (overwrite) plan.writes.push({ ...c, action: 'updated' });
    else plan.kept.push({ keyId: id, fileValue: c.value });
  }
  return plan;
}

export function importResult(plan: ImportPlan): ImportResult {
  const created = plan.writes.filter((w) => w.action === 'created').length;
  return {
    created,
    updated: plan.writes.length - created,
    unchanged: plan.unchanged,
    skippedUnknownKeys: plan.unknown.length,
    ...(plan.unknown.length ? { unknownKeys: plan.unknown.slice(0, MAX_ROWS) } : {}),
    ...(plan.skippedShape ? { skippedShape: plan.skippedShape } : {}),
    changes: plan.writes.slice(0, MAX_ROWS).map((w) => ({ key: w.key.name, lang: plan.lang, action: w.action })),
    changesTotal: plan.writes.length,
    conflicts: plan.conflicts.slice(0, MAX_ROWS),
    conflictsTotal: plan.conflicts.length,
  };
}

/** Writes the plan: the imported values (origin `import`), their history, and the file's value on kept conflicts. */
export async function applyImport(trx: Db, project: ProjectRow, plan: ImportPlan): Promise<void> {
  const now = Date.now();
  const cells = plan.writes.map((w) => ({ keyId: Number(w.key.id), lang: plan.lang, value: w.value }));
  await writeImported(trx, project.id, cells, 'import', now);
  await rememberCells(trx, project, cells);
  // A value the import kept over the file's: the file's waits on the cell for a person (the key list's filter).
  for (const k of plan.kept)
    await trx('translations').where({ key_id: k.keyId, lang: plan.lang }).update({ conflict_value: k.fileValue });
  if (plan.writes.length) await contentChanged(trx, project.id, now);
}
