// A block's inline markup, protected for a translation engine and put back around its answer.
//
// A block (blocks.ts) becomes one ICU message. Literal text is escaped for ICU; markup that wraps translatable
// text (markdown emphasis, strong, strikethrough, links, image alt text; HTML <a>, <em>, <strong>, <span>, an
// <img>'s alt...) becomes an ICU tag `<x0>…</x0>` whose children stay translatable; anything that must not change
// (inline code, autolinks, footnote references, <br>, <img> without alt, comments, character references such as
// `&nbsp;`, a multi-line blockquote paragraph's inner `> ` markers) becomes a simple argument `{p0}`. The engines
// keep tags and arguments (the ICU gate holds them to it), so restore() can rebuild the block with every piece of
// markup exactly as written, and only the literal text is new, escaped for the format.
//
// restore() refuses (an {error}, never a throw): an answer that is not ICU, that drops, duplicates or invents a tag
// or argument, that uses plural/select/number syntax, that moves markup into an image's alt text, or whose
// rebuilt block does not parse to the same tree shape as the source block. Literal text that would become markup
// (`# ` at a line start, `[x](javascript:…)`, `<script>`, `*`, a bare URL) is escaped, so it stays text.
//
// Limitations, by design: markdown link titles (`[a](url "title")`) and the attributes of HTML inline elements
// inside a text block (`<a title="…">`, `<abbr title="…">`) stay as written, untranslated; only an <img>'s alt is
// translatable inside a text block. Shortcut and collapsed reference links/images (`[foo]`, `![foo][]`) are kept
// whole, since their text is also their reference label. Line breaks inside a list item's paragraph lose their
// continuation indentation (lazy continuation keeps the paragraph).
import { TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import type { ElementContent } from 'hast';
import type { PhrasingContent, RootContent } from 'mdast';
import { parseIcu, printIcu } from '../../../packages/core/src/icu.js';
import {
  endOf,
  HTML_ATOM_TAGS,
  HTML_INLINE_TAGS,
  htmlShape,
  markdownShape,
  parseHtml,
  parseMarkdown,
  startOf,
  translatableAttributes,
  type DocFormat,
} from './blocks.js';

export interface Protected {
  message: string;
  restore(translatedMessage: string): { text: string } | { error: string };
}

/** The protected form of a block: literal text, atoms kept verbatim, tags wrapping translatable children. */
type Piece =
  | { kind: 'text'; value: string }
  | { kind: 'atom'; raw: string }
  | { kind: 'tag'; open: string; close: string; children: Piece[]; attr?: boolean };

type Tag = Extract<Piece, { kind: 'tag' }>;

/** How a format writes literal text back, and how it checks a rebuilt block. */
interface Codec {
  /** Literal text as the format writes it; `before` is the block's text so far (for line-start rules). */
  escape(value: string, before: string, attr: boolean): string;
  /** Whitespace a tag's children begin or end with goes outside the tag (markdown emphasis must hug its text). */
  hoistWhitespace: boolean;
  /** The final text, or an error when it does not keep the source block's shape. */
  finish(text: string): { text: string } | { error: string };
}

/** The block's text as an ICU message for a translation engine (see the file comment for the rules). */
export function protectBlock(format: DocFormat, type: string, text: string): Protected {
  const { message, atoms, tags, codec } = protectParts(format, type, text);
  return { message, restore: (answer) => restore(answer, atoms, tags, codec) };
}

function protectParts(format: DocFormat, type: string, text: string) {
  const { pieces, codec } =
    format === 'markdown'
      ? protectMarkdown(type, text)
      : format === 'html'
        ? protectHtml(type, text)
        : protectPlaintext(text);
  const atoms: string[] = [];
  const tags: Tag[] = [];
  const message = printMessage(pieces, atoms, tags);
  return { message, atoms, tags, codec };
}

const CHARACTER_REFERENCE = /^&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});$/;

/**
 * A person's translation of a block, held to what an engine's answer is held to: the source's markup, each piece
 * exactly once in any order, and nothing else. The edit is read by the same parser; its markup is matched to the
 * source's by how it is written (a link to another URL, or `_x_` for the source's `*x*`, is not the same markup),
 * and the result is rebuilt through the source's restore(), so literal text is escaped and the block keeps its
 * shape exactly as a run's answer would.
 */
export function checkEdit(
  format: DocFormat,
  type: string,
  source: string,
  edited: string,
): { text: string } | { error: string } {
  const src = protectParts(format, type, source);
  const ed = protectParts(format, type, edited);
  // Character references (`&lt;`, `&#160;`) are how HTML writes some literal text: the edit may add its own.
  const atoms = [...src.atoms];
  const match = <T>(
    mine: T[],
    theirs: T[],
    same: (a: T, b: T) => boolean,
    prefix: string,
    show: (x: T) => string,
    added?: (x: T) => boolean,
  ): { error: string } | { names: Map<string, string> } => {
    const taken = new Set<number>();
    const names = new Map<string, string>();
    for (const [i, x] of mine.entries()) {
      const j = theirs.findIndex((y, k) => !taken.has(k) && same(x, y));
      if (j >= 0) {
        taken.add(j);
        names.set(`${prefix}${i}`, `${prefix}${j}`);
      } else if (added?.(x)) names.set(`${prefix}${i}`, `${prefix}${atoms.push(show(x)) - 1}`);
      else return { error: `markup the source does not have: ${show(x)}` };
    }
    const left = theirs.findIndex((_, k) => !taken.has(k));
    if (left >= 0) return { error: `markup of the source left out: ${show(theirs[left])}` };
    return { names };
  };
  const atomNames = match(
    ed.atoms,
    src.atoms,
    (a, b) => a === b,
    'p',
    String,
    (a) => CHARACTER_REFERENCE.test(a),
  );
  if ('error' in atomNames) return { error: atomNames.error };
  const tagNames = match(
    ed.tags,
    src.tags,
    (a, b) => a.open === b.open && a.close === b.close,
    'x',
    (t) => `${t.open}…${t.close}`,
  );
  if ('error' in tagNames) return { error: tagNames.error };
  const rename = (nodes: MessageFormatElement[]): MessageFormatElement[] =>
    nodes.map((el) =>
      el.type === TYPE.argument
        ? { ...el, value: atomNames.names.get(el.value)! }
        : el.type === TYPE.tag
          ? { ...el, value: tagNames.names.get(el.value)!, children: rename(el.children) }
          : el,
    );
  return restore(printIcu(rename(parseIcu(ed.message))), atoms, src.tags, src.codec);
}

// ---------------------------------------------------------------------------------------------------------------
// ICU message in and out

// The message is printed by the service's ICU printer (formatjs's quoting), the spelling the engines answer in:
// the markup gate compares the two texts, so literal `<b>` must be quoted the same way on both sides.
function printMessage(pieces: Piece[], atoms: string[], tags: Tag[]): string {
  const toAst = (ps: Piece[]): MessageFormatElement[] =>
    ps.map((p): MessageFormatElement => {
      if (p.kind === 'text') return { type: TYPE.literal, value: p.value };
      if (p.kind === 'atom') return { type: TYPE.argument, value: `p${atoms.push(p.raw) - 1}` };
      const value = `x${tags.push(p) - 1}`;
      return { type: TYPE.tag, value, children: toAst(p.children) };
    });
  return printIcu(toAst(pieces));
}

function restore(answer: string, atoms: string[], tags: Tag[], codec: Codec): { text: string } | { error: string } {
  let ast: MessageFormatElement[];
  try {
    ast = parseIcu(answer);
  } catch (e) {
    return { error: `not valid ICU: ${(e as Error).message}` };
  }
  const usedAtoms = atoms.map(() => 0);
  const usedTags = tags.map(() => 0);
  let problem: string | null = null;
  let out = '';
  const write = (nodes: MessageFormatElement[], attr: boolean) => {
    for (const el of nodes) {
      if (problem) return;
      if (el.type === TYPE.literal) {
        out += codec.escape(el.value, out, attr);
      } else if (el.type === TYPE.argument) {
        const i = /^p(\d+)$/.exec(el.value) ? Number(el.value.slice(1)) : -1;
        if (!(i >= 0 && i < atoms.length)) problem = `unknown argument {${el.value}}`;
        else if (usedAtoms[i]++) problem = `argument {${el.value}} appears twice`;
        else if (attr) problem = `argument {${el.value}} moved into an attribute`;
        else out += atoms[i];
      } else if (el.type === TYPE.tag) {
        const i = /^x(\d+)$/.exec(el.value) ? Number(el.value.slice(1)) : -1;
        if (!(i >= 0 && i < tags.length)) problem = `unknown tag <${el.value}>`;
        else if (usedTags[i]++) problem = `tag <${el.value}> appears twice`;
        else if (attr) problem = `tag <${el.value}> moved into an attribute`;
        else writeTag(tags[i], el.children);
      } else {
        problem = 'unexpected ICU syntax (plural, select, number or date)';
      }
    }
  };
  const writeTag = (tag: Tag, children: MessageFormatElement[]) => {
    if (!codec.hoistWhitespace) {
      out += tag.open;
      write(children, tag.attr ?? false);
      out += tag.close;
      return;
    }
    const before = out;
    out += tag.open;
    const openedAt = out.length;
    write(children, tag.attr ?? false);
    const inner = out.slice(openedAt);
    const lead = /^[ \t]*/.exec(inner)![0];
    const trail = inner.length > lead.length ? /[ \t]*$/.exec(inner)![0] : '';
    out = before + lead + tag.open + inner.slice(lead.length, inner.length - trail.length) + tag.close + trail;
  };
  write(ast, false);
  if (problem) return { error: problem };
  const missingAtom = usedAtoms.indexOf(0);
  if (missingAtom >= 0) return { error: `argument {p${missingAtom}} is missing` };
  const missingTag = usedTags.indexOf(0);
  if (missingTag >= 0) return { error: `tag <x${missingTag}> is missing` };
  return codec.finish(out);
}

// ---------------------------------------------------------------------------------------------------------------
// Markdown

// The markers that open a continuation line of a paragraph inside a blockquote or list item: indentation and `>`.
const LINE_PREFIX = /^(?:[ \t]*>)*[ \t]*/;

/**
 * A block's text with the container markers of its continuation lines taken off (the paragraph as it would read at
 * the top level), and a map from offsets in that body back to offsets in the block's text.
 */
function stripLinePrefixes(text: string): { body: string; toSource: (offset: number) => number; prefixes: string[] } {
  const lines = text.split('\n');
  const prefixes = lines.map((l, i) => (i === 0 ? '' : LINE_PREFIX.exec(l)![0]));
  const bodyStarts: number[] = [];
  const sourceStarts: number[] = [];
  let b = 0;
  let s = 0;
  lines.forEach((l, i) => {
    bodyStarts.push(b);
    sourceStarts.push(s + prefixes[i].length);
    b += l.length - prefixes[i].length + 1;
    s += l.length + 1;
  });
  const body = lines.map((l, i) => l.slice(prefixes[i].length)).join('\n');
  const toSource = (offset: number) => {
    let i = bodyStarts.length - 1;
    while (i > 0 && bodyStarts[i] > offset) i--;
    return sourceStarts[i] + offset - bodyStarts[i];
  };
  return { body, toSource, prefixes };
}

/**
 * Every bracketed text of the body, as a candidate reference label. A block parsed on its own has no definitions,
 * so `[text][ref]` would read as plain text; a stand-in definition for each label keeps it a reference (and a
 * footnote reference `[^1]` one too). Labels with a line break or a bracket, or over 999 characters, are not labels.
 */
function referenceLabels(body: string): string[] {
  const labels = new Set<string>();
  const open: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\') i++;
    else if (c === '[') open.push(i);
    else if (c === ']' && open.length) {
      const label = body.slice(open.pop()! + 1, i);
      // A label holds no unescaped bracket; a definition that is not one would swallow the ones after it.
      if (label.trim() && label.length <= 999 && !/[\n[\]]/.test(label.replace(/\\./g, ''))) labels.add(label);
    }
  }
  return [...labels];
}

/**
 * The body parsed as the inline content of one paragraph, with offsets into the body. A `(` goes first, so that
 * nothing at the body's start reads as a block construct (`1. `, `# `, `- `): like a line start, it lets emphasis
 * open and a `www.` autolink begin. The stand-in definitions follow.
 */
function parseInline(body: string, labels: string[]): { nodes: RootContent[]; paragraph: PhrasingContent[] | null } {
  const definitions = labels.map((l) => `[${l}]: #`).join('\n\n');
  const root = parseMarkdown(`(${body}${definitions ? `\n\n${definitions}` : ''}`, true);
  const first = root.children[0];
  const whole = first?.type === 'paragraph' && endOf(first) === body.length + 1;
  return { nodes: root.children, paragraph: whole ? first.children : null };
}

const inlineShape = (nodes: RootContent[]) => nodes.map((n) => markdownShape(n)).join(';');

function protectMarkdown(type: string, text: string): { pieces: Piece[]; codec: Codec } {
  const { body, toSource } = stripLinePrefixes(text);
  const labels = referenceLabels(body);
  const parsed = parseInline(body, labels);
  const sourceShape = inlineShape(parsed.nodes);
  const oneLine = type === 'heading' || type === 'tableCell';
  const codec: Codec = {
    escape: (value, before) => escapeMarkdown(value, before, oneLine, type === 'tableCell'),
    hoistWhitespace: true,
    finish(rebuilt) {
      const out = rebuilt.trim();
      const again = parseInline(stripLinePrefixes(out).body, labels);
      if (inlineShape(again.nodes) !== sourceShape) return { error: 'the translation changes the markdown structure' };
      return { text: out };
    },
  };
  // Offsets from the parse are one past the body's (the leading `(`); the block's own text is sliced through
  // toSource, so that raw markup keeps any `> ` markers it spans.
  const at = (node: { position?: { start: { offset?: number } } }) => Math.max(0, (startOf(node) ?? 1) - 1);
  const to = (node: { position?: { end: { offset?: number } } }) => (endOf(node) ?? 1) - 1;
  const source = (from: number, until: number) => text.slice(toSource(from), toSource(until));
  if (!parsed.paragraph) return { pieces: literalPieces(body, 0, body.length, source), codec };

  const convert = (nodes: PhrasingContent[]): Piece[] => {
    const pieces: Piece[] = [];
    for (let k = 0; k < nodes.length; k++) {
      const node = nodes[k];
      const from = at(node);
      const until = to(node);
      const atom = () => pieces.push({ kind: 'atom', raw: source(from, until) });
      // Wraps the children: the markup before the first child and after the last stays as written.
      const wrap = (kids: PhrasingContent[]) =>
        pieces.push({
          kind: 'tag',
          open: source(from, at(kids[0])),
          close: source(to(kids[kids.length - 1]), until),
          children: convert(kids),
        });
      switch (node.type) {
        case 'text':
          pieces.push(...literalPieces(body, from, until, source));
          break;
        case 'emphasis':
        case 'strong':
        case 'delete':
          if (node.children.length) wrap(node.children);
          else atom();
          break;
        case 'link':
          // `<https://…>` and bare URLs are autolinks: their text is the URL.
          if (body[from] === '[' && node.children.length) wrap(node.children);
          else atom();
          break;
        case 'linkReference':
          if (node.referenceType === 'full' && node.children.length) wrap(node.children);
          else atom();
          break;
        case 'image':
        case 'imageReference': {
          const altEnd = closingBracket(body, from + 1);
          const full = node.type === 'image' || node.referenceType === 'full';
          if (!full || altEnd < 0 || !body.slice(from + 2, altEnd).trim()) atom();
          else
            pieces.push({
              kind: 'tag',
              open: source(from, from + 2),
              close: source(altEnd, until),
              children: literalPieces(body, from + 2, altEnd, source),
            });
          break;
        }
        case 'html': {
          // An inline HTML element written out in markdown (`<em>…</em>`): its open and close tags are siblings.
          const close = matchingCloseTag(nodes, k);
          const name = OPEN_TAG.exec(node.value)?.[1].toLowerCase() ?? '';
          if (close > k && HTML_ATOM_TAGS.has(name)) {
            // <code>, <kbd>, <samp>, <var>: kept whole, content included, as in an HTML document.
            pieces.push({ kind: 'atom', raw: source(from, to(nodes[close])) });
            k = close;
          } else if (close > k + 1) {
            pieces.push({
              kind: 'tag',
              open: source(from, until),
              close: source(at(nodes[close]), to(nodes[close])),
              children: convert(nodes.slice(k + 1, close)),
            });
            k = close;
          } else atom();
          break;
        }
        default:
          // inlineCode, break, footnoteReference: kept as written.
          atom();
      }
    }
    return pieces;
  };
  return { pieces: convert(parsed.paragraph), codec };
}

/** The offset of the `]` closing the `[` at `open` (escapes and nested brackets skipped), or -1. */
function closingBracket(body: string, open: number): number {
  let depth = 0;
  for (let i = open; i < body.length; i++) {
    const c = body[i];
    if (c === '\\') i++;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  return -1;
}

const OPEN_TAG = /^<([A-Za-z][\w-]*)(?:\s[^>]*)?>$/;
const VOID_TAGS = new Set(['br', 'wbr', 'img', 'hr', 'input', 'source', 'area', 'col', 'embed', 'meta', 'link']);

/** For an inline-HTML open tag at nodes[k], the index of its close tag among the following siblings, or -1. */
function matchingCloseTag(nodes: PhrasingContent[], k: number): number {
  const node = nodes[k];
  if (node.type !== 'html') return -1;
  const name = OPEN_TAG.exec(node.value)?.[1].toLowerCase();
  if (!name || VOID_TAGS.has(name) || node.value.endsWith('/>')) return -1;
  let depth = 0;
  for (let j = k + 1; j < nodes.length; j++) {
    const n = nodes[j];
    if (n.type !== 'html') continue;
    if (OPEN_TAG.exec(n.value)?.[1].toLowerCase() === name) depth++;
    else if (n.value.replace(/\s+/g, '').toLowerCase() === `</${name}>` && depth-- === 0) return j;
  }
  return -1;
}

// A character reference (`&nbsp;`, `&#8212;`, `&#x2014;`) is kept as written: the author chose it.
const CHAR_REF = /^&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});/;

/**
 * The literal pieces of a markdown text run body[from, until): backslash escapes are read (restore escapes what
 * needs it), character references are atoms, and a line break whose continuation line carries `>` markers is an
 * atom (the break and the markers), so that those survive the engine.
 */
function literalPieces(body: string, from: number, until: number, source: (a: number, b: number) => string): Piece[] {
  const pieces: Piece[] = [];
  let text = '';
  const flush = () => {
    if (text) pieces.push({ kind: 'text', value: text });
    text = '';
  };
  for (let i = from; i < until; i++) {
    const c = body[i];
    if (c === '\\' && i + 1 < until && /[!-/:-@[-`{-~]/.test(body[i + 1])) {
      text += body[++i];
    } else if (c === '&' && CHAR_REF.test(body.slice(i, i + 40))) {
      const ref = CHAR_REF.exec(body.slice(i, i + 40))![0];
      flush();
      pieces.push({ kind: 'atom', raw: ref });
      i += ref.length - 1;
    } else if (c === '\n' && /\S/.test(source(i, i + 1))) {
      flush();
      pieces.push({ kind: 'atom', raw: source(i, i + 1) });
    } else text += c;
  }
  flush();
  return pieces;
}

/**
 * Literal text as markdown that reads back as the same text: characters that open markup anywhere are
 * backslash-escaped, and so are those that open a block at a line start (`-`, `+`, `=`, `1.`); GFM autolink
 * literals (`https://`, `www.`, `a@b`) are broken by an escape. No blank lines (a new paragraph), no trailing
 * spaces before a line break (a hard break), and in a heading or table cell no line breaks at all.
 */
function escapeMarkdown(value: string, before: string, oneLine: boolean, tableCell: boolean): string {
  const s = oneLine ? value.replace(/[ \t]*\r?\n[ \t]*/g, ' ') : value.replace(/[ \t]*(?:\r?\n[ \t]*)+/g, '\n');
  let out = '';
  let lineStart = before === '' || /\n[ \t>]*$/.test(before);
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\n') {
      out += c;
      lineStart = true;
      continue;
    }
    if (c === ' ' || c === '\t') {
      out += c;
      continue;
    }
    const digits = lineStart ? /^\d{1,9}(?=[.)])/.exec(s.slice(i, i + 11)) : null;
    if (digits) {
      out += `${digits[0]}\\${s[i + digits[0].length]}`;
      i += digits[0].length;
    } else if ('\\`*_[]<>&~#!'.includes(c) || (tableCell && c === '|') || c === '@') out += `\\${c}`;
    else if (lineStart && '-+='.includes(c)) out += `\\${c}`;
    else if (c === ':' && s.startsWith('//', i + 1)) out += '\\:';
    else if (c === '.' && /www$/i.test(out.slice(-3))) out += '\\.';
    else out += c;
    lineStart = false;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// HTML

const escapeHtmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeHtmlAttr = (s: string) => escapeHtmlText(s).replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** An attribute value's text, character references decoded (by the HTML parser itself). */
function decodeAttribute(raw: string): string {
  const root = parseHtml(`<i title="${raw.replace(/"/g, '&quot;')}"></i>`, true);
  const el = root.children[0];
  const title = el?.type === 'element' ? el.properties.title : undefined;
  return typeof title === 'string' ? title : raw;
}

function protectHtml(type: string, text: string): { pieces: Piece[]; codec: Codec } {
  if (type === 'attr') {
    return {
      pieces: [{ kind: 'text', value: decodeAttribute(text) }],
      codec: { escape: escapeHtmlAttr, hoistWhitespace: false, finish: (t) => ({ text: t }) },
    };
  }
  const whole = (t: string) => ({ text: t });
  if (type === 'title') {
    // <title> holds text only (tags in it are text): references stay atoms, the rest is literal.
    return {
      pieces: htmlLiteralPieces(text, 0, text.length),
      codec: { escape: escapeHtmlText, hoistWhitespace: false, finish: whole },
    };
  }
  const root = parseHtml(text, true);
  const sourceShape = htmlShape(root);
  const codec: Codec = {
    escape: (value, _before, attr) => (attr ? escapeHtmlAttr(value) : escapeHtmlText(value)),
    hoistWhitespace: false,
    finish: (t) =>
      htmlShape(parseHtml(t, true)) === sourceShape
        ? { text: t }
        : { error: 'the translation changes the HTML structure' },
  };
  const convert = (nodes: ElementContent[]): Piece[] => {
    const pieces: Piece[] = [];
    for (const node of nodes) {
      const from = startOf(node);
      const until = endOf(node);
      if (from === undefined || until === undefined) continue; // implied by the parser: nothing in the source
      if (node.type === 'text') {
        pieces.push(...htmlLiteralPieces(text, from, until));
        continue;
      }
      const kids = node.type === 'element' ? node.children : [];
      const first = kids.length ? startOf(kids[0]) : undefined;
      const last = kids.length ? endOf(kids[kids.length - 1]) : undefined;
      if (node.type === 'element' && HTML_INLINE_TAGS.has(node.tagName) && first !== undefined && last !== undefined) {
        pieces.push({
          kind: 'tag',
          open: text.slice(from, first),
          close: text.slice(last, until),
          children: convert(kids),
        });
        continue;
      }
      // An <img>'s alt is translatable: a tag whose open part is the markup up to the value.
      const alt =
        node.type === 'element' && node.tagName === 'img'
          ? translatableAttributes(text, node).find((a) => a.name === 'alt')
          : undefined;
      if (alt) {
        pieces.push({
          kind: 'tag',
          open: text.slice(from, alt.valueStart),
          close: text.slice(alt.valueEnd, until),
          children: [{ kind: 'text', value: decodeAttribute(text.slice(alt.valueStart, alt.valueEnd)) }],
          attr: true,
        });
        continue;
      }
      pieces.push({ kind: 'atom', raw: text.slice(from, until) }); // comments, <br>, <code>, empty elements...
    }
    return pieces;
  };
  return { pieces: convert(root.children as ElementContent[]), codec };
}

/** HTML text as literal pieces: character references are atoms (kept as written), everything else literal. */
function htmlLiteralPieces(text: string, from: number, until: number): Piece[] {
  const pieces: Piece[] = [];
  let last = from;
  for (let i = text.indexOf('&', from); i >= 0 && i < until; i = text.indexOf('&', i + 1)) {
    const ref = CHAR_REF.exec(text.slice(i, Math.min(until, i + 40)))?.[0];
    if (!ref) continue;
    if (i > last) pieces.push({ kind: 'text', value: text.slice(last, i) });
    pieces.push({ kind: 'atom', raw: ref });
    last = i + ref.length;
  }
  if (until > last) pieces.push({ kind: 'text', value: text.slice(last, until) });
  return pieces;
}

// ---------------------------------------------------------------------------------------------------------------
// Plain text

function protectPlaintext(text: string): { pieces: Piece[]; codec: Codec } {
  return {
    pieces: [{ kind: 'text', value: text }],
    codec: {
      // A blank line would split the paragraph in two: line breaks stay single.
      escape: (value) => value.replace(/\n[ \t]*(?:\n[ \t]*)+/g, '\n'),
      hoistWhitespace: false,
      finish: (t) => (t.trim() ? { text: t.trim() } : { error: 'the translation is empty' }),
    },
  };
}
