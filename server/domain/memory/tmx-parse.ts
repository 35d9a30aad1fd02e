// The TMX import's parse (tmx-pool.ts runs it on a thread of its own): the base64 decoded and checked, the file read
// by packages/core/src/formats/tmx.ts `parseTmx`, and the pairs handed back over `port` in slices, so the event loop
// that receives them copies one slice per turn instead of the whole memory at once. A refusal comes back as data:
// an error crossing a thread loses everything but its message, and the route answers each reason differently.
import type { MessagePort } from 'node:worker_threads';
import { parseTmx, TmxError, type TmxParsed } from '../../../packages/core/src/formats/tmx.js';

export interface TmxParseInput {
  contentBase64: string;
  maxBytes: number;
  maxEntries: number;
  sourceLanguage: string;
  /** The target languages taken; every language when absent. */
  targetLanguages?: string[];
  /** Where the pairs go, SLICE at a time. */
  port: MessagePort;
}

/** A pair as it crosses the thread: only what an import keeps. */
export interface TmxPair {
  sourceLanguage: string;
  targetLanguage: string;
  source: string;
  target: string;
  ctx: string | null;
  status: string | null;
}

export type TmxParseOutput =
  | {
      refused: null;
      slices: number;
      units: number;
      entries: number;
      empty: number;
      skipped: TmxParsed['skipped'];
      creationTool: string | null;
    }
  | {
      refused: {
        code: 'invalid_base64' | 'payload_too_large' | 'too_many_entries' | 'invalid_argument' | 'format_mismatch';
        message: string;
      };
    };

const MAX_LANGUAGE = 35;
const MAX_CTX = 2_000;
const MAX_TEXT = 100_000;

/** Pairs per message: a few hundred kilobytes to copy on the receiving side. */
const SLICE = 2_000;

function decode(base64: string, maxBytes: number): Uint8Array | TmxParseOutput {
  const compact = /\s/.test(base64) ? base64.replace(/\s+/g, '') : base64;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1)
    return { refused: { code: 'invalid_base64', message: 'contentBase64 is not valid base64.' } };
  // Its decoded length, known before decoding: a file over the limit is refused without allocating it.
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  const size = Math.floor((compact.length * 3) / 4) - padding;
  if (size > maxBytes)
    return {
      refused: { code: 'payload_too_large', message: `The decoded file is ${size} bytes; at most ${maxBytes}.` },
    };
  return Buffer.from(compact, 'base64');
}

export function parseTmxTask(input: TmxParseInput): TmxParseOutput {
  {
    const bytes = decode(input.contentBase64, input.maxBytes);
    if (!(bytes instanceof Uint8Array)) return bytes;
    let parsed: TmxParsed;
    try {
      parsed = parseTmx(bytes, {
        maxBytes: input.maxBytes,
        sourceLanguage: input.sourceLanguage,
        targetLanguages: input.targetLanguages,
      });
    } catch (err) {
      if (!(err instanceof TmxError)) throw err;
      return {
        refused: {
          code:
            err.reason === 'too_large'
              ? 'payload_too_large'
              : err.reason === 'not_tmx'
                ? 'format_mismatch'
                : 'invalid_argument',
          message: `The file was refused: ${err.message}.`,
        },
      };
    }
    if (parsed.entries.length > input.maxEntries)
      return {
        refused: {
          code: 'too_many_entries',
          message: `The file holds ${parsed.entries.length} pairs; at most ${input.maxEntries}.`,
        },
      };
    // What the memory's columns hold (migration 027): a language code of 35 characters, a ctx as the API takes it,
    // a text of a size no message comes near; refused here, before anything is written, not by the database midway.
    for (const [i, e] of parsed.entries.entries()) {
      const problem =
        e.targetLanguage.length > MAX_LANGUAGE
          ? `the language code "${e.targetLanguage.slice(0, 40)}" is longer than ${MAX_LANGUAGE} characters`
          : e.ctx !== null && e.ctx.length > MAX_CTX
            ? `its ctx is longer than ${MAX_CTX} characters`
            : e.source.length > MAX_TEXT || e.target.length > MAX_TEXT
              ? `a segment is longer than ${MAX_TEXT} characters`
              : null;
      if (problem)
        return { refused: { code: 'invalid_argument', message: `The file was refused: pair ${i + 1}: ${problem}.` } };
    }
    let slices = 0;
    for (let i = 0; i < parsed.entries.length; i += SLICE) {
      input.port.postMessage(
        parsed.entries.slice(i, i + SLICE).map((e): TmxPair => ({
          sourceLanguage: e.sourceLanguage,
          targetLanguage: e.targetLanguage,
          source: e.source,
          target: e.target,
          ctx: e.ctx,
          status: e.status,
        })),
      );
      slices++;
    }
    return {
      refused: null,
      slices,
      units: parsed.units,
      entries: parsed.entries.length,
      empty: parsed.emptySegments,
      skipped: parsed.skipped,
      creationTool: parsed.header.creationTool,
    };
  }
}
