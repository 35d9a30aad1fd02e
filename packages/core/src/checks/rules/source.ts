// A key's source, checked before anything is translated (checkSource): what no translation can repair.
import { TYPE, type MessageFormatElement, type PluralOrSelectOption } from '@formatjs/icu-messageformat-parser';
import { isValidIcu, parseIcu, walkIcu, type IcuAst } from '../../icu.js';
import { scanMarkup, unsafeMarkup } from '../../markup.js';
import { printfSpecifiers } from '../../printf.js';
import { define, found } from '../define.js';
import { describeChars, BIDI_MARK, BIDI_OVERRIDE, INVISIBLE, rawSpans, strayZeroWidth } from '../text.js';
import { visibleLength } from './length.js';
import { unbalancedBracket } from './punctuation.js';
import type { Finding, Span } from '../types.js';

/** What ICU makes of a source that is not ICU, with what the author probably meant. */
function icuHint(source: string): string | null {
  if (isValidIcu(source, 'rich') || isValidIcu(source, 'text')) return null;
  let reason: string;
  try {
    parseIcu(source, 'text');
    reason = 'invalid';
  } catch (e) {
    reason = (e as Error).message;
  }
  const i18next = /\{\{\s*(\w+)[^{}]*\}\}/.exec(source);
  if (i18next) return `not ICU (${reason}): {{${i18next[1]}}} is i18next interpolation; ICU writes {${i18next[1]}}`;
  if (/\{\s*[-\w]+\s*:[^{}]*;?\s*\}/.test(source) || /\{\s*\}/.test(source))
    return `not ICU (${reason}): a literal brace is quoted in ICU ('{' and '}'), as in CSS or code`;
  return `not ICU: ${reason}`;
}

export const sourceIcu = define({
  id: 'source-icu',
  description:
    'The source is a valid ICU message (tags read as rich text, else as text): i18next `{{name}}`, CSS braces and an unclosed plural are not.',
  severity: 'error',
  category: 'syntax',
  field: 'source',
  languages: 'Not language-specific.',
  trips: [
    { source: 'Change to {{lang}}' },
    { source: 'a { color: red }' },
    { source: '{count, plural, one {# file} other {# files}' },
  ],
  passes: [{ source: "Use '{'curly'}' braces, {count, plural, one {# file} other {# files}}" }],
  run: (cell) => found(icuHint(cell.source)),
});

// Elements that never close (HTML's void elements).
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

/** Tags of `text` that open without closing or close without opening, by name. */
function unbalancedTags(text: string): string[] {
  if (!text.includes('<')) return [];
  const open = new Map<string, number>();
  const bad: string[] = [];
  for (const raw of scanMarkup(text).names) {
    const closing = raw.startsWith('/');
    const name = (closing ? raw.slice(1) : raw).toLowerCase();
    if (VOID.has(name)) continue;
    if (!closing) open.set(name, (open.get(name) ?? 0) + 1);
    else if ((open.get(name) ?? 0) > 0) open.set(name, open.get(name)! - 1);
    else bad.push(`</${name}>`);
  }
  // A self-closing tag (`<0/>`, `<b/>`) opens nothing.
  const selfClosed = [...text.matchAll(/<([A-Za-z][\w:-]*|\d+)[^<>]*\/>/g)].map((m) => m[1].toLowerCase());
  for (const s of selfClosed) if ((open.get(s) ?? 0) > 0) open.set(s, open.get(s)! - 1);
  for (const [name, n] of open) for (let i = 0; i < n; i++) bad.push(`<${name}>`);
  return bad;
}

export const sourceTags = define({
  id: 'source-tags',
  description: 'Every tag the source opens it closes (void elements such as `<br>` and self-closing tags aside).',
  severity: 'warning',
  category: 'markup',
  field: 'source',
  languages: 'Not language-specific.',
  trips: [{ source: 'Tap <b>Save to continue' }, { source: 'Read</a> the terms' }],
  passes: [{ source: 'Line<br>two <b>bold</b> <1>one</1> <0/>' }],
  run: (cell) => {
    const bad = unbalancedTags(cell.source);
    return bad.length ? { message: `unbalanced tags: ${bad.join(' ')}` } : null;
  },
});

export const sourceMarkupSafety = define({
  id: 'source-markup-safety',
  description:
    'The source’s markup is safe to render: no script, `on*` handler or `javascript:` URL (markup.ts’s absolute rules).',
  severity: 'error',
  category: 'markup',
  field: 'source',
  languages: 'Not language-specific.',
  trips: [{ source: 'Click <a href="javascript:run()">here</a>' }],
  passes: [{ source: 'Read <a href="/terms">the terms</a>' }],
  run: (cell) => (cell.source.includes('<') ? found(unsafeMarkup(cell.source, cell.source, cell.markup)) : null),
});

export const sourceWhitespace = define({
  id: 'source-whitespace',
  description: 'The source has no leading, trailing or doubled space (each one every translation must copy).',
  severity: 'info',
  category: 'whitespace',
  field: 'source',
  languages: 'Not language-specific.',
  trips: [{ source: 'Save ' }, { source: 'Open  the file' }],
  passes: [{ source: 'Open the file' }],
  run: (cell): Finding | null => {
    const spans = rawSpans(cell.source, /^[ \t]+|[ \t]+$|(?<=\S) {2,}(?=\S)/g);
    return spans.length ? { message: 'leading, trailing or doubled spaces', spans } : null;
  },
});

export const sourceInvisible = define({
  id: 'source-invisible',
  description:
    'The source has no zero-width, bidi control or other invisible character (each one every translation would be held to).',
  severity: 'warning',
  category: 'characters',
  field: 'source',
  languages:
    'As zero-width, bidi-marks and invisible-characters: spelling in joining scripts and right-to-left sources pass.',
  trips: [{ source: 'Set\u200btings' }, { source: 'Pay \u202e{amount}' }],
  passes: [{ source: 'Settings' }, { source: 'גרסה \u200e{v}', sourceLang: 'he' }],
  run: (cell): Finding | null => {
    const s = cell.source;
    const spans: Span[] = [
      ...strayZeroWidth(s),
      ...rawSpans(s, BIDI_OVERRIDE),
      ...(cell.sourceInfo.rtl ? [] : rawSpans(s, BIDI_MARK)),
      ...rawSpans(s, INVISIBLE),
    ].sort((a, b) => a.start - b.start);
    return spans.length ? { message: `invisible characters: ${describeChars(s, spans)}`, spans } : null;
  },
});

export const sourcePrintf = define({
  id: 'source-printf-positions',
  description: 'The source’s printf specifiers are all numbered or all not (`%1$s and %s` cannot be formatted).',
  severity: 'error',
  category: 'placeholders',
  field: 'source',
  languages: 'Not language-specific.',
  trips: [{ source: '%1$s of %s' }],
  passes: [{ source: '%1$s of %2$s' }, { source: '%s of %d' }],
  run: (cell): Finding | null => {
    const specs = printfSpecifiers(cell.source).filter((s) => s.spec !== '%%');
    const numbered = specs.filter((s) => /^%\d+\$/.test(s.spec)).length;
    return numbered && numbered !== specs.length
      ? {
          message: 'numbered and unnumbered printf specifiers are mixed',
          spans: specs.map((s) => ({ start: s.index, end: s.index + s.spec.length })),
        }
      : null;
  },
});

export const sourcePlaceholderSyntax = define({
  id: 'source-placeholder-syntax',
  description: 'The source uses one placeholder syntax: ICU `{name}` beside printf `%s` or i18next `{{name}}` is two.',
  severity: 'warning',
  category: 'placeholders',
  field: 'source',
  languages: 'Not language-specific.',
  trips: [{ source: 'Hello {name}, you have %d files' }, { source: 'Hello {{name}}, you have {count} files' }],
  passes: [
    { source: 'Hello {name}, 100% done' },
    { source: 'Hello %1$s, you have %2$d files' },
    { source: '{count, plural, =1 {{host} is playing} other {{host} and # others}}' },
  ],
  run: (cell) => {
    const s = cell.source;
    // A source ICU reads has no i18next `{{name}}`: there `{{name}` opens a branch on an argument.
    const i18next = 'syntax' in cell.pair && /\{\{\s*\w+[^{}]*\}\}/.test(s);
    const icu = /\{\s*\w+\s*(?:,[^{}]*)?\}/.test(i18next ? s.replace(/\{\{[^{}]*\}\}/g, '') : s);
    const printf = printfSpecifiers(s).some((x) => x.spec !== '%%');
    const used = [icu && 'ICU {name}', printf && 'printf %s', i18next && 'i18next {{name}}'].filter(Boolean);
    return used.length > 1 ? { message: `mixes ${used.join(' and ')}` } : null;
  },
});

/** Where an argument is used: its name, and its offsets in the message (spans). */
interface ArgumentUse {
  name: string;
  span?: Span;
}

/** The arguments `ast` uses, by name, anywhere under it (a plural's `#` is its own argument). */
function argumentsIn(ast: IcuAst, out: Map<string, ArgumentUse[]>): void {
  walkIcu(ast, (el: MessageFormatElement) => {
    if (el.type === TYPE.literal || el.type === TYPE.pound || el.type === TYPE.tag) return;
    const loc = el.location;
    const use = { name: el.value, ...(loc ? { span: { start: loc.start.offset, end: loc.end.offset } } : {}) };
    const seen = out.get(el.value);
    if (seen) seen.push(use);
    else out.set(el.value, [use]);
  });
}

/**
 * Arguments that one branch of a plural or select uses and none of its other branches, nor the message around it,
 * nor an enclosing plural's or select's own argument (the count each branch may show or not): a key's plural forms
 * are one message, and `{cuont}` in one form alone is a name the app never passes.
 */
function loneArguments(ast: IcuAst): ArgumentUse[] {
  const lone: ArgumentUse[] = [];
  const visit = (nodes: IcuAst, outside: ReadonlySet<string>) => {
    for (const el of nodes) {
      if (el.type === TYPE.tag) visit(el.children, outside);
      if (el.type !== TYPE.plural && el.type !== TYPE.select) continue;
      const options = Object.values<PluralOrSelectOption>(el.options);
      // Every name the rest of the message uses: the other elements of these nodes, and what encloses them.
      const around = new Map<string, ArgumentUse[]>();
      argumentsIn(
        nodes.filter((n) => n !== el),
        around,
      );
      const inner = new Set([...outside, ...around.keys(), el.value]);
      const perBranch = options.map((o) => {
        const names = new Map<string, ArgumentUse[]>();
        argumentsIn(o.value, names);
        return names;
      });
      if (options.length >= 2)
        perBranch.forEach((names, i) => {
          for (const [name, uses] of names)
            if (!inner.has(name) && perBranch.every((other, j) => j === i || !other.has(name))) lone.push(uses[0]);
        });
      for (const o of options) visit(o.value, inner);
    }
  };
  visit(ast, new Set());
  return lone;
}

export const sourceBranchArguments = define({
  id: 'source-branch-arguments',
  description:
    'An argument one plural form or select branch of the source uses, another uses too (the count aside): a `{cuont}` in one form alone is a name the app never passes.',
  severity: 'warning',
  category: 'placeholders',
  field: 'source',
  languages: 'Not language-specific.',
  trips: [
    { source: '{count, plural, one {{count} file} other {{cuont} files}}' },
    { source: '{gender, select, female {{name} replied} other {{nmae} replied}}' },
  ],
  passes: [
    { source: '{count, plural, one {One file} other {{count} files}}' },
    { source: '{count, plural, one {# file in {folder}} other {# files in {folder}}}' },
    { source: '{name}: {count, plural, one {one file} other {# files by {name}}}' },
  ],
  run: (cell): Finding | null => {
    const ast = cell.srcAst;
    if (!ast || !/\{[^{}]*,\s*(?:plural|select|selectordinal)\s*,/.test(cell.source)) return null;
    const lone = loneArguments(ast);
    if (!lone.length) return null;
    const names = [...new Set(lone.map((u) => u.name))];
    return {
      message: `${names.map((n) => `{${n}}`).join(', ')} in one form only: no other form of the key uses ${names.length > 1 ? 'them' : 'it'}`,
      spans: lone.flatMap((u) => (u.span ? [u.span] : [])),
    };
  },
});

export const sourceMaxLength = define({
  id: 'source-max-length',
  description: 'The source fits its own length limit (`maxLength`, or `[CHAR LIMIT=n]` in its comment).',
  severity: 'warning',
  category: 'length',
  field: 'source',
  languages: 'Not language-specific.',
  trips: [{ source: 'Save the document now', maxLength: 10 }],
  passes: [{ source: 'Save', comment: '[CHAR LIMIT=10]' }],
  run: (cell) => {
    const limit = cell.limit;
    const n = visibleLength(cell.sourcePlain.text);
    return limit !== null && n > limit ? { message: `${n} characters; the limit is ${limit}` } : null;
  },
});

export const sourceBrackets = define({
  id: 'source-brackets',
  description: 'Every bracket the source opens it closes.',
  severity: 'info',
  category: 'punctuation',
  field: 'source',
  languages: 'Not language-specific; a smiley `:)` is reported too, hence info.',
  trips: [{ source: 'Size (in MB' }],
  passes: [{ source: 'Size (in MB)' }],
  run: (cell) => {
    const at = unbalancedBracket(cell.sourcePlain.text);
    return at === -1 ? null : { message: `unbalanced bracket ${cell.sourcePlain.text[at]}` };
  },
});
