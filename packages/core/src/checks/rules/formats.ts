// What the configured output formats ask of a value and of a key's name. The renderers escape a value for its file
// (packages/core/src/formats): an escape typed into the value is escaped again and shows as a backslash, and a name a
// platform cannot take is renamed, which the app's code must then use.
import { arbName } from '../../formats/arb.js';
import { resourceName } from '../../formats/android_xml.js';
import { define } from '../define.js';
import { rawSpans } from '../text.js';
import type { Finding } from '../types.js';

const ANDROID_ESCAPE = /\\['"@?]/g;
const REFERENCE =
  /^(?:@(?:[a-z]+:)?(?:string|plurals|array|color|dimen|drawable|style|id)\/|\?(?:[a-z]+:)?attr\/|\?android:)/;

export const androidEscapes = define({
  id: 'android-escapes',
  description:
    'No Android escape typed into the value (`\\\'`, `\\"`, `\\@`, `\\?`): strings.xml is escaped by the renderer, so they show as backslashes; no value that reads as a resource reference.',
  severity: 'warning',
  category: 'formats',
  field: 'target',
  formats: ['android_xml'],
  languages: 'All languages, when android_xml is an output format.',
  trips: [
    { source: "Don't panic", target: "N\\'aie pas peur", targetLang: 'fr', formats: ['android_xml'] },
    { source: 'Title', target: '@string/title', formats: ['android_xml'] },
  ],
  passes: [
    { source: "Don't panic", target: "N'aie pas peur", targetLang: 'fr', formats: ['android_xml'] },
    { source: '@username mentioned you', target: '@username hat dich erwähnt', formats: ['android_xml'] },
  ],
  run: (cell): Finding | null => {
    const spans = rawSpans(cell.target, ANDROID_ESCAPE).filter(
      (s) => !cell.source.includes(cell.target.slice(s.start, s.end)),
    );
    if (spans.length)
      return { message: 'Android escapes typed into the value (the renderer escapes it for strings.xml)', spans };
    if (REFERENCE.test(cell.target) && !REFERENCE.test(cell.source))
      return {
        message: 'reads as an Android resource reference; the renderer escapes the @ or ?, so the app shows it as text',
      };
    return null;
  },
});

const LITERAL_ESCAPE = /\\[ntr]|\\u[0-9a-fA-F]{4}/g;

export const literalEscapes = define({
  id: 'literal-escapes',
  description:
    'No `\\n`, `\\t` or `\\uXXXX` typed as text where the source has none: every format writes a real line break or character as its own escape.',
  severity: 'warning',
  category: 'formats',
  field: 'target',
  languages: 'All languages and formats.',
  trips: [{ source: 'First line\nSecond line', target: 'Erste Zeile\\nZweite Zeile' }],
  passes: [
    { source: 'First line\nSecond line', target: 'Erste Zeile\nZweite Zeile' },
    { source: 'Type \\n for a new line', target: 'Tippe \\n für eine neue Zeile' },
  ],
  run: (cell): Finding | null => {
    if (!cell.target.includes('\\')) return null;
    const spans = rawSpans(cell.target, LITERAL_ESCAPE).filter(
      (s) => !cell.source.includes(cell.target.slice(s.start, s.end)),
    );
    return spans.length ? { message: 'escape sequences typed as text', spans } : null;
  },
});

const ENTITY = /&(?:[a-zA-Z][a-zA-Z0-9]{1,31}|#\d{1,7}|#x[0-9a-fA-F]{1,6});/g;

export const entities = define({
  id: 'entities',
  description:
    'No HTML or XML entity (`&amp;`, `&#39;`, `&nbsp;`) the source does not have: the value is text, and renderers escape it.',
  severity: 'warning',
  category: 'formats',
  field: 'target',
  languages: 'All languages and formats; an entity the source has (it is HTML) may be kept.',
  trips: [{ source: 'Terms & conditions', target: 'AGB &amp; Bedingungen' }],
  passes: [
    { source: '&copy; Copyright', target: '&copy; Copyright' },
    { source: 'Terms & conditions', target: 'AGB & Bedingungen' },
  ],
  run: (cell): Finding | null => {
    if (!cell.target.includes('&')) return null;
    const spans = rawSpans(cell.target, ENTITY).filter((s) => !cell.source.includes(cell.target.slice(s.start, s.end)));
    return spans.length
      ? { message: `entities in the text: ${spans.map((s) => cell.target.slice(s.start, s.end)).join(' ')}`, spans }
      : null;
  },
});

export const keyAndroid = define({
  id: 'key-android',
  description:
    'An Android resource name is a Java identifier (`[A-Za-z0-9_]`, not starting with a digit); another key is renamed.',
  severity: 'info',
  category: 'keys',
  field: 'key',
  formats: ['android_xml'],
  languages: 'Not language-specific.',
  trips: [{ source: 'Settings', key: 'settings.title', formats: ['android_xml'] }],
  passes: [{ source: 'Settings', key: 'settings_title', formats: ['android_xml'] }],
  run: (cell) => {
    const name = resourceName(cell.key);
    return name === cell.key ? null : { message: `written as ${name} in strings.xml (R.string.${name})` };
  },
});

export const keyArb = define({
  id: 'key-arb',
  description:
    'An ARB key is a Dart identifier in lower camel case; another key is renamed for the generated `AppLocalizations`.',
  severity: 'info',
  category: 'keys',
  field: 'key',
  formats: ['arb'],
  languages: 'Not language-specific.',
  trips: [{ source: 'Settings', key: 'settings.title', formats: ['arb'] }],
  passes: [{ source: 'Settings', key: 'settingsTitle', formats: ['arb'] }],
  run: (cell) => {
    const name = arbName(cell.key);
    return name === cell.key ? null : { message: `written as ${name} in the .arb file (AppLocalizations.${name})` };
  },
});

export const keyNestedJson = define({
  id: 'key-nested-json',
  description:
    'A nested JSON key has no empty segment (`a..b`, a leading or trailing dot): each segment is an object key.',
  severity: 'warning',
  category: 'keys',
  field: 'key',
  formats: ['nested_json'],
  languages: 'Not language-specific.',
  trips: [{ source: 'Settings', key: 'settings..title', formats: ['nested_json'] }],
  passes: [{ source: 'Settings', key: 'settings.title', formats: ['nested_json'] }],
  run: (cell) =>
    cell.key.split('.').some((s) => s === '')
      ? { message: 'an empty segment: the file nests it under a key named ""' }
      : null,
});

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const KEY_INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

export const keyCharacters = define({
  id: 'key-characters',
  description:
    'A key has no leading or trailing whitespace and no control or invisible character (it is typed in code).',
  severity: 'warning',
  category: 'keys',
  field: 'key',
  languages: 'Not language-specific.',
  trips: [
    { source: 'Settings', key: 'settings.title ' },
    { source: 'Settings', key: 'settings\u200b.title' },
  ],
  passes: [{ source: 'Settings', key: 'settings.title' }],
  run: (cell): Finding | null => {
    if (cell.key !== cell.key.trim()) return { message: 'leading or trailing whitespace' };
    const spans = rawSpans(cell.key, KEY_INVISIBLE);
    return spans.length ? { message: 'control or invisible characters', spans } : null;
  },
});
