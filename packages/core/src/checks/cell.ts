// One cell under check: the input, and what the checks share, each worked out once and only when a check asks
// (a parse costs more than most checks): the ICU pair, the parses, the branch views, the plain text.
import type { FormatId } from '../catalog.js';
import { icuPair, parseAny, type IcuAst, type IcuPair } from '../icu.js';
import type { MarkupPolicy } from '../markup.js';
import {
  ARG,
  branchViews,
  plainOf,
  plainViews,
  pushText,
  type BranchView,
  type Plain,
  type PlainView,
} from './branches.js';
import { languageInfo, type LanguageInfo } from './languages.js';
import type { CheckInput, CheckSettings, SourceInput, Term } from './types.js';

const UNPARSED = Symbol('unparsed');

/**
 * simplePlain of the last source: the cells of a key come one language after another, each with the same source.
 * Plain texts are only read by the checks, so one object serves them all.
 */
let lastSource: { raw: string; plain: Plain | null } | undefined;
function sourceSimplePlain(raw: string): Plain | null {
  if (lastSource?.raw !== raw) lastSource = { raw, plain: simplePlain(raw) };
  return lastSource.plain;
}

/**
 * Plain text of a message with `{name}` arguments only and no ICU quoting that means anything (an apostrophe before
 * a letter is literal, as in `Don't`), without a parse; null when it is not such a message.
 */
function simplePlain(raw: string): Plain | null {
  if (/'[{}#|']/.test(raw)) return null;
  const out: Plain = { text: '', at: [] };
  let from = 0;
  for (let open = raw.indexOf('{'); open !== -1; open = raw.indexOf('{', from)) {
    const arg = /^\{\s*\w+\s*\}/.exec(raw.slice(open, open + 120));
    if (!arg) return null;
    pushText(out, raw.slice(from, open), from);
    out.text += ARG;
    out.at.push(open);
    from = open + arg[0].length;
  }
  if (raw.indexOf('}', from) !== -1) return null;
  pushText(out, raw.slice(from), from);
  return out;
}

export class Cell {
  readonly source: string;
  readonly target: string;
  readonly sourceLang: string;
  readonly targetLang: string;
  readonly key: string;
  readonly ctx: string;
  readonly comment: string;
  readonly maxLength: number | null;
  readonly formats: ReadonlySet<FormatId>;
  readonly terms: readonly Term[];
  readonly markup: MarkupPolicy;
  readonly settings: CheckSettings;

  private _pair?: IcuPair;
  private _srcAst: IcuAst | null | typeof UNPARSED = UNPARSED;
  private _tgtAst: IcuAst | null | typeof UNPARSED = UNPARSED;
  private _views?: BranchView[];
  private _plain?: PlainView[];
  private _sourcePlain?: Plain;
  private _targetPlain?: Plain;

  constructor(input: CheckInput | SourceInput) {
    this.source = input.source;
    this.target = 'target' in input ? input.target : input.source;
    this.sourceLang = input.sourceLang;
    this.targetLang = input.targetLang ?? input.sourceLang;
    this.key = input.key;
    this.ctx = input.ctx ?? '';
    this.comment = input.comment ?? '';
    this.maxLength = input.maxLength ?? null;
    this.formats = new Set(input.formats ?? []);
    this.terms = 'terms' in input ? (input.terms ?? []) : [];
    this.markup = input.markup ?? {};
    this.settings = input.settings ?? {};
  }

  /** The two messages as the ICU rules read them (icu.ts icuPair). */
  get pair(): IcuPair {
    return (this._pair ??= icuPair(this.source, this.target));
  }

  /** The source's parse, rich text first (remembered across cells of a key), or null. */
  get srcAst(): IcuAst | null {
    if (this._srcAst === UNPARSED) this._srcAst = parseAny(this.source, true);
    return this._srcAst;
  }

  get tgtAst(): IcuAst | null {
    if (this._tgtAst === UNPARSED) this._tgtAst = parseAny(this.target, false);
    return this._tgtAst;
  }

  /** Branch by branch, raw (branches.ts): what the markup and printf rules compare. */
  get views(): BranchView[] {
    return (this._views ??= branchViews(this.source, this.target, this.srcAst, this.tgtAst, this.targetLang));
  }

  /** Branch by branch, as plain text: what the text checks compare. */
  get plain(): PlainView[] {
    if (this._plain) return this._plain;
    const s = sourceSimplePlain(this.source);
    const t = s && simplePlain(this.target);
    this._plain =
      s && t
        ? [{ key: 'other', label: '', source: s, target: t }]
        : plainViews(this.source, this.target, this.srcAst, this.tgtAst);
    return this._plain;
  }

  /** The whole source as plain text (its `other` branches). */
  get sourcePlain(): Plain {
    return (this._sourcePlain ??= sourceSimplePlain(this.source) ?? plainOf(this.source, this.srcAst));
  }

  get targetPlain(): Plain {
    return (this._targetPlain ??= simplePlain(this.target) ?? plainOf(this.target, this.tgtAst));
  }

  get targetInfo(): LanguageInfo {
    return languageInfo(this.targetLang);
  }

  get sourceInfo(): LanguageInfo {
    return languageInfo(this.sourceLang);
  }

  /** The key's length limit: `maxLength`, else Android's `[CHAR LIMIT=n]` in the comment or the context. */
  get limit(): number | null {
    return lengthLimit(this.maxLength, this.comment, this.ctx);
  }
}

/** A key's length limit: `maxLength`, else Android's `[CHAR LIMIT=n]` in the comment or the context; null: none. */
export function lengthLimit(maxLength: number | null | undefined, comment?: string | null, ctx?: string | null) {
  if (maxLength != null && maxLength > 0) return maxLength;
  const m = /\[CHAR[ _-]?LIMIT\s*=\s*(\d+)\s*\]/i.exec(`${comment ?? ''}\n${ctx ?? ''}`);
  return m && Number(m[1]) > 0 ? Number(m[1]) : null;
}
