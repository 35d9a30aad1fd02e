// Importing a termbase file (spec: `importTerms`): decode, detect the format, parse (packages/core/src/formats/tbx.ts,
// terms-csv.ts, which refuse hostile files), map the file's languages to the project's, then write every entry in
// one transaction: all or nothing. An entry is matched to a stored term by its identity (store.ts identityOf); a
// match takes what the file carries, the file's translations replacing those languages, and keeps the rest.
import { parseTermsCsv } from '../../../packages/core/src/formats/terms-csv.js';
import { parseTbx } from '../../../packages/core/src/formats/tbx.js';
import { TermFileError, type TermEntry } from '../../../packages/core/src/terms/entry.js';
import { canonicalLanguage, sameLanguageAndScript } from '../../../packages/core/src/languages.js';
import type { Db } from '../../infra/db.js';
import { bool } from '../../infra/db.js';
import { Refusal } from '../../infra/errors.js';
import type { ProjectRow, TermRow } from '../../infra/tables.js';
import { listLanguages } from '../project/projects.js';
import {
  identityOf,
  newTermRow,
  translationsOf,
  visibleTerms,
  writeTerm,
  type TermFields,
  type TermScope,
  type TermWriteHook,
} from './store.js';

/** The largest decoded file (the route's body limit leaves room for its base64). */
const MAX_DECODED = 5 * 1024 * 1024;

interface TermImportRequest {
  contentBase64: string;
  format?: 'csv' | 'tbx';
  fileName?: string;
  scope?: TermScope;
}

function decode(contentBase64: string): Uint8Array {
  const compact = contentBase64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1)
    throw new Refusal('invalid_base64', 'contentBase64 is not valid base64.');
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.length > MAX_DECODED)
    throw new Refusal('payload_too_large', `The decoded file is larger than ${MAX_DECODED} bytes.`);
  return bytes;
}

/** The declared format, else the file name's extension, else what the bytes start with (`<`: XML, so TBX). */
function formatOf(req: TermImportRequest, bytes: Uint8Array): 'csv' | 'tbx' {
  if (req.format) return req.format;
  const ext = /\.([a-z]+)$/i.exec(req.fileName ?? '')?.[1]?.toLowerCase();
  if (ext === 'tbx' || ext === 'xml') return 'tbx';
  if (ext === 'csv' || ext === 'tsv' || ext === 'txt') return 'csv';
  const head = new TextDecoder('utf-8').decode(bytes.subarray(0, 64)).replace(/^\uFEFF/, '');
  return /^\s*</.test(head) || (bytes[0] === 0xff && bytes[1] === 0xfe) ? 'tbx' : 'csv';
}

/** A file's language (`en-US`, `pt_BR`) is a project's when it is the same, or the same language and script where one names no region. */
function sameAs(fileLang: string, lang: string): boolean {
  const c = canonicalLanguage(fileLang);
  if (c === null) return false;
  if (c === lang) return true;
  const noRegion = (x: string) => !new Intl.Locale(x).region;
  return (noRegion(c) || noRegion(lang)) && sameLanguageAndScript(c, lang);
}

const refused = (e: TermFileError) =>
  new Refusal(e.code === 'too_large' ? 'payload_too_large' : e.code, `The file was refused: ${e.message}.`);

/** The file read and checked: entries with their translations' languages as stored. Throws a Refusal. */
async function readFile(db: Db, project: ProjectRow, req: TermImportRequest) {
  const bytes = decode(req.contentBase64);
  const format = formatOf(req, bytes);
  const isSource = (lang: string) => sameAs(lang, project.base_lang);
  let parsed: {
    entries: TermEntry[];
    skipped: number;
    languages: string[];
    layout?: 'glossa' | 'crowdin' | 'languages';
  };
  try {
    parsed =
      format === 'tbx'
        ? parseTbx(bytes, { isSource, maxBytes: MAX_DECODED })
        : parseTermsCsv(bytes, { isSource, maxBytes: MAX_DECODED });
  } catch (e) {
    if (e instanceof TermFileError) throw refused(e);
    throw e;
  }
  if (!parsed.entries.length && parsed.skipped)
    throw new Refusal(
      'language_mismatch',
      `The file was refused: none of its ${parsed.skipped} entries has a term in the project's base language ${project.base_lang}.`,
    );
  // Each language of the file as stored: a project term's into a target language of the project.
  const scope = req.scope ?? 'project';
  const targets = (await listLanguages(db, project.id)).map((l) => l.code);
  const stored = new Map<string, string>();
  for (const lang of parsed.languages) {
    const canonical = canonicalLanguage(lang);
    if (canonical === null)
      throw new Refusal('invalid_argument', `The file was refused: ${JSON.stringify(lang)} is not a language code.`);
    if (scope === 'workspace') {
      stored.set(lang, canonical);
      continue;
    }
    const target = targets.find((t) => t === canonical) ?? targets.find((t) => sameAs(lang, t));
    if (!target)
      throw new Refusal(
        'language_mismatch',
        `The file was refused: its translations into ${JSON.stringify(lang)} are into no language of the project (${targets.join(', ') || 'none'}); import them as workspace terms, or add the language first.`,
      );
    stored.set(lang, target);
  }
  const entries = parsed.entries.map((e) => {
    const translations: Record<string, string> = {};
    for (const [lang, text] of Object.entries(e.translations)) {
      const code = stored.get(lang)!;
      if (!Object.hasOwn(translations, code)) translations[code] = text;
    }
    return { ...e, translations };
  });
  return { format, layout: parsed.layout, entries, skipped: parsed.skipped, scope };
}

/** Whether writing `e` over `row` (with `current` translations) would change anything. */
function changes(row: TermRow, current: Record<string, string>, e: TermEntry): boolean {
  const differs = <T>(given: T | undefined, stored: T) => given !== undefined && given !== stored;
  if (e.description && e.description.trim() !== row.description) return true;
  if (e.partOfSpeech && e.partOfSpeech !== row.part_of_speech) return true;
  if (differs(e.nonTranslatable, bool(row.non_translatable))) return true;
  if (differs(e.caseSensitive, bool(row.case_sensitive))) return true;
  if (differs(e.abbreviation, bool(row.abbreviation))) return true;
  if (e.text.trim() !== row.text) return true;
  return Object.entries(e.translations).some(([lang, text]) => current[lang] !== text);
}

export async function importTerms(db: Db, project: ProjectRow, req: TermImportRequest, onWrite?: TermWriteHook) {
  const file = await readFile(db, project, req);
  const counts = { created: 0, updated: 0, unchanged: 0 };
  // The texts of what the import created or changed, old and new: what the write hook is given.
  const touched = new Set<string>();
  await db.transaction(async (trx) => {
    const stored = await visibleTerms(trx, project, file.scope);
    const byIdentity = new Map(stored.map((r) => [r.identity, r]));
    const now = Date.now();
    const inserts: TermRow[] = [];
    const translationInserts: Array<{ term_id: string; lang: string; text: string }> = [];
    for (const e of file.entries) {
      const identity = identityOf(e.text, e.description?.trim() || null, e.forbidden ?? false);
      const row = byIdentity.get(identity);
      if (!row) {
        const fresh = newTermRow(project, file.scope, e, now);
        byIdentity.set(identity, fresh);
        inserts.push(fresh);
        touched.add(fresh.text);
        for (const [lang, text] of Object.entries(e.translations))
          translationInserts.push({ term_id: fresh.id, lang, text });
        counts.created++;
        continue;
      }
      if (inserts.includes(row)) continue; // the same entry twice in one file: the first one stands
      const current = (await translationsOf(trx, [row.id])).get(row.id)!;
      if (!changes(row, current, e)) {
        counts.unchanged++;
        continue;
      }
      const change: Partial<TermFields> = {
        text: e.text,
        translations: { ...current, ...e.translations },
        ...(e.description ? { description: e.description } : {}),
        ...(e.partOfSpeech ? { partOfSpeech: e.partOfSpeech } : {}),
        ...(e.nonTranslatable !== undefined ? { nonTranslatable: e.nonTranslatable } : {}),
        ...(e.caseSensitive !== undefined ? { caseSensitive: e.caseSensitive } : {}),
        ...(e.abbreviation !== undefined ? { abbreviation: e.abbreviation } : {}),
      };
      const written = await writeTerm(trx, row, change, current, now);
      touched.add(row.text).add(written.row.text);
      byIdentity.set(identity, written.row);
      counts.updated++;
    }
    for (let i = 0; i < inserts.length; i += 200) await trx('terms').insert(inserts.slice(i, i + 200));
    for (let i = 0; i < translationInserts.length; i += 400)
      await trx('term_translations').insert(translationInserts.slice(i, i + 400));
    if (touched.size) await onWrite?.(trx, file.scope, [...touched]);
  });
  return {
    format: file.format,
    ...(file.layout ? { layout: file.layout } : {}),
    entries: file.entries.length,
    ...counts,
    skipped: file.skipped,
  };
}
