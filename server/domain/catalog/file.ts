// Reading the file a sync sends: base64, size, UTF-8, format detection against the declared format, parse,
// entry limit, declared language, ICU syntax of every value. Every refusal here happens before any write.
import { FormatError, type Catalog, type CatalogValue, type FormatId } from '../../../packages/core/src/catalog.js';
import { detectFormat, getFormat, REGISTRY } from '../../../packages/core/src/formats/index.js';
import { isValidIcu } from '../../../packages/core/src/icu.js';
import { sameLanguageAndScript } from '../../../packages/core/src/languages.js';
import { normalizeLanguage } from '../project/languages.js';
import { Refusal, invalidArgument } from '../../infra/errors.js';

const MAX_DECODED = 2 * 1024 * 1024;
const MAX_ENTRIES = 1000;

export function decode(contentBase64: string): string {
  const compact = contentBase64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
    throw new Refusal('invalid_base64', 'contentBase64 is not valid base64.');
  }
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.length > MAX_DECODED)
    throw new Refusal('payload_too_large', `The decoded file is larger than ${MAX_DECODED} bytes.`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw invalidArgument('The file is not valid UTF-8.');
  }
}

export function valueIcuOk(v: CatalogValue): boolean {
  const texts = v.kind === 'text' ? [v.text] : Object.values(v.forms);
  // Markup is checked at publish; here only the ICU syntax (tags such as <1>…</1> are text).
  return (
    texts.every((t) => typeof t === 'string' && t !== '' && isValidIcu(t, 'text')) &&
    (v.kind === 'text' || Object.hasOwn(v.forms, 'other'))
  );
}

interface SyncFile {
  format: FormatId;
  catalog: Catalog;
}

export function readSyncFile(
  body: { contentBase64: string; format?: string; fileName?: string; namespace?: string },
  baseLang: string,
): SyncFile {
  const text = decode(body.contentBase64);
  const detected = detectFormat(text, body.fileName);
  const declared = body.format as FormatId | undefined;
  // A declared format only has to be able to hold the content (a flat file is also valid nested_json).
  if (declared && getFormat(declared).detect(text, body.fileName) === 0) {
    throw new Refusal('format_mismatch', `The file is ${detected ?? 'not recognized'}, not ${declared}.`);
  }
  const format = declared ?? detected;
  // A sync naming its namespace owns that namespace whole, so any base-language file the service renders is its
  // catalog (spec: SyncRequest.namespace); without one only the formats that were always syncable are.
  if (!format || !(REGISTRY[format].syncable || body.namespace !== undefined)) {
    throw new Refusal(
      'format_not_syncable',
      `${format ?? 'This file'} cannot be synced: send an xcstrings catalog or a base-language json, nested_json or angular_json file${format ? `, or name the namespace it is the whole catalog of (then any base-language ${format} file is syncable)` : ''}.`,
    );
  }
  let catalog: Catalog;
  try {
    catalog = getFormat(format).parse(text);
  } catch (err) {
    if (err instanceof FormatError) throw new Refusal(err.code, err.message);
    throw invalidArgument(`The file is not a valid ${format} file.`);
  }
  if (catalog.entries.length > MAX_ENTRIES)
    throw new Refusal('too_many_entries', `The file has ${catalog.entries.length} entries; at most ${MAX_ENTRIES}.`);
  const declaredLang = catalog.sourceLanguage ?? null;
  if (declaredLang !== null) {
    let code: string;
    try {
      code = normalizeLanguage(declaredLang);
    } catch {
      throw new Refusal('source_language_mismatch', `"${declaredLang}" is not a language code.`);
    }
    if (!sameLanguageAndScript(code, baseLang))
      throw new Refusal(
        'source_language_mismatch',
        `The file's language is ${declaredLang}; the project's base language is ${baseLang}.`,
      );
  }
  for (const e of catalog.entries) {
    for (const [lang, v] of Object.entries(e.values)) {
      if (!valueIcuOk(v))
        throw invalidArgument(`${e.fileKey} [${lang}]: values must be non-empty ICU message strings.`);
    }
  }
  return { format, catalog };
}
