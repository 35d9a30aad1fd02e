// The one interface every translation engine implements; the fill talks only to this.
import type { Term } from '../../../packages/core/src/checks/types.js';
import type { MarkupPolicy } from '../../../packages/core/src/markup.js';

export interface TranslationItem {
  /** Unique within one translate() call for a given targetLang; outcomes are matched back by it. */
  id: string;
  key: string;
  ctx?: string | null;
  /** ICU message in the base language. */
  source: string;
  sourceLang: string;
  targetLang: string;
  /** What the value's markup is held to beside its source (packages/core/src/markup.ts); none: the source's own URLs. */
  markup?: MarkupPolicy;
  /**
   * Earlier translations of similar sources from the project's translation memory (server/domain/memory/), best
   * first: the engine should follow their wording and terms where the source says the same thing.
   */
  references?: TranslationReference[];
  /**
   * The comment the developers left on the key in the synced catalog (xcstrings `comment`, the Android XML comment
   * before the resource, ARB `@key.description`, PO extracted comments).
   */
  comment?: string | null;
  /** Visible characters the value may take: the key's `maxLength`, else `[CHAR LIMIT=n]` in its comment or ctx. */
  maxLength?: number | null;
  /** The termbase entries the source uses, with their required translation into targetLang (`targets`). */
  terms?: ItemTerm[];
  /** Keys the key's name puts beside it (the same name up to its last dot), for context: their names and sources. */
  related?: Array<{ key: string; source: string }>;
  /** A screenshot of where the key is shown, for an engine that reads images (`imagesPerRequest`). */
  screenshot?: ItemScreenshot;
}

/** An image of the key in its interface, and where its text is in it (pixels), when that was marked. */
export interface ItemScreenshot {
  contentType: string;
  data: Buffer;
  width: number;
  height: number;
  region: { x: number; y: number; width: number; height: number } | null;
}

/** A termbase entry as an item carries it: the glossary check's `Term` and which meaning it has. */
export interface ItemTerm extends Term {
  description?: string | null;
}

/** What holds for a whole translate() call: said once per request, not per item. */
export interface TranslateOptions {
  /** The project's and the target language's style guide (projects.fill_instructions). */
  instructions?: string;
  /** Called with what each engine request reported using. */
  onUsage?: (usage: EngineUsage) => void;
}

/** What one engine request reported using (OpenAI's `usage`). */
export interface EngineUsage {
  promptTokens: number;
  completionTokens: number;
}

/** A translation memory match sent with an item: a stored source, its translation, and how alike (0-100). */
export interface TranslationReference {
  source: string;
  target: string;
  /** 100: the same text (case, spacing and placeholder names aside); less: a fuzzy match. */
  score: number;
}

/**
 * Exactly one of value/error. A value has been through conformPlurals for the item's targetLang and passes
 * checkFill (packages/core/src/gates.ts: ICU, markup, printf); anything else is reported as error (a short reason), never thrown.
 */
export interface TranslationOutcome {
  id: string;
  value?: string;
  error?: string;
  /**
   * With a value: what it still does against the termbase or the length limit after the repair request
   * (packages/core/src/guard.ts, soft problems); the value is stored and these are recorded with it.
   */
  failures?: string[];
  /** With a value: it is the answer to a repair request (the first answer had a problem). */
  repaired?: boolean;
  /** With a value: the engine's own assessment, 0 to 1, when it gave one. */
  confidence?: number;
}

export interface TranslationEngine {
  readonly name: string;
  /** The most items one translate() call should carry; larger calls still work but are split. */
  readonly maxBatch: number;
  /**
   * True when translate() itself ran checkFill(item.source, value, item.targetLang, item.markup) on every value it returns:
   * the fill then stores them without running the same gate a second time.
   */
  readonly checksFill?: boolean;
  /** How many items' screenshots one request carries (OPENAI_IMAGES); absent or 0: the engine reads no images. */
  readonly imagesPerRequest?: number;
  /**
   * One outcome per item, in the items' order. Rejects only when the whole batch failed in a way worth retrying
   * later (EngineUnavailableError: endpoint down or refusing after retries).
   */
  translate(items: TranslationItem[], options?: TranslateOptions): Promise<TranslationOutcome[]>;
}

/** A whole-batch failure; `retryable` is false for answers that will not change by waiting (401, 404, 400). */
export class EngineUnavailableError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'EngineUnavailableError';
  }
}
