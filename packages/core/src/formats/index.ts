// The format registry: every file format the service reads or writes, what it is, and its module. Everything
// that needs to know a format's extension, content type or nature reads it here. The ids are the spec's
// `OutputFormatId` (FormatId in catalog.ts), so a format added to the contract fails tsc until it is registered.
import type { FormatId, FormatModule } from '../catalog.js';
import { format as json } from './json.js';
import { format as nestedJson } from './nested_json.js';
import { format as angularJson } from './angular_json.js';
import { format as xcstrings } from './xcstrings.js';
import { format as androidXml } from './android_xml.js';
import { format as po } from './po.js';
import { format as arb } from './arb.js';
import { format as iosStrings, renderStringsdict } from './ios_strings.js';
import { xliff12, xliff20 } from './xliff.js';
import { bcp47, platformLocale } from '../languages.js';

interface FormatInfo {
  module: FormatModule;
  /** The file name's extension in delivery object names (`<format>.<lang>.<hash>.<extension>`). */
  extension: string;
  /** The Content-Type a rendered file is served and pulled with. */
  contentType: string;
  /** syncCatalog takes it as the project's whole catalog (else `400 format_not_syncable`). */
  syncable: boolean;
  /** Two keys can collapse to one name in it (publishVersion's `409 export_collision`; packages/core/src/collisions.ts). */
  lossy: boolean;
  /** One file holds every language (rendered once per version), not one file per language. */
  multiLanguage: boolean;
  /** Values carry the cell's status as their state (snapshot.ts): a bilingual exchange file says what is done. */
  states?: true;
  /**
   * Where the platform keeps a language's file (`values-pt-rBR/strings.xml`, `pt-BR.lproj/Localizable.strings`):
   * the file name a pull announces and the path in an export. `isBase`: Android's base file has no qualifier.
   */
  path: (lang: string, isBase: boolean) => string;
  /**
   * A second file the platform reads beside each language's file, rendered from the same catalog: Apple's
   * `.stringsdict`, which holds the plurals `.strings` cannot. Pulled with `part=<name>`, delivered beside the file.
   */
  companion?: {
    name: 'stringsdict';
    extension: string;
    contentType: string;
    path: (lang: string) => string;
    render: FormatModule['render'];
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';
/** The media type IANA registered for XLIFF (both versions). */
const XLIFF_TYPE = 'application/xliff+xml; charset=utf-8';

export const REGISTRY: { readonly [F in FormatId]: FormatInfo } = {
  json: {
    module: json,
    extension: 'json',
    contentType: JSON_TYPE,
    syncable: true,
    lossy: false,
    multiLanguage: false,
    path: (lang) => `locales/${bcp47(lang)}.json`,
  },
  nested_json: {
    module: nestedJson,
    extension: 'json',
    contentType: JSON_TYPE,
    syncable: true,
    lossy: true,
    multiLanguage: false,
    path: (lang) => `locales/${bcp47(lang)}.json`,
  },
  angular_json: {
    module: angularJson,
    extension: 'json',
    contentType: JSON_TYPE,
    syncable: true,
    lossy: false,
    multiLanguage: false,
    path: (lang) => `locale/messages.${bcp47(lang)}.json`,
  },
  ios_strings: {
    module: iosStrings,
    extension: 'strings',
    contentType: 'text/plain; charset=utf-8',
    syncable: false,
    lossy: false,
    multiLanguage: false,
    path: (lang) => `${platformLocale(lang, 'apple')}.lproj/Localizable.strings`,
    companion: {
      name: 'stringsdict',
      extension: 'stringsdict',
      contentType: 'application/x-plist; charset=utf-8',
      path: (lang) => `${platformLocale(lang, 'apple')}.lproj/Localizable.stringsdict`,
      render: renderStringsdict,
    },
  },
  xcstrings: {
    module: xcstrings,
    extension: 'xcstrings',
    contentType: JSON_TYPE,
    syncable: true,
    lossy: false,
    multiLanguage: true,
    path: () => 'Localizable.xcstrings',
  },
  android_xml: {
    module: androidXml,
    extension: 'xml',
    contentType: 'application/xml; charset=utf-8',
    syncable: false,
    lossy: true,
    multiLanguage: false,
    path: (lang, isBase) => (isBase ? 'values/strings.xml' : `values-${platformLocale(lang, 'android')}/strings.xml`),
  },
  arb: {
    module: arb,
    extension: 'arb',
    contentType: JSON_TYPE,
    syncable: false,
    lossy: true,
    multiLanguage: false,
    path: (lang) => `app_${platformLocale(lang, 'posix')}.arb`,
  },
  po: {
    module: po,
    extension: 'po',
    contentType: 'text/x-gettext-translation; charset=utf-8',
    syncable: false,
    lossy: true,
    multiLanguage: false,
    path: (lang) => `${platformLocale(lang, 'posix')}/LC_MESSAGES/messages.po`,
  },
  // XLIFF for translation agencies and CAT tools: one language pair per file (formats/xliff.ts).
  xliff12: {
    module: xliff12,
    extension: 'xlf',
    contentType: XLIFF_TYPE,
    syncable: false,
    lossy: false,
    multiLanguage: false,
    states: true,
    path: (lang) => `xliff/${bcp47(lang)}.xlf`,
  },
  xliff20: {
    module: xliff20,
    extension: 'xlf',
    contentType: XLIFF_TYPE,
    syncable: false,
    lossy: false,
    multiLanguage: false,
    states: true,
    path: (lang) => `xliff2/${bcp47(lang)}.xlf`,
  },
};

export const FORMAT_IDS = Object.keys(REGISTRY) as FormatId[];

/** Each format's module, for code that only parses or renders. */
export const FORMATS = Object.fromEntries(FORMAT_IDS.map((id) => [id, REGISTRY[id].module])) as Record<
  FormatId,
  FormatModule
>;

// On equal confidence the more specific shape wins (an Angular file is also a nested JSON file).
const PRIORITY: FormatId[] = [
  'xliff20',
  'xliff12',
  'xcstrings',
  'angular_json',
  'arb',
  'android_xml',
  'po',
  'ios_strings',
  'json',
  'nested_json',
];

/** The format `text` most likely is (the file name only breaks ties and rescues malformed files), or null. */
export function detectFormat(text: string, fileName?: string): FormatId | null {
  let best: FormatId | null = null;
  let bestScore = 0;
  for (const id of PRIORITY) {
    const score = FORMATS[id].detect(text, fileName);
    if (score > bestScore) {
      best = id;
      bestScore = score;
    }
  }
  return best;
}

export function getFormat(id: FormatId): FormatModule;
export function getFormat(id: string): FormatModule | null;
export function getFormat(id: string): FormatModule | null {
  return Object.hasOwn(FORMATS, id) ? FORMATS[id as FormatId] : null;
}
