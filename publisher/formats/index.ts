// The format registry: one module per file format, and detection by content first, file name second.
import type { FormatId, FormatModule } from '../catalog.js';
import { format as json } from './json.js';
import { format as nestedJson } from './nested_json.js';
import { format as angularJson } from './angular_json.js';
import { format as xcstrings } from './xcstrings.js';
import { format as androidXml } from './android_xml.js';
import { format as po } from './po.js';
import { format as arb } from './arb.js';
import { format as iosStrings } from './ios_strings.js';

export const FORMATS: Record<FormatId, FormatModule> = {
  json,
  nested_json: nestedJson,
  angular_json: angularJson,
  ios_strings: iosStrings,
  xcstrings,
  android_xml: androidXml,
  arb,
  po,
};

// On equal confidence the more specific shape wins (an Angular file is also a nested JSON file).
const PRIORITY: FormatId[] = ['xcstrings', 'angular_json', 'arb', 'android_xml', 'po', 'ios_strings', 'json', 'nested_json'];

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

export { FormatError } from '../catalog.js';
