// Pull never destroys local work (docs/decisions/0017-pull-keeps-local-work.md): before `pull` writes a version's
// files over the repository's, it
// - keeps the languages a local `.xcstrings` has and the project does not (one file holds every language, so the
//   project's rendering alone would delete them), and says which;
// - refuses to overwrite a local translation file that holds values the project has never seen (not in the version
//   being pulled, nor in the version the CLI last pulled, `.glossa/state.json`), naming the keys, unless `--force`.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { isTranslatable, type Catalog, type CatalogValue, type FormatId } from '../../core/src/catalog.js';
import { withoutResources } from '../../core/src/formats/android_xml.js';
import { REGISTRY } from '../../core/src/formats/index.js';
import { catalogLanguages, keepLocalLanguages } from '../../core/src/formats/xcstrings.js';
import { languageKey } from '../../core/src/languages.js';
import type { FileMapping } from './config.js';
import { CliError, EXIT } from './errors.js';
import type { Output } from './output.js';

/** A file `pull` is about to write: where, what, and for a language file its format and the project's language. */
export interface PlannedFile {
  dest: string;
  bytes: Uint8Array;
  format?: FormatId;
  lang?: string;
  /** The mapping's namespace (absent: the default one). */
  namespace?: string;
}

const utf8 = (b: Uint8Array) => Buffer.from(b).toString('utf8');

function readLocal(dest: string): string | null {
  try {
    return existsSync(dest) ? readFileSync(dest, 'utf8') : null;
  } catch {
    return null;
  }
}

/**
 * A pulled `.xcstrings` with the local file's localizations in languages outside `languages` (the version's), and a
 * warning naming them: they stay in the repository, untouched and not translated by the project.
 */
export function keepXcstringsLanguages(
  out: Output,
  root: string,
  dest: string,
  bytes: Uint8Array,
  languages: readonly string[],
): Uint8Array {
  const local = readLocal(dest);
  if (local === null) return bytes;
  const merged = keepLocalLanguages(utf8(bytes), local, languages);
  if (!merged.kept.length) return bytes;
  out.note(
    `${path.relative(root, dest)}: kept ${merged.kept.join(', ')} from the local file: ${merged.kept.length === 1 ? 'it is not a language' : 'they are not languages'} of the project, so the project neither translates nor removes ${merged.kept.length === 1 ? 'it' : 'them'} (add ${merged.kept.length === 1 ? 'it' : 'them'} to the project to translate ${merged.kept.length === 1 ? 'it' : 'them'} there).`,
  );
  return Buffer.from(merged.text, 'utf8');
}

/** A file's values by key (msgctxt and key, as gettext tells two entries apart), or null when it does not parse. */
function valuesOf(format: FormatId, text: string): Map<string, CatalogValue> | null {
  let catalog: Catalog;
  try {
    catalog = REGISTRY[format].module.parse(text);
  } catch {
    return null;
  }
  const values = new Map<string, CatalogValue>();
  for (const e of catalog.entries) {
    const v = Object.values(e.values)[0];
    if (v) values.set(e.ctx ? `${e.ctx}\u0004${e.fileKey}` : e.fileKey, v);
  }
  return values;
}

/** Two values alike as their files mean them (the state, which a file may not write, left out). */
const same = (a: CatalogValue | undefined, b: CatalogValue | undefined): boolean => {
  if (!a || !b || a.kind !== b.kind) return false;
  if (a.kind === 'text' && b.kind === 'text') return a.text === b.text;
  return a.kind === 'plural' && b.kind === 'plural' && isDeepStrictEqual({ ...a.forms }, { ...b.forms });
};

const shownKey = (id: string) => id.replace('\u0004', ' | ');

const CAP = 20;

/**
 * Throws (exit 1, nothing written) when a planned language file would replace values the project has never seen,
 * naming them by file and key. A value is seen when the version being pulled, or an `earlier` one (the version the
 * CLI last pulled, else the versions before the current one; each read only while keys are left to explain), has it
 * for that key: a value a pull wrote, which the project has since replaced, may be overwritten. Keys the version no longer has are not counted (a key deleted from the base file
 * goes from its translations too), nor are multi-language files (their languages are synced with the source, and
 * keepXcstringsLanguages keeps the others).
 */
export async function refuseUnseenValues(
  root: string,
  planned: readonly PlannedFile[],
  earlier: ReadonlyArray<(format: FormatId, lang: string, namespace?: string) => Promise<Uint8Array | null>>,
): Promise<void> {
  const found: Array<{ file: string; keys: string[] }> = [];
  for (const p of planned) {
    if (!p.format || !p.lang || REGISTRY[p.format].multiLanguage) continue;
    const local = readLocal(p.dest);
    if (local === null || Buffer.compare(Buffer.from(local, 'utf8'), Buffer.from(p.bytes)) === 0) continue;
    const mine = valuesOf(p.format, local);
    const theirs = valuesOf(p.format, utf8(p.bytes));
    if (!mine || !theirs) continue;
    let keys = [...mine].filter(([k, v]) => theirs.has(k) && !same(v, theirs.get(k))).map(([k]) => k);
    for (const version of earlier) {
      if (!keys.length) break;
      const before = await version(p.format, p.lang, p.namespace);
      const was = before ? valuesOf(p.format, utf8(before)) : null;
      if (was) keys = keys.filter((k) => !same(mine.get(k), was.get(k)));
    }
    if (keys.length) found.push({ file: path.relative(root, p.dest), keys });
  }
  if (!found.length) return;
  const lines = found.map(
    (f) =>
      `  ${f.file}: ${f.keys.slice(0, CAP).map(shownKey).join(', ')}${f.keys.length > CAP ? ` and ${f.keys.length - CAP} more` : ''}`,
  );
  throw new CliError(
    EXIT.failure,
    [
      'Refusing to overwrite local translations the project has never seen (nothing was written):',
      ...lines,
      'Push them to the project first, or run `glossa pull --force` to replace them with the version.',
    ].join('\n'),
    { unseen: found },
  );
}

/**
 * The languages a multi-language source file (`.xcstrings`) holds that the project has not (`projectLanguages`, the
 * base included), as the file spells them: a push leaves them out and a pull keeps them in the file, and the push
 * says so rather than passing over them in silence.
 */
export function languagesOutsideProject(format: FormatId, text: string, projectLanguages: readonly string[]): string[] {
  if (format !== 'xcstrings') return [];
  let langs: string[];
  try {
    langs = catalogLanguages(REGISTRY[format].module.parse(text));
  } catch {
    return [];
  }
  const project = new Set(projectLanguages.map(languageKey));
  return langs.filter((l) => !project.has(languageKey(l))).sort();
}

/** Per source file: the names its base file marks `translatable="false"` (read once per pull). */
const untranslatable = new WeakMap<FileMapping, Set<string>>();

/**
 * A pulled Android file without the strings the local base file marks `translatable="false"`: they belong to the
 * base file alone, though a project may still hold them (pushed before the CLI kept them out of translation).
 */
export function baseOnlyLeftOut(
  root: string,
  out: Output,
  m: FileMapping,
  dest: string,
  bytes: Uint8Array,
): Uint8Array {
  if (m.format !== 'android_xml') return bytes;
  let names = untranslatable.get(m);
  if (!names) {
    names = new Set();
    try {
      const base = REGISTRY.android_xml.module.parse(readFileSync(path.resolve(root, m.source), 'utf8'));
      for (const e of base.entries) if (!isTranslatable(e)) names.add(e.fileKey);
    } catch {
      // No readable base file: nothing is known to be base-only.
    }
    untranslatable.set(m, names);
  }
  if (!names.size) return bytes;
  const text = utf8(bytes);
  const kept = withoutResources(text, names);
  if (kept === text) return bytes;
  out.verbose(`${path.relative(root, dest)}: left out the strings the base file marks translatable="false"`);
  return Buffer.from(kept, 'utf8');
}
