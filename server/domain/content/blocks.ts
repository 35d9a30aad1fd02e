// Content documents (long-form markdown, HTML or plain text) cut into translatable blocks; revisions.ts matches
// them across revisions and puts the document back together. Pure: no database, no HTTP. The cut is made from the
// syntax tree (remark for markdown, rehype/parse5 for HTML), never by regular expressions over the document, and a
// block is always an exact source slice, so a document whose blocks are all left untranslated is reassembled byte
// for byte.
//
// What becomes a block:
// - markdown: the inline content of every heading, paragraph (also inside list items and blockquotes) and GFM
//   table cell. The slice runs from the first inline child to the last, so `## `, `- `, `> ` and `|` stay in the
//   skeleton. A paragraph spanning several lines of a blockquote keeps the inner `> ` markers in its slice (one
//   block per paragraph); protectBlock (inline.ts) turns each such line break into a protected argument.
//   Skeleton, never translated: code (fenced and indented), frontmatter (yaml, toml), thematic breaks, raw HTML
//   blocks, definitions (link/image/footnote URLs), and everything between blocks.
// - HTML: the inner content of every element whose children are all phrasing content with some translatable text
//   (p, h1-h6, li, td, dd, figcaption, title, option, a div holding text...), typed by its tag name; a run of
//   phrasing children with text inside an element that also holds blocks (text loose in an <article>, a <li> with a
//   nested list) is a block of type `text`. script, style, pre, template, svg, math, textarea, noscript, iframe and
//   the like are skeleton; text only inside <code>/<kbd>/<samp>/<var> is not translatable, so a lone <code> stays
//   skeleton too. The values of TRANSLATABLE_ATTRIBUTES, and the `content` of description/title <meta> tags, are
//   blocks of type `attr` (the slice is the quoted value alone) when the element is not inside a text block; inside
//   one, inline.ts handles them (an <img>'s alt becomes a translatable tag, other attributes stay as written).
//   Unquoted attribute values are left untranslated: a translation with a space could not be written back into one.
// - plaintext: paragraphs separated by blank lines, type `paragraph`.
import { createHash } from 'node:crypto';
import type { Element, ElementContent, Nodes as HastNodes, Root as HastRoot } from 'hast';
import type { Nodes as MdastNodes, Root as MdastRoot } from 'mdast';
import rehypeParse from 'rehype-parse';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { MAX_TREE_DEPTH } from './rules.js';

export type DocFormat = 'markdown' | 'html' | 'plaintext';

/** A translatable piece of the source, in document order. start/end are UTF-16 offsets into the source text; blocks never overlap. */
export interface ParsedBlock {
  type: string;
  text: string;
  hash: string;
  start: number;
  end: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Parsers (shared with inline.ts)

const markdownParser = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter, ['yaml', 'toml']);
// Inline content is parsed on its own by inline.ts: no frontmatter there (a block never starts a document).
const inlineMarkdownParser = unified().use(remarkParse).use(remarkGfm);
const htmlDocumentParser = unified().use(rehypeParse, { fragment: false });
const htmlFragmentParser = unified().use(rehypeParse, { fragment: true });

export function parseMarkdown(text: string, inline = false): MdastRoot {
  return (inline ? inlineMarkdownParser : markdownParser).parse(text);
}

/**
 * A whole document (with <html>/<head>/<body> or a doctype) is parsed as one, so <title> and <meta> land in the
 * head; anything else as a fragment, so that no implied elements appear. Both keep source positions.
 */
export function parseHtml(text: string, fragment = !looksLikeHtmlDocument(text)): HastRoot {
  return (fragment ? htmlFragmentParser : htmlDocumentParser).parse(text);
}

function looksLikeHtmlDocument(text: string): boolean {
  const head = text.slice(0, 4096).toLowerCase();
  return head.includes('<!doctype') || head.includes('<html') || head.includes('<head');
}

/** A parsed text nests deeper than MAX_TREE_DEPTH (rules.ts): the walkers below recurse once per level. */
export class NestingTooDeep extends Error {
  constructor() {
    super(`the text nests more than ${MAX_TREE_DEPTH} levels deep`);
  }
}

/** Throws NestingTooDeep for a tree deeper than MAX_TREE_DEPTH; walks without recursion, so any depth is safe. */
function checkDepth(root: { children?: unknown[] }): void {
  const stack: Array<[{ children?: unknown[] }, number]> = [[root, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (depth > MAX_TREE_DEPTH) throw new NestingTooDeep();
    for (const child of node.children ?? []) stack.push([child as { children?: unknown[] }, depth + 1]);
  }
}

export const startOf = (node: { position?: { start: { offset?: number } } }): number | undefined =>
  node.position?.start.offset;
export const endOf = (node: { position?: { end: { offset?: number } } }): number | undefined =>
  node.position?.end.offset;

// ---------------------------------------------------------------------------------------------------------------
// detectFormat

// Detection only weighs signals (it decides nothing about block boundaries): a README often opens with an HTML logo
// block yet is markdown, so HTML wins only on a doctype/<html> or when block tags outnumber markdown constructs.
const HTML_BLOCK_TAG =
  /<\/?(?:p|div|h[1-6]|ul|ol|li|table|tr|td|th|article|section|header|footer|main|nav|body|head|html|blockquote|pre|figure|dl|dt|dd)\b[^>]*>/gi;
const MARKDOWN_LINE = /^(?:#{1,6}[ \t]|[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]|[ \t]*>|```|~~~|[ \t]*\|.*\|[ \t]*$)/gm;
const MARKDOWN_INLINE = /\[[^\]\n]+\]\([^)\s]+\)|\*\*[^*\n]+\*\*|(?:^|\s)_[^_\n]+_(?:\s|$)|`[^`\n]+`/g;

export function detectFormat(text: string): DocFormat {
  const head = text.trimStart().slice(0, 256).toLowerCase();
  if (head.startsWith('<!doctype') || head.startsWith('<html')) return 'html';
  const html = text.match(HTML_BLOCK_TAG)?.length ?? 0;
  const markdown = (text.match(MARKDOWN_LINE)?.length ?? 0) + (text.match(MARKDOWN_INLINE)?.length ?? 0);
  if (html > 0 && html >= markdown) return 'html';
  if (markdown > 0) return 'markdown';
  if (/^<[a-z][\w-]*[\s/>]/i.test(head)) return 'html';
  return 'plaintext';
}

// ---------------------------------------------------------------------------------------------------------------
// splitDocument

function blockHash(type: string, text: string): string {
  return createHash('sha256').update(`${type}\n${text}`).digest('hex').slice(0, 16);
}

function block(text: string, type: string, start: number, end: number): ParsedBlock {
  const slice = text.slice(start, end);
  return { type, text: slice, hash: blockHash(type, slice), start, end };
}

export function splitDocument(format: DocFormat, text: string): ParsedBlock[] {
  const ranges =
    format === 'markdown' ? markdownRanges(text) : format === 'html' ? htmlRanges(text) : plaintextRanges(text);
  ranges.sort((a, b) => a.start - b.start);
  const out: ParsedBlock[] = [];
  let last = 0;
  for (const r of ranges) {
    // Defensive: overlapping or empty ranges would make assemble() duplicate text; the walkers never produce them.
    if (r.start < last || r.end <= r.start) continue;
    out.push(block(text, r.type, r.start, r.end));
    last = r.end;
  }
  return out;
}

interface Range {
  type: string;
  start: number;
  end: number;
}

const MARKDOWN_BLOCK_TYPES = new Set(['heading', 'paragraph', 'tableCell']);

function markdownRanges(text: string): Range[] {
  const ranges: Range[] = [];
  const visit = (node: MdastNodes) => {
    if (MARKDOWN_BLOCK_TYPES.has(node.type) && 'children' in node) {
      const kids = node.children;
      const start = kids.length ? startOf(kids[0]) : undefined;
      const end = kids.length ? endOf(kids[kids.length - 1]) : undefined;
      if (start !== undefined && end !== undefined && text.slice(start, end).trim()) {
        ranges.push({ type: node.type, start, end });
      }
      return;
    }
    // Everything else either holds blocks (root, list, listItem, blockquote, table, footnoteDefinition) or is
    // skeleton (code, yaml, toml, html, thematicBreak, definition): only the former have children to visit.
    if ('children' in node) for (const child of node.children) visit(child);
  };
  const root = parseMarkdown(text);
  checkDepth(root);
  visit(root);
  return ranges;
}

// HTML ---------------------------------------------------------------------------------------------------------

/**
 * Attributes whose values are prose: `alt` (images, areas, inputs), `title` (tooltips), `placeholder` (form
 * fields), `aria-label` (accessible names). Plus, on <meta>, the `content` of name=description / og:title /
 * og:description / twitter:title / twitter:description.
 */
const TRANSLATABLE_ATTRIBUTES = ['alt', 'title', 'placeholder', 'aria-label'] as const;
const META_NAMES = new Set(['description', 'og:title', 'og:description', 'twitter:title', 'twitter:description']);

/** Elements whose content is never translated, and whose inside is not looked at. */
const HTML_SKELETON = new Set([
  'script',
  'style',
  'pre',
  'template',
  'svg',
  'math',
  'textarea',
  'noscript',
  'iframe',
  'object',
  'embed',
  'canvas',
  'video',
  'audio',
  'picture',
  'select',
]);

/** Phrasing elements whose children stay translatable: inline.ts turns them into ICU tags. */
export const HTML_INLINE_TAGS = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'big',
  'button',
  'cite',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'ins',
  'label',
  'mark',
  'q',
  's',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'sup',
  'time',
  'tt',
  'u',
]);

/** Phrasing elements kept whole, as written (an ICU argument in the message). */
export const HTML_ATOM_TAGS = new Set([
  'br',
  'wbr',
  'img',
  'code',
  'kbd',
  'samp',
  'var',
  'input',
  'meter',
  'progress',
  'output',
  'map',
  ...HTML_SKELETON,
]);

/** Is `node` phrasing content all the way down (so that it may sit inside a text block)? */
function isPhrasing(node: ElementContent): boolean {
  if (node.type !== 'element') return true; // text, comment
  if (HTML_ATOM_TAGS.has(node.tagName)) return true;
  return HTML_INLINE_TAGS.has(node.tagName) && node.children.every(isPhrasing);
}

/** Does this phrasing content hold text a translator should see (not just whitespace, or text inside <code>)? */
function hasProse(nodes: ElementContent[]): boolean {
  return nodes.some((n) =>
    n.type === 'text'
      ? n.value.trim() !== ''
      : n.type === 'element' && !HTML_ATOM_TAGS.has(n.tagName) && hasProse(n.children),
  );
}

/** One attribute of a start tag, as written: offsets of the value (inside its quotes, if any). */
interface RawAttribute {
  name: string;
  valueStart: number;
  valueEnd: number;
  quote: '"' | "'" | '';
}

/**
 * The attributes of the start tag at `from` (which points at its `<`), read from the source because hast positions
 * do not cover attributes. A tokenizer for one tag, following the HTML spec's attribute states; `end` is just past
 * the tag's `>`.
 */
function readStartTag(text: string, from: number): { attrs: RawAttribute[]; end: number } {
  const attrs: RawAttribute[] = [];
  let i = from + 1;
  while (i < text.length && !/[\s/>]/.test(text[i])) i++; // tag name
  for (;;) {
    while (i < text.length && /[\s/]/.test(text[i])) i++;
    if (i >= text.length || text[i] === '>') return { attrs, end: Math.min(i + 1, text.length) };
    const nameStart = i;
    i++; // an attribute name may start with `=`
    while (i < text.length && !/[\s/>=]/.test(text[i])) i++;
    const name = text.slice(nameStart, i).toLowerCase();
    while (i < text.length && /\s/.test(text[i])) i++;
    if (text[i] !== '=') {
      attrs.push({ name, valueStart: i, valueEnd: i, quote: '' });
      continue;
    }
    i++;
    while (i < text.length && /\s/.test(text[i])) i++;
    const q = text[i];
    if (q === '"' || q === "'") {
      const close = text.indexOf(q, i + 1);
      const valueEnd = close < 0 ? text.length : close;
      attrs.push({ name, valueStart: i + 1, valueEnd, quote: q });
      i = valueEnd + 1;
    } else {
      const valueStart = i;
      while (i < text.length && !/[\s>]/.test(text[i])) i++;
      attrs.push({ name, valueStart, valueEnd: i, quote: '' });
    }
  }
}

/** The translatable attribute values of one element, as ranges (quoted, non-empty values only). */
export function translatableAttributes(text: string, el: Element): RawAttribute[] {
  const start = startOf(el);
  if (start === undefined || text[start] !== '<') return []; // an implied element has no tag of its own
  const { attrs } = readStartTag(text, start);
  const usable = (a: RawAttribute) => a.quote !== '' && text.slice(a.valueStart, a.valueEnd).trim() !== '';
  if (el.tagName === 'meta') {
    const key = attrs.find((a) => a.name === 'name' || a.name === 'property');
    const metaName = key ? text.slice(key.valueStart, key.valueEnd).toLowerCase() : '';
    return META_NAMES.has(metaName) ? attrs.filter((a) => a.name === 'content' && usable(a)) : [];
  }
  return attrs.filter((a) => (TRANSLATABLE_ATTRIBUTES as readonly string[]).includes(a.name) && usable(a));
}

function htmlRanges(text: string): Range[] {
  const ranges: Range[] = [];
  const attrBlocks = (el: Element) => {
    for (const a of translatableAttributes(text, el))
      ranges.push({ type: 'attr', start: a.valueStart, end: a.valueEnd });
  };
  // Attributes anywhere under phrasing content that is not itself a text block (an <img> alone in a <div>).
  const attrBlocksUnder = (nodes: ElementContent[]) => {
    for (const n of nodes) {
      if (n.type !== 'element') continue;
      attrBlocks(n);
      if (!HTML_SKELETON.has(n.tagName)) attrBlocksUnder(n.children);
    }
  };
  // A text block over `nodes` (consecutive siblings), trimmed of the whitespace at both ends.
  const textBlock = (type: string, nodes: ElementContent[]) => {
    const start = startOf(nodes[0]);
    const end = endOf(nodes[nodes.length - 1]);
    if (start === undefined || end === undefined) return;
    const slice = text.slice(start, end);
    const lead = slice.length - slice.trimStart().length;
    const trail = slice.length - slice.trimEnd().length;
    if (start + lead < end - trail) ranges.push({ type, start: start + lead, end: end - trail });
  };
  const visit = (node: HastRoot | Element) => {
    if (node.type === 'element') {
      if (HTML_SKELETON.has(node.tagName)) return;
      attrBlocks(node);
    }
    const kids = node.children as ElementContent[];
    if (node.type === 'element' && kids.length && kids.every(isPhrasing)) {
      if (hasProse(kids)) textBlock(node.tagName, kids);
      else attrBlocksUnder(kids);
      return;
    }
    // Mixed content: each run of phrasing siblings is a block of its own, each other element is visited.
    let run: ElementContent[] = [];
    const flush = () => {
      if (run.length && hasProse(run)) textBlock('text', run);
      else attrBlocksUnder(run);
      run = [];
    };
    for (const kid of kids) {
      if (isPhrasing(kid)) {
        run.push(kid);
        continue;
      }
      flush();
      if (kid.type === 'element') visit(kid);
    }
    flush();
  };
  const root = parseHtml(text);
  checkDepth(root);
  visit(root);
  return ranges;
}

// Plain text ---------------------------------------------------------------------------------------------------

function plaintextRanges(text: string): Range[] {
  const ranges: Range[] = [];
  let start = -1;
  let end = -1;
  let pos = 0;
  // Line by line: a paragraph is a maximal run of non-blank lines, trimmed; blank lines are skeleton.
  while (pos <= text.length) {
    const nl = text.indexOf('\n', pos);
    const lineEnd = nl < 0 ? text.length : nl;
    const line = text.slice(pos, lineEnd);
    if (line.trim()) {
      if (start < 0) start = pos + (line.length - line.trimStart().length);
      end = lineEnd - (line.length - line.trimEnd().length);
    } else if (start >= 0) {
      ranges.push({ type: 'paragraph', start, end });
      start = -1;
    }
    if (nl < 0) break;
    pos = nl + 1;
  }
  if (start >= 0) ranges.push({ type: 'paragraph', start, end });
  return ranges;
}

// ---------------------------------------------------------------------------------------------------------------
// treeShape

/** A canonical signature of the document's tree shape (node types and nesting, without text), for checking that a translated document keeps the source's skeleton. */
export function treeShape(format: DocFormat, text: string): string {
  if (format === 'markdown') return markdownShape(parseMarkdown(text));
  if (format === 'html') return htmlShape(parseHtml(text));
  return `paragraph*${plaintextRanges(text).length}`;
}

// Inline markup may be reordered by a translation (`<x1>…</x1> <x0>…</x0>`): the shape of inline content is the
// sorted list of its parts, so only what the parts are, not their order, is compared.
const MARKDOWN_INLINE_PARENTS = new Set([
  'paragraph',
  'heading',
  'tableCell',
  'emphasis',
  'strong',
  'delete',
  'link',
  'linkReference',
]);

/** Types and nesting of an mdast tree; text nodes (the translatable part) leave no trace. */
export function markdownShape(node: MdastNodes): string {
  if (node.type === 'text') return '';
  let label: string = node.type;
  if (node.type === 'heading') label += node.depth;
  if (node.type === 'list') label += node.ordered ? '1' : '-';
  if (!('children' in node)) return label;
  const parts = (node.children as MdastNodes[]).map(markdownShape).filter(Boolean);
  if (MARKDOWN_INLINE_PARENTS.has(node.type)) parts.sort();
  return `${label}(${parts.join(',')})`;
}

/**
 * Element names, their attribute names and nesting; comments and doctypes by kind; text leaves no trace. Each run
 * of phrasing siblings is sorted (inline markup may be reordered by a translation).
 */
export function htmlShape(node: HastNodes): string {
  switch (node.type) {
    case 'text':
      return '';
    case 'comment':
      return '!';
    case 'doctype':
      return '!doctype';
    case 'element': {
      const attrs = Object.keys(node.properties).sort().join(' ');
      return `${node.tagName}${attrs ? `[${attrs}]` : ''}(${childShapes(node.children)})`;
    }
    default:
      return `(${childShapes(node.children as ElementContent[])})`;
  }
}

function childShapes(children: ElementContent[]): string {
  const out: string[] = [];
  let run: string[] = [];
  const flush = () => {
    out.push(...run.sort());
    run = [];
  };
  for (const child of children) {
    const shape = htmlShape(child);
    if (!shape) continue;
    if (isPhrasing(child)) run.push(shape);
    else {
      flush();
      out.push(shape);
    }
  }
  flush();
  return out.join(',');
}
