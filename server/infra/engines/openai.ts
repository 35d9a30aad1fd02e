// Any OpenAI-compatible chat-completions endpoint (OpenAI, Azure OpenAI v1, Ollama, vLLM, llama.cpp server).
// Many strings per request, one target language per request; every answer goes through the fill gate and the
// ones that fail it get one more chance in a follow-up request carrying the reason.
import pLimit, { type LimitFunction } from 'p-limit';
import pRetry, { AbortError } from 'p-retry';
import { judgeValue, maskSource, unmask, type Masked } from '../../../packages/core/src/guard.js';
import { pluralCategories } from '../../../packages/core/src/icu.js';
import {
  EngineUnavailableError,
  type TranslateOptions,
  type TranslationEngine,
  type TranslationItem,
  type TranslationOutcome,
} from './types.js';

export interface OpenAIEngineOptions {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`; a query string (Azure api-version) is kept. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Per HTTP attempt, including reading the answer. */
  timeoutMs?: number;
  /** HTTP attempts per request on 408, 409, 429, 5xx, network errors and timeouts. */
  maxAttempts?: number;
  /** Requests in flight per engine instance, across concurrent translate() calls. */
  concurrency?: number;
  backoffBaseMs?: number;
  /** Upper bound on an honoured Retry-After. */
  retryAfterCapMs?: number;
  maxBatch?: number;
  /** Left out of the request unless set: some models accept only their default. */
  temperature?: number;
  /** The model reads images: items' screenshots go with the request as image parts (OPENAI_IMAGES). */
  images?: boolean;
}

/** Images one request carries at most: each is a whole file in the request body. */
const MAX_IMAGES = 4;

const RESPONSE_SCHEMA = {
  type: 'object',
  properties: {
    translations: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          value: { type: 'string' },
          confidence: { type: 'number', description: 'How sure you are of the translation, 0 to 1.' },
        },
        required: ['id', 'value', 'confidence'],
        // OpenAI's strict mode refuses a schema whose objects allow extra properties.
        additionalProperties: false,
      },
    },
  },
  required: ['translations'],
  additionalProperties: false,
} as const;

/** An attempt worth repeating: its reason, its HTTP status if it got one, and a server's Retry-After (capped). */
class AttemptFailed extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'AttemptFailed';
  }
}

/** Statuses that may change by waiting: timeout, conflict, rate limit, server errors. */
const retryableStatus = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });
function languageName(code: string): string {
  try {
    const name = languageNames.of(code);
    return name && name.toLowerCase() !== code.toLowerCase() ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

/** Retry-After as milliseconds: OpenAI's retry-after-ms, or the standard seconds / HTTP-date form. */
function retryAfterMs(headers: Headers): number | null {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const v = headers.get('retry-after');
  if (!v) return null;
  const secs = Number(v);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(v);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

/** A token count an answer reports, or 0 for anything that is not one. */
const count = (n: unknown) => (typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : 0);

/** The text of one part of a message's content. */
function partText(part: unknown): string {
  if (typeof part === 'string') return part;
  const text = (part as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : '';
}

/** The `error.message` of an OpenAI-style error body, else the start of the body. */
function errorSnippet(text: string): string {
  try {
    const msg = (JSON.parse(text) as { error?: { message?: unknown } } | null)?.error?.message;
    if (typeof msg === 'string') return msg.slice(0, 300);
  } catch {
    // not JSON
  }
  return text.slice(0, 300).replace(/\s+/g, ' ').trim();
}

/** id → value from an answer's message content: strict JSON, JSON in ``` fences, or JSON after a preamble. */
export function parseTranslations(content: string, confidence?: Map<string, number>): Map<string, unknown> | null {
  let text = content.replace(/<think>[\s\S]*?<\/think>/g, '').trim();
  const fenced = /```[a-zA-Z]*\s*\n?([\s\S]*?)```/.exec(text);
  if (fenced) text = fenced[1].trim();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    const start = text.search(/[[{]/);
    const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
    if (start < 0 || end <= start) return null;
    try {
      data = JSON.parse(text.slice(start, end + 1));
    } catch {
      return null;
    }
  }
  const list = Array.isArray(data) ? data : (data as { translations?: unknown })?.translations;
  const out = new Map<string, unknown>();
  if (Array.isArray(list)) {
    for (const entry of list as unknown[]) {
      if (entry && typeof entry === 'object' && 'id' in entry) {
        out.set(String(entry.id), (entry as { value?: unknown }).value);
        const c = (entry as { confidence?: unknown }).confidence;
        if (typeof c === 'number' && c >= 0 && c <= 1) confidence?.set(String(entry.id), c);
      }
    }
    return out;
  }
  // Some local models answer {"<id>": "<value>", ...} despite the instructions.
  if (data && typeof data === 'object') {
    for (const [id, value] of Object.entries(data)) if (typeof value === 'string') out.set(id, value);
    return out.size ? out : null;
  }
  return null;
}

function systemPrompt(sourceLang: string, targetLang: string, instructions?: string, images = false): string {
  const src = languageName(sourceLang);
  const tgt = languageName(targetLang);
  const cats = pluralCategories(targetLang).join(', ');
  return [
    `You translate the user-interface strings of a software product from ${src} to ${tgt}.`,
    'The user message is JSON: {"sourceLanguage", "targetLanguage", "pluralCategories", "glossary"?, "items": [{"id", "key", "context", "comment"?, "maxLength"?, "terms"?, "related"?, "source", "references"?, "problem"?}]}.',
    '"key" is the string\'s identifier in the code, "context" and "comment" notes from its developers (where and how the text is shown): use them only to understand the text; never translate or copy them into the answer.',
    '"related" lists other strings shown beside the item (keys of the same screen or group), so wording stays consistent; do not translate them.',
    ...(images
      ? [
          'An item\'s "screenshot" is the number of an image after the JSON that shows the product screen where the string is displayed, and its "region" ({x, y, width, height} in the image\'s pixels) where the string is: use them to understand what the text is (a button, a title, a label) and how much room it has; never describe the image or copy text from it into the answer.',
        ]
      : []),
    'An item\'s "maxLength" is the most characters its translation may have as the reader sees it (each placeholder counts as one character, each plural branch on its own): stay within it, abbreviating naturally if you must.',
    'The "glossary" is the team\'s termbase for the terms the items use (an item\'s "terms" names the ones it uses): where the source uses a term, use its "translation" (inflected as the sentence needs); never use a translation marked "avoid"; a term marked "keep" is a name that stays exactly as written.',
    'Every "source" is an ICU MessageFormat message, and every translation must be a valid ICU MessageFormat message too:',
    '- Keep every placeholder exactly as written, e.g. {name}, {count, number}, {when, date, short}: never translate, rename, add or remove them.',
    '- Keep markup tags such as <b>...</b>, <link>...</link> or <a href="...">...</a> with the same names, attributes and nesting; translate the text between them, never attribute values.',
    '- Numbered tags such as <1>...</1> and <0/> (react-i18next components) are markup too: keep each number, its closing tag and the nesting.',
    '- Keep printf specifiers such as %@, %1$@, %lld, %d, %s, %1$s, %.2f and %% exactly as written, each as often as in the source.',
    '- Keep plural, selectordinal and select structure: the same argument names, the keywords plural/selectordinal/select and the select keys stay untouched; translate only the text inside each branch and keep # where the number goes.',
    `- Every {x, plural, ...} in a translation must have exactly these categories for ${tgt}: ${cats} (keep exact =N branches of the source as well), each written with the grammatically correct form for that category.`,
    "- An apostrophe before { } < > or # starts quoted text in ICU; write '' where a literal apostrophe is directly followed by one of those characters.",
    '- Keep leading and trailing spaces and line breaks; use punctuation and capitalization natural for the target language.',
    'An item\'s "references" are earlier translations of similar sources from the team\'s translation memory, each {"source", "translation", "score"} (100: the same text; less: similar text): follow their wording and terminology where the item says the same thing, and translate what differs; never copy a part its source does not say.',
    "- A token such as ⟦1⟧ stands for a placeholder, a markup tag, a format specifier or a name that stays as written: copy each token exactly, as often as the source has it (in every plural branch where the source's branches have it), moved where the sentence needs it; never translate, renumber, add or drop one.",
    'If an item has a "problem", your previous translation of it was rejected for that reason: fix exactly that, keeping the rest.',
    'Give each translation a "confidence" from 0 to 1: how sure you are that it is correct, natural and follows the glossary.',
    'Answer with JSON only: {"translations": [{"id": "<the item\'s id>", "value": "<the translation>", "confidence": <0 to 1>}]}, exactly one entry for every item.',
    ...(instructions
      ? [
          "The team's style guide follows; apply it unless it contradicts the rules above:",
          '<style-guide>',
          instructions.replace(/<\/?style-guide>/gi, ''),
          '</style-guide>',
        ]
      : []),
  ].join('\n');
}

/** The glossary of a request: each distinct entry of its items' terms once, so a batch pays for a term once. */
function glossaryOf(items: TranslationItem[]) {
  const seen = new Map<string, Record<string, unknown>>();
  for (const it of items)
    for (const t of it.terms ?? []) {
      const entry = {
        term: t.source,
        ...(t.nonTranslatable ? { keep: true } : t.forbidden ? { avoid: t.targets } : { translation: t.targets[0] }),
        ...(t.description ? { description: t.description } : {}),
      };
      const id = JSON.stringify(entry);
      if (!seen.has(id)) seen.set(id, entry);
    }
  return [...seen.values()];
}

interface Attempted {
  item: TranslationItem;
  value?: string;
  /** Why the value may not be stored (hard: tokens, ICU, markup, printf), or why no value came. */
  problem?: string;
  /** What the value does against the termbase or the length limit. */
  soft?: string[];
  repaired?: boolean;
  confidence?: number;
}

/** An answer's translations and the engine's own confidence in each, by item id. */
interface Answers {
  values: Map<string, unknown>;
  confidence: Map<string, number>;
}

/** The screenshots as chat content parts, each named by its number before it (the items' "screenshot"). */
function imageParts(shots: Map<TranslationItem, number>) {
  return [...shots].flatMap(([it, n]) => {
    const shot = it.screenshot!;
    return [
      { type: 'text', text: `Screenshot ${n} (${shot.width}×${shot.height} pixels):` },
      { type: 'image_url', image_url: { url: `data:${shot.contentType};base64,${shot.data.toString('base64')}` } },
    ];
  });
}

export class OpenAIEngine implements TranslationEngine {
  readonly name = 'openai';
  readonly maxBatch: number;
  readonly imagesPerRequest: number;
  private readonly url: string;
  /** The endpoint without credentials or query, for error messages. */
  private readonly where: string;
  private readonly headers: Record<string, string>;
  private readonly model: string;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly backoffBaseMs: number;
  private readonly retryAfterCapMs: number;
  private readonly temperature?: number;
  /** Bounds the requests in flight across concurrent translate() calls; a slot is held for one attempt, not its backoff. */
  private readonly slots: LimitFunction;
  /** Falls back to json_object mode once a server has refused json_schema. */
  private structured = true;

  constructor(opts: OpenAIEngineOptions) {
    if (!opts.baseUrl) throw new Error('OpenAI engine: baseUrl is required');
    if (!opts.model) throw new Error('OpenAI engine: model is required');
    const url = new URL(opts.baseUrl);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
    this.url = url.toString();
    this.where = `${url.origin}${url.pathname}`;
    this.headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (opts.apiKey) {
      this.headers.authorization = `Bearer ${opts.apiKey}`;
      // Azure accepts its own header everywhere, Bearer only on some deployments.
      if (/\.(openai|cognitiveservices)\.azure\.com$/.test(url.hostname)) this.headers['api-key'] = opts.apiKey;
    }
    this.model = opts.model;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.maxAttempts = Math.max(1, opts.maxAttempts ?? 4);
    this.backoffBaseMs = opts.backoffBaseMs ?? 500;
    this.retryAfterCapMs = opts.retryAfterCapMs ?? 30_000;
    this.maxBatch = opts.maxBatch ?? 40;
    this.temperature = opts.temperature;
    this.imagesPerRequest = opts.images ? MAX_IMAGES : 0;
    this.slots = pLimit(Math.max(1, opts.concurrency ?? 4));
  }

  async translate(items: TranslationItem[], options: TranslateOptions = {}): Promise<TranslationOutcome[]> {
    const results = new Map<TranslationItem, TranslationOutcome>();
    const askable = items.filter((item) => {
      try {
        pluralCategories(item.targetLang);
        pluralCategories(item.sourceLang);
        return true;
      } catch (e) {
        results.set(item, { id: item.id, error: (e as Error).message });
        return false;
      }
    });
    const settled = await Promise.allSettled(
      this.chunks(askable).map(async (chunk) => {
        for (const o of await this.translateChunk(chunk, options)) results.set(o.item, o.outcome);
      }),
    );
    // Waiting for every chunk first means nothing of this call is still running once it rejects.
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    return items.map((item) => results.get(item)!);
  }

  /** One language pair per chunk, at most maxBatch items, no id twice (answers are matched by id). */
  private chunks(items: TranslationItem[]): TranslationItem[][] {
    const open = new Map<string, { items: TranslationItem[]; ids: Set<string> }>();
    const done: TranslationItem[][] = [];
    for (const item of items) {
      const pair = `${item.sourceLang}\0${item.targetLang}`;
      let chunk = open.get(pair);
      if (!chunk || chunk.items.length >= this.maxBatch || chunk.ids.has(item.id)) {
        chunk = { items: [], ids: new Set() };
        done.push(chunk.items);
        open.set(pair, chunk);
      }
      chunk.items.push(item);
      chunk.ids.add(item.id);
    }
    return done;
  }

  private async translateChunk(
    items: TranslationItem[],
    options: TranslateOptions,
  ): Promise<{ item: TranslationItem; outcome: TranslationOutcome }[]> {
    // What the engine must not change goes to it as tokens (packages/core/src/guard.ts); null: sent as written.
    const masks = new Map(items.map((it) => [it, maskSource(it.source, it.sourceLang, it.terms)]));
    let attempts = this.judge(items, await this.ask(items, new Map(), options, masks), masks, false);
    // One repair request for every value with a problem, hard or soft, naming exactly what was wrong.
    const retry = attempts.filter((a) => a.problem || a.soft?.length);
    if (retry.length) {
      const problems = new Map(retry.map((a) => [a.item, a.problem ?? a.soft!.join('; ')]));
      let second: Attempted[];
      try {
        second = this.judge(
          retry.map((a) => a.item),
          await this.ask(
            retry.map((a) => a.item),
            problems,
            options,
            masks,
          ),
          masks,
          true,
        );
      } catch (e) {
        // The good answers of the first request stand; only the items that needed a second chance fail, and a
        // value with only soft problems keeps its first answer, recorded with them.
        second = retry.map((a) =>
          a.problem
            ? { item: a.item, problem: `${a.problem}; the follow-up request failed: ${(e as Error).message}` }
            : { ...a, repaired: true },
        );
      }
      const byItem = new Map(second.map((a) => [a.item, a]));
      attempts = attempts.map((a) => byItem.get(a.item) ?? a);
    }
    return attempts.map((a) => ({
      item: a.item,
      outcome: a.problem
        ? { id: a.item.id, error: a.problem }
        : {
            id: a.item.id,
            value: a.value!,
            ...(a.soft?.length ? { failures: a.soft } : {}),
            ...(a.repaired ? { repaired: true } : {}),
            ...(a.confidence !== undefined ? { confidence: a.confidence } : {}),
          },
    }));
  }

  /**
   * Each answer with its tokens put back and held to the guards (packages/core/src/guard.ts): tokens, ICU with the
   * language's plural categories, markup, printf (hard), terms and length (soft). `repaired`: the answers of the
   * repair request, whose soft problems are kept with the value rather than asked about again.
   */
  private judge(
    items: TranslationItem[],
    answers: Answers | string,
    masks: Map<TranslationItem, Masked | null>,
    repaired: boolean,
  ): Attempted[] {
    return items.map((item) => {
      if (typeof answers === 'string') return { item, problem: answers };
      if (!answers.values.has(item.id)) return { item, problem: 'no translation returned' };
      const raw = answers.values.get(item.id);
      if (typeof raw !== 'string') return { item, problem: 'translation is not a string' };
      const mask = masks.get(item);
      let text = raw;
      if (mask) {
        const back = unmask(raw, mask);
        if ('problem' in back) return { item, problem: back.problem };
        text = back.value;
      }
      const verdict = judgeValue(text, item);
      if (verdict.hard) return { item, problem: verdict.hard };
      const confidence = answers.confidence.get(item.id);
      return {
        item,
        value: verdict.value!,
        soft: verdict.soft,
        ...(repaired ? { repaired } : {}),
        ...(confidence !== undefined ? { confidence } : {}),
      };
    });
  }

  /** One chat-completions request for items of one language pair: the answers by id, or why there are none. */
  private async ask(
    items: TranslationItem[],
    problems: Map<TranslationItem, string>,
    options: TranslateOptions,
    masks: Map<TranslationItem, Masked | null>,
  ): Promise<Answers | string> {
    const { sourceLang, targetLang } = items[0];
    const glossary = glossaryOf(items);
    // The first items' screenshots, numbered from 1 in the order they are attached.
    const shots = new Map<TranslationItem, number>();
    for (const it of items) if (it.screenshot && shots.size < this.imagesPerRequest) shots.set(it, shots.size + 1);
    const payload = {
      sourceLanguage: sourceLang,
      targetLanguage: targetLang,
      pluralCategories: pluralCategories(targetLang),
      ...(glossary.length ? { glossary } : {}),
      items: items.map((it) => ({
        id: it.id,
        key: it.key,
        context: it.ctx ?? null,
        ...(it.comment ? { comment: it.comment } : {}),
        ...(it.maxLength ? { maxLength: it.maxLength } : {}),
        ...(it.terms?.length ? { terms: [...new Set(it.terms.map((t) => t.source))] } : {}),
        ...(it.related?.length ? { related: it.related } : {}),
        ...(shots.has(it)
          ? { screenshot: shots.get(it), ...(it.screenshot!.region ? { region: it.screenshot!.region } : {}) }
          : {}),
        source: masks.get(it)?.text ?? it.source,
        ...(it.references?.length
          ? { references: it.references.map((r) => ({ source: r.source, translation: r.target, score: r.score })) }
          : {}),
        ...(problems.has(it) ? { problem: problems.get(it) } : {}),
      })),
    };
    const text = JSON.stringify(payload, null, 1);
    const messages = [
      { role: 'system', content: systemPrompt(sourceLang, targetLang, options.instructions, shots.size > 0) },
      { role: 'user', content: shots.size ? [{ type: 'text', text }, ...imageParts(shots)] : text },
    ];
    const answer = await this.post(messages);
    const usage = (answer as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } } | null)?.usage;
    options.onUsage?.({ promptTokens: count(usage?.prompt_tokens), completionTokens: count(usage?.completion_tokens) });
    const choice = (
      answer as { choices?: { message?: { content?: unknown; refusal?: unknown }; finish_reason?: string }[] }
    )?.choices?.[0];
    let content = choice?.message?.content;
    // Content parts: strings, or `{type: 'text', text}` (a part without text, such as a refusal, adds nothing).
    if (Array.isArray(content)) content = (content as unknown[]).map(partText).join('');
    if (typeof content !== 'string' || !content.trim()) {
      const refusal = choice?.message?.refusal;
      return typeof refusal === 'string'
        ? `the model refused: ${refusal.slice(0, 200)}`
        : 'the answer has no message content';
    }
    const confidence = new Map<string, number>();
    const parsed = parseTranslations(content, confidence);
    if (parsed) return { values: parsed, confidence };
    return choice?.finish_reason === 'length'
      ? 'the answer was cut off (finish_reason length)'
      : 'the answer is not the requested JSON';
  }

  private body(messages: unknown[]): string {
    return JSON.stringify({
      model: this.model,
      messages,
      response_format: this.structured
        ? { type: 'json_schema', json_schema: { name: 'translations', strict: true, schema: RESPONSE_SCHEMA } }
        : { type: 'json_object' },
      ...(this.temperature !== undefined ? { temperature: this.temperature } : {}),
    });
  }

  /**
   * POST with retries (p-retry): maxAttempts attempts in all, each under its own timeout, apart by exponential
   * backoff with jitter (between half and all of backoffBaseMs·2^(n-1), at most 30 s). A Retry-After is waited
   * out before that backoff. Resolves to the parsed JSON body or throws EngineUnavailableError.
   */
  private async post(messages: unknown[]): Promise<unknown> {
    let last: AttemptFailed | undefined;
    try {
      return await pRetry(() => this.slots(() => this.attempt(messages)), {
        retries: this.maxAttempts - 1,
        factor: 2,
        minTimeout: Math.min(this.backoffBaseMs / 2, 15_000),
        maxTimeout: 30_000,
        randomize: true,
        onFailedAttempt: async (e) => {
          last = e;
          if (e.retriesLeft > 0 && last.retryAfterMs) await sleep(last.retryAfterMs);
        },
      });
    } catch (e) {
      if (!(e instanceof AttemptFailed)) throw e;
      throw new EngineUnavailableError(
        `${this.where} failed after ${this.maxAttempts} attempts: ${(last ?? e).message}`,
        true,
        (last ?? e).status,
      );
    }
  }

  /** One HTTP attempt: the parsed body, AttemptFailed when another may succeed, else (AbortError) the final refusal. */
  private async attempt(messages: unknown[]): Promise<unknown> {
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: this.headers,
        body: this.body(messages),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await res.text();
    } catch (e) {
      const err = e as Error;
      const cause = (err.cause as Error | undefined)?.message;
      throw new AttemptFailed(
        err.name === 'TimeoutError'
          ? `no answer within ${this.timeoutMs} ms`
          : `network error: ${err.message}${cause ? ` (${cause})` : ''}`,
      );
    }
    if (res.ok) {
      try {
        return JSON.parse(text);
      } catch {
        throw new AttemptFailed(`HTTP ${res.status} with a body that is not JSON`, res.status);
      }
    }
    if (retryableStatus(res.status)) {
      const after = retryAfterMs(res.headers);
      throw new AttemptFailed(
        `HTTP ${res.status}: ${errorSnippet(text)}`,
        res.status,
        after === null ? undefined : Math.min(after, this.retryAfterCapMs),
      );
    }
    if (res.status === 400 && this.structured && /response_format|json_schema/i.test(text)) {
      // Servers without structured outputs (older Ollama/llama.cpp, some Azure api-versions) still do JSON mode.
      this.structured = false;
      throw new AttemptFailed(`HTTP 400: ${errorSnippet(text)}`, res.status);
    }
    throw new AbortError(
      new EngineUnavailableError(`${this.where} answered HTTP ${res.status}: ${errorSnippet(text)}`, false, res.status),
    );
  }
}
