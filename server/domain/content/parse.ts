// Parsing a pushed text into blocks, the CPU-heavy step of a push, run on a parser thread (parse-pool.ts). Every
// bound on the input is checked here, so that whatever the text, the answer is blocks or a reason for a refusal,
// never a thrown stack overflow: the pre-scan's limits, then the tree's depth, then (around this, in the pool) a
// deadline.
import type { MessagePort } from 'node:worker_threads';
import { NestingTooDeep, detectFormat, splitDocument, type DocFormat, type ParsedBlock } from './blocks.js';
import { prescan } from './prescan.js';

export interface ParseInput {
  /** Detected from the text when undefined (detection runs regular expressions over the whole text: here too). */
  format?: DocFormat;
  text: string;
}

export type ParseOutput = { format: DocFormat; blocks: ParsedBlock[] } | { format: DocFormat; refused: string };

function parseText({ format: given, text }: ParseInput): ParseOutput {
  const format = given ?? detectFormat(text);
  const refused = prescan(format, text);
  if (refused) return { format, refused };
  try {
    return { format, blocks: splitDocument(format, text) };
  } catch (err) {
    if (err instanceof NestingTooDeep) return { format, refused: err.message };
    // The parser's own recursion ran out of stack before the tree could be measured (parse5's tree converter).
    if (err instanceof RangeError) return { format, refused: 'the text nests too deeply to parse' };
    throw err;
  }
}

/** The parser thread's task: says it started (the pool's deadline counts from then), then parses. */
export function parseTask(input: ParseInput & { started: MessagePort }): ParseOutput {
  input.started.postMessage('started');
  input.started.close();
  return parseText({ format: input.format, text: input.text });
}
