// A local stand-in for an OpenAI-compatible chat-completions endpoint: real HTTP on 127.0.0.1, every request
// recorded, each answer decided by the test (good JSON, broken ICU, missing ids, 429, 500, slow answers).
//
//   const fake = await startFakeOpenAI(translateAll((item) => `PL ${item.source}`));
//   new OpenAIEngine({ baseUrl: fake.url, model: 'fake', backoffBaseMs: 1 });
//   ...; await fake.close();
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

interface FakeItem {
  id: string;
  key: string;
  context: string | null;
  source: string;
  /** Translation memory matches sent with the item (server/infra/engines/openai.ts). */
  references?: Array<{ source: string; translation: string; score: number }>;
  problem?: string;
}

export interface FakeRequest {
  /** 0 for the first request this server received. */
  index: number;
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The body as received. */
  text: string;
  /** The body parsed as JSON, read as the engine's chat request; undefined when the body is not JSON. */
  body?: ChatRequest;
}

type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

/** A chat-completions request as the OpenAI engine sends it. */
interface ChatRequest {
  model: string;
  /** Text, or content parts: the JSON's text first, then images (server/infra/engines/openai.ts imageParts). */
  messages: { role: string; content: string | ContentPart[] }[];
  response_format: {
    type: string;
    json_schema?: { name: string; strict: boolean; schema: { required?: string[] } };
  };
  temperature?: number;
}

export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON; takes precedence over `body`. */
  json?: unknown;
  body?: string;
  /** Waits this long before answering (the client may give up first). */
  delayMs?: number;
}

export type FakeHandler = (req: FakeRequest) => FakeReply | Promise<FakeReply>;

export interface FakeOpenAI {
  /** Base URL to configure (`OPENAI_BASE_URL`): `http://127.0.0.1:<port>/v1`. */
  url: string;
  requests: FakeRequest[];
  /** Requests received and not yet answered or abandoned. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  setHandler(handler: FakeHandler): void;
  close(): Promise<void>;
}

/** A 200 chat.completion whose message content is `content` (objects are sent as JSON text). */
export function completion(
  content: string | object,
  opts: { finishReason?: string; delayMs?: number } = {},
): FakeReply {
  return {
    delayMs: opts.delayMs,
    json: {
      id: `chatcmpl-fake-${Math.random().toString(36).slice(2, 10)}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: 'fake',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: typeof content === 'string' ? content : JSON.stringify(content) },
          finish_reason: opts.finishReason ?? 'stop',
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    },
  };
}

/** An OpenAI-style error answer. */
export function errorReply(
  status: number,
  headers: Record<string, string> = {},
  message = `fake error ${status}`,
): FakeReply {
  return { status, headers, json: { error: { message, type: 'fake_error', code: null } } };
}

/** The JSON payload of the request's last user message (the OpenAI engine sends the items there). */
export function requestPayload(req: FakeRequest): {
  sourceLanguage: string;
  targetLanguage: string;
  pluralCategories: string[];
  items: FakeItem[];
} {
  const messages = req.body?.messages ?? [];
  const user = [...messages].reverse().find((m) => m.role === 'user');
  const content = user?.content ?? '{}';
  const text = typeof content === 'string' ? content : content.find((p) => p.type === 'text')!.text;
  return JSON.parse(text) as ReturnType<typeof requestPayload>;
}

/** The system prompt the request carries ('' without one). */
export function systemOf(req: FakeRequest): string {
  const content = req.body?.messages.find((m) => m.role === 'system')?.content ?? '';
  return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

export function requestItems(req: FakeRequest): FakeItem[] {
  return requestPayload(req).items ?? [];
}

/**
 * Answers every item of a request with `translate(item)` as `{"translations": [...]}`; returning undefined leaves
 * the item out of the answer. The default echoes the source with a language prefix, which passes the ICU gate.
 */
export function translateAll(
  translate: (item: FakeItem, req: FakeRequest) => string | undefined = (item, req) =>
    `${requestPayload(req).targetLanguage}: ${item.source}`,
  opts: { delayMs?: number } = {},
): FakeHandler {
  return (req) => {
    const translations = requestItems(req).flatMap((item) => {
      const value = translate(item, req);
      return value === undefined ? [] : [{ id: item.id, value }];
    });
    return completion({ translations }, opts);
  };
}

/** Request n gets handlers[n]; requests past the end get `rest` (default: translateAll()). */
export function sequence(handlers: FakeHandler[], rest: FakeHandler = translateAll()): FakeHandler {
  return (req) => (handlers[req.index] ?? rest)(req);
}

/** The service's environment for TRANSLATION_ENGINE=openai against `fake` (a model name and a key it never checks). */
export const openAiEnv = (fake: FakeOpenAI) => ({
  TRANSLATION_ENGINE: 'openai',
  OPENAI_BASE_URL: fake.url,
  OPENAI_MODEL: 'fake-model',
  OPENAI_API_KEY: 'sk-test-secret',
});

export async function startFakeOpenAI(handler: FakeHandler = translateAll()): Promise<FakeOpenAI> {
  const requests: FakeRequest[] = [];
  let current = handler;
  let inFlight = 0;
  let maxInFlight = 0;
  const timers = new Map<NodeJS.Timeout, () => void>();

  const answer = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let counted = true;
    const done = () => {
      if (counted) inFlight--;
      counted = false;
    };
    // 'close' fires both after the answer is sent and when the client gives up (timeout, abort).
    res.on('close', done);
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      let body: ChatRequest | undefined;
      try {
        body = JSON.parse(text) as ChatRequest;
      } catch {
        // not JSON: `text` has it
      }
      const record: FakeRequest = {
        index: requests.length,
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        text,
        body,
      };
      requests.push(record);
      const reply: FakeReply =
        req.method === 'POST' && /\/chat\/completions$/.test((req.url ?? '').split('?')[0])
          ? await current(record)
          : errorReply(404, {}, `no route ${req.method} ${req.url}`);
      if (reply.delayMs) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(() => {
            timers.delete(t);
            resolve();
          }, reply.delayMs);
          timers.set(t, resolve);
        });
      }
      if (res.destroyed || res.writableEnded) return;
      const payload = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.body ?? '');
      res.writeHead(reply.status ?? 200, {
        'content-type': reply.json !== undefined ? 'application/json' : 'text/plain',
        ...reply.headers,
      });
      res.end(payload);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`fake handler failed: ${(e as Error).message}`);
    }
  };
  const server = http.createServer((req, res) => void answer(req, res));

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    setHandler(h) {
      current = h;
    },
    async close() {
      server.closeAllConnections();
      // Slow answers still waiting are released; their sockets are gone, so they write nothing.
      for (const [t, resolve] of timers) {
        clearTimeout(t);
        resolve();
      }
      timers.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
