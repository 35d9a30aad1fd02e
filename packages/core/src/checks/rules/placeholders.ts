// Placeholders of the syntaxes other than ICU's and printf's that values carry as text: i18next's `{{name}}`, Python's
// `{0}` and `%(name)s`, Android's and Apple's platform rules. ICU arguments are icu-placeholders', printf
// specifiers printf-specifiers'.
import { manyNumbers } from '../../plural-coverage.js';
import { printfSpecifiers } from '../../printf.js';
import { define } from '../define.js';
import { beyond } from '../text.js';
import type { Cell } from '../cell.js';
import type { Finding } from '../types.js';

/** `missing a, b; unexpected c` of two multisets, or null when they are equal. */
function differ(what: string, want: string[], have: string[]): string | null {
  const missing = beyond(want, have);
  const extra = beyond(have, want);
  if (!missing.length && !extra.length) return null;
  return `${what} differ: ${[
    missing.length ? `missing ${missing.join(' ')}` : '',
    extra.length ? `unexpected ${extra.join(' ')}` : '',
  ]
    .filter(Boolean)
    .join('; ')}`;
}

/**
 * `of` of each branch of the translation against the source branches it may follow (branches.ts), as multisets:
 * the first branch that follows none, as `differ` words it.
 */
function perBranch(
  cell: Cell,
  what: string,
  of: (text: string) => string[],
  loose: (key: string) => boolean = () => false,
): Finding | null {
  for (const v of cell.views) {
    const have = of(v.value);
    // A loose branch may leave arguments out, never add one.
    const fits = (s: string) => (loose(v.key) ? beyond(have, of(s)).length === 0 : differ(what, of(s), have) === null);
    if (v.sources.some(fits)) continue;
    const problem = differ(what, of(v.sources[0]), have);
    if (problem) return { message: v.label ? problem.replace(' differ:', ` differ${v.label}:`) : problem };
  }
  return null;
}

const I18NEXT = /\{\{\s*([^{}\s,]+)\s*(?:,[^{}]*)?\}\}|\$t\(([^()]*)\)/g;
const i18nextNames = (text: string) =>
  [...text.matchAll(I18NEXT)].map((m) => (m[1] !== undefined ? `{{${m[1]}}}` : `$t(${m[2].split(',')[0].trim()})`));

export const i18nextPlaceholders = define({
  id: 'i18next-placeholders',
  description:
    'i18next interpolations (`{{name}}`, `{{date, format}}`) and nestings (`$t(key)`) of the source are kept.',
  severity: 'error',
  category: 'placeholders',
  field: 'target',
  languages: 'All languages; for a source ICU cannot read (in ICU, `{{name}…}` opens a branch on an argument).',
  trips: [{ source: 'Change to {{lang}}', target: 'Wechseln zu {{language}}' }],
  passes: [
    { source: 'Change to {{lang}}, $t(common.ok)', target: '$t(common.ok): zu {{lang}} wechseln' },
    {
      source: '{count, plural, one {{name}} other {{name} and # more}}',
      target: '{count, plural, one {{name} allein} other {{name} und # weitere}}',
    },
  ],
  run: (cell) => {
    // In an ICU message `{{name}` opens a branch on an argument: `{{…}}` is i18next's only where ICU reads nothing.
    const pair = cell.pair;
    if (!('syntax' in pair) || pair.side !== 'source') return null;
    if (!cell.source.includes('{{') && !cell.source.includes('$t(')) return null;
    return perBranch(cell, 'i18next placeholders', i18nextNames);
  },
});

/** Python `str.format` fields (`{}`, `{0}`, `{name!r:>10}`), `{{`/`}}` escapes aside; null when there is none. */
function braceFields(text: string): string[] {
  let auto = 0;
  return [
    ...text.replace(/\{\{|\}\}/g, '').matchAll(/\{([A-Za-z_]\w*|\d*)((?:\.\w+|\[[^\]]*\])*)(![rsa])?(:[^{}]*)?\}/g),
  ].map((m) => `{${m[1] === '' ? auto++ : m[1]}${m[2]}}`);
}

export const pythonBrace = define({
  id: 'python-brace',
  description:
    'Python `str.format` fields of a source that is not ICU (`{}`, `{0:.2f}`, `{name!r}`, `{user.name}`) are kept.',
  severity: 'error',
  category: 'placeholders',
  field: 'target',
  languages: 'All languages. A source ICU reads is icu-placeholders’.',
  trips: [{ source: 'Saved {0:.1f} MB in {}', target: 'Gespeichert: {0:.1f} MB' }],
  passes: [{ source: 'Saved {0:.1f} MB in {}', target: 'In {} gespeichert: {0:.1f} MB' }],
  run: (cell) => {
    const pair = cell.pair;
    if (!('syntax' in pair) || pair.side !== 'source' || !cell.source.includes('{')) return null;
    const problem = differ('format fields', braceFields(cell.source), braceFields(cell.target));
    return problem ? { message: problem } : null;
  },
});

const PYTHON_NAMED = /%\(([^)]{0,100})\)[-+ #0]*\d*(?:\.\d+)?[hlL]?([diouxXeEfFgGcrsa])/g;
const pythonNamed = (text: string) => [...text.matchAll(PYTHON_NAMED)].map((m) => `%(${m[1]})${m[2]}`);

export const pythonFormat = define({
  id: 'python-format',
  description: 'Python’s named `%(name)s` specifiers of the source are kept, with their conversions.',
  severity: 'error',
  category: 'placeholders',
  field: 'target',
  languages:
    'All languages. As `msgfmt --check` holds gettext’s `python-format` messages: a plural branch for fewer than five numbers (Arabic `zero`) may leave a name out.',
  trips: [{ source: '%(sel)s of %(cnt)s selected', target: 'Wybrano %(sel)s' }],
  passes: [{ source: '%(sel)s of %(cnt)s selected', target: 'Wybrano %(sel)s z %(cnt)s' }],
  run: (cell) => {
    if (!cell.source.includes('%(') && !cell.target.includes('%(')) return null;
    // As msgfmt --check: a plural branch for fewer than five numbers (Arabic `zero`, English `one`) may leave a name out.
    const few = (key: string) => /^=/.test(key) || (key !== 'other' && !manyNumbers(cell.targetLang, key));
    return perBranch(cell, 'named %-specifiers', pythonNamed, few);
  },
});

export const androidFormat = define({
  id: 'android-format',
  description:
    'An Android string with more than one printf specifier numbers them (`%1$s %2$d`): aapt refuses several unnumbered ones.',
  severity: 'error',
  category: 'formats',
  field: 'target',
  languages: 'All languages, when android_xml is an output format. ICU arguments are numbered by the renderer.',
  formats: ['android_xml'],
  trips: [{ source: '%1$s of %2$s', target: '%s von %s', formats: ['android_xml'] }],
  passes: [{ source: '%1$s of %2$s', target: '%1$s von %2$s', formats: ['android_xml'] }],
  run: (cell): Finding | null => {
    if (!cell.target.includes('%')) return null;
    // Each plural branch is an `<item>` of its own to aapt.
    for (const v of cell.views) {
      const unnumbered = printfSpecifiers(v.value).filter((s) => s.spec !== '%%' && !/^%\d+\$/.test(s.spec));
      if (unnumbered.length < 2) continue;
      return {
        message: `${unnumbered.length} unnumbered printf specifiers${v.label}: Android needs %1$s, %2$s, … (aapt: "Multiple substitutions specified in non-positional format")`,
      };
    }
    return null;
  },
});

const SUBSTITUTION = /%(?:\d+\$)?#@([^@\s]+)@/g;
const substitutions = (text: string) => [...text.matchAll(SUBSTITUTION)].map((m) => m[0].replace(/^%\d+\$/, '%'));

export const appleFormat = define({
  id: 'apple-format',
  description:
    'Apple’s variable tokens (`%#@files@`, a stringsdict or String Catalog substitution) are kept, and no `%s` stands for a `%@` object.',
  severity: 'error',
  category: 'formats',
  field: 'target',
  languages: 'All languages, when ios_strings or xcstrings is an output format.',
  formats: ['ios_strings', 'xcstrings'],
  trips: [
    { source: 'Found %#@files@', target: 'Gefunden: %d Dateien', formats: ['xcstrings'] },
    { source: 'Shared by %@', target: 'Geteilt von %s', formats: ['ios_strings'] },
  ],
  passes: [{ source: 'Found %#@files@ in %@', target: 'In %@ gefunden: %#@files@', formats: ['xcstrings'] }],
  run: (cell: Cell): Finding | null => {
    if (!cell.source.includes('%')) return null;
    const problem = perBranch(cell, 'substitution tokens', substitutions);
    if (problem) return problem;
    const objects = printfSpecifiers(cell.source).filter((s) => s.spec.endsWith('@')).length;
    const cStrings = printfSpecifiers(cell.target).filter((s) => /[sS]$/.test(s.spec));
    const sourceCStrings = printfSpecifiers(cell.source).filter((s) => /[sS]$/.test(s.spec)).length;
    if (objects && cStrings.length > sourceCStrings)
      return {
        message:
          '%s formats a C string: a String or NSString argument (the source’s %@) is shown as garbage or crashes',
        spans: cStrings.map((s) => ({ start: s.index, end: s.index + s.spec.length })),
      };
    return null;
  },
});
