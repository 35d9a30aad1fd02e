// The one interface every translation engine implements; the fill talks only to this.
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
  /**
   * One outcome per item, in the items' order. Rejects only when the whole batch failed in a way worth retrying
   * later (EngineUnavailableError: endpoint down or refusing after retries).
   */
  translate(items: TranslationItem[]): Promise<TranslationOutcome[]>;
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
