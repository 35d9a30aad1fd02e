// Markup safety: what a translation may do with the HTML its source carries. Apps render rich text as HTML
// (`dangerouslySetInnerHTML`, `v-html`, i18next `Trans`), so a value is read the way a browser reads it, with
// parse5's HTML tokenizer: `<img/src/onerror=…>` is a tag, `jav&#x61;script:` is `javascript:`, names are
// case-insensitive. A pattern cannot follow those rules; the tokenizer is the HTML spec's own state machine.
//
// A value is unsafe when any of its tags
// - is one no message needs (`<script>`, `<iframe>`, `<object>`…), whatever the source says;
// - has an event handler (`on*`) or a `javascript:`/`vbscript:`/`data:` URL;
// - is one its source lacks (`<img>`, `<svg>`, `<a>`), unless it is plain formatting without attributes (`<b>`);
// - carries other attribute names than the source's tag of that name, or another value: a URL may differ only
//   towards an origin the project allows (`markupOrigins`), a text attribute (`title`, `alt`…) is translated.
// ICU quoting can hide a tag from the raw text (`'<'script>` formats as `<script>`), so the text with its
// apostrophes removed is read as well.
import { ErrorCodes, Tokenizer, type Token, type TokenHandler } from 'parse5';

export interface MarkupPolicy {
  /** Origins (`https://help.example.com`) a translated URL may point to besides the source's own URL. */
  origins?: readonly string[];
  /**
   * The source ships beside the value whatever the value says (a content document's title and blocks: its base text
   * is served as it is), so a tag the value copies exactly from its source adds nothing and is not refused.
   */
  sourceShips?: boolean;
}

interface StartTag {
  name: string;
  attrs: Map<string, string>;
}

interface MarkupScan {
  /** Start tags, names lower-cased, attribute values with character references decoded. */
  starts: StartTag[];
  /** Every tag as written (case kept): `b` for `<b>` and `<b/>`, `/b` for `</b>`, in text order. */
  names: string[];
  /** The text ends inside a tag, which whatever follows it in a page would complete. */
  unfinished: boolean;
}

const NOOP = () => undefined;

/**
 * react-i18next's numbered tags (`<1>…</1>`, `<0/>`: the `Trans` component's children by index). HTML reads them as
 * text (a tag name starts with a letter), so they cannot carry script; they are markup the app needs all the same, and
 * are counted as tags (`1`, `/1`, `0`) so that a translation must keep them as it keeps `<b>`.
 */
const NUMBERED_TAG = /<(\/?)(\d+)\s*\/?>/g;

/** The tags of `text` as an HTML tokenizer in its data state sees them (it sees more than a browser, never less). */
export function scanMarkup(text: string): MarkupScan {
  const scan: MarkupScan = { starts: [], names: [], unfinished: false };
  // Every tag, comment and doctype the tokenizer reports, and every numbered tag, starts with `<`: a text without one
  // has none (most values), and skips the tokenizer.
  if (!text.includes('<')) return scan;
  const written = (t: Token.TagToken, skip: number) => {
    const at = t.location?.startOffset;
    return at === undefined ? t.tagName : text.slice(at + skip, at + skip + t.tagName.length);
  };
  // Tags and comments by where they start and end: a numbered tag counts only where the tokenizer read text, or
  // where its own `</1>` is what the tokenizer read as a comment (HTML makes `</` and a digit a bogus comment).
  const spans: Array<[number, number]> = [];
  const named: Array<{ at: number; name: string }> = [];
  const span = (t: { location?: { startOffset: number; endOffset: number } | null }) => {
    if (t.location) spans.push([t.location.startOffset, t.location.endOffset]);
    return t.location?.startOffset ?? 0;
  };
  const handler: TokenHandler = {
    onStartTag(t) {
      scan.starts.push({ name: t.tagName, attrs: new Map(t.attrs.map((a) => [a.name, a.value])) });
      named.push({ at: span(t), name: written(t, 1) });
    },
    onEndTag(t) {
      named.push({ at: span(t), name: `/${written(t, 2)}` });
    },
    onParseError(e) {
      if (e.code === ErrorCodes.eofInTag) scan.unfinished = true;
    },
    onComment: span,
    onDoctype: span,
    onEof: NOOP,
    onCharacter: NOOP,
    onNullCharacter: NOOP,
    onWhitespaceCharacter: NOOP,
  };
  new Tokenizer({ sourceCodeLocationInfo: true }, handler).write(text, true);
  for (const m of text.matchAll(NUMBERED_TAG)) {
    const at = m.index;
    const end = at + m[0].length;
    if (spans.some(([from, to]) => at >= from && at < to && !(from === at && to === end))) continue;
    named.push({ at, name: `${m[1]}${m[2]}` });
  }
  scan.names = named.sort((a, b) => a.at - b.at).map((n) => n.name);
  return scan;
}

/** Tags no translated message needs, refused even when the source has them. */
const NEVER = new Set(['script', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'base', 'meta', 'style']);

/** Formatting that a value may add without attributes (a team's own imported translation often does). */
const INERT = new Set(['b', 'i', 'em', 'strong', 'u', 's', 'small', 'sub', 'sup', 'br', 'span', 'mark', 'code']);

/** Attributes whose value is text a translation translates. */
const TEXT_ATTRIBUTES = new Set(['title', 'alt', 'aria-label', 'aria-description', 'placeholder', 'label']);

/** Attributes holding a URL (WHATWG HTML, SVG, and the legacy ones browsers still honour). */
const URL_ATTRIBUTES = new Set([
  'href',
  'src',
  'srcset',
  'action',
  'formaction',
  'xlink:href',
  'poster',
  'cite',
  'background',
  'data',
  'codebase',
  'longdesc',
  'ping',
  'manifest',
  'icon',
  'lowsrc',
  'dynsrc',
  'usemap',
]);

// Browsers drop ASCII whitespace and control characters inside a URL's scheme (`java\tscript:`), so they are dropped
// before the scheme is compared.
const squeeze = (value: string) =>
  [...value]
    .filter((c) => {
      const code = c.charCodeAt(0);
      return code > 0x20 && (code < 0x7f || code > 0x9f);
    })
    .join('')
    .toLowerCase();

function scriptScheme(value: string): boolean {
  const v = squeeze(value);
  return v.startsWith('data:') || v.includes('javascript:') || v.includes('vbscript:');
}

function allowedOrigin(value: string, policy: MarkupPolicy): boolean {
  if (!policy.origins?.length) return false;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return false;
  }
  const origin = `${url.protocol}//${url.host}`.toLowerCase();
  return policy.origins.some((o) => o.replace(/\/+$/, '').toLowerCase() === origin);
}

const sameNames = (a: Map<string, string>, b: Map<string, string>) =>
  a.size === b.size && [...a.keys()].every((k) => b.has(k));

const sameAttributes = (a: Map<string, string>, b: Map<string, string>) =>
  sameNames(a, b) && [...a].every(([k, v]) => b.get(k) === v);

/** Why `tag`'s attributes do not follow `like` (a source tag of the same name with the same attribute names). */
function attributeProblem(tag: StartTag, like: StartTag, policy: MarkupPolicy): string | null {
  for (const [name, value] of tag.attrs) {
    const want = like.attrs.get(name)!;
    if (value === want || TEXT_ATTRIBUTES.has(name)) continue;
    if (URL_ATTRIBUTES.has(name)) {
      if (allowedOrigin(value, policy)) continue;
      return `<${tag.name} ${name}> points to ${JSON.stringify(value)}, not the source's URL or an allowed origin`;
    }
    return `<${tag.name} ${name}> must stay ${JSON.stringify(want)}`;
  }
  return null;
}

/** The absolute rules: what no tag may carry, in a source or a value. */
function forbidden(tag: StartTag): string | null {
  if (NEVER.has(tag.name)) return `<${tag.name}> is not allowed`;
  for (const [name, value] of tag.attrs) {
    if (name.startsWith('on')) return `<${tag.name}> has an event handler (${name})`;
    if (!TEXT_ATTRIBUTES.has(name) && scriptScheme(value)) return `<${tag.name} ${name}> has a script or data URL`;
  }
  return null;
}

function scanProblem(source: MarkupScan, value: MarkupScan, policy: MarkupPolicy): string | null {
  if (value.unfinished && !source.unfinished) return 'a tag is not finished';
  for (const tag of value.starts) {
    if (policy.sourceShips && source.starts.some((s) => s.name === tag.name && sameAttributes(s.attrs, tag.attrs)))
      continue;
    const bad = forbidden(tag);
    if (bad) return bad;
    const like = source.starts.filter((s) => s.name === tag.name);
    if (!like.length) {
      if (INERT.has(tag.name) && tag.attrs.size === 0) continue;
      return `<${tag.name}> is not in the source`;
    }
    const named = like.filter((s) => sameNames(s.attrs, tag.attrs));
    if (!named.length) {
      const have = [...tag.attrs.keys()].join(' ') || 'none';
      const want = [...like[0].attrs.keys()].join(' ') || 'none';
      return `<${tag.name}> has attributes ${have}; the source's has ${want}`;
    }
    const problems = named.map((s) => attributeProblem(tag, s, policy));
    if (problems.every(Boolean)) return problems[0];
  }
  return null;
}

/**
 * Why `value`'s markup is unsafe as a translation of `source` under `policy`; null when it is safe. A cell of the
 * base language is its source checked against itself: only the absolute rules can refuse it.
 */
export function unsafeMarkup(source: string, value: string, policy: MarkupPolicy = {}): string | null {
  if (!value.includes('<')) return null;
  const unquote = (s: string) => s.replace(/'/g, '');
  const problem =
    scanProblem(scanMarkup(source), scanMarkup(value), policy) ??
    (value.includes("'") ? scanProblem(scanMarkup(unquote(source)), scanMarkup(unquote(value)), policy) : null);
  return problem && `unsafe markup: ${problem}`;
}
