// Canonical JSON (object keys sorted, no whitespace) and the hashes defined over it: a batch's `batchSha256`
// (spec: `TranslateDryRunResult.batchSha256`) and a manifest's `payload_sha256` (`TranslateOperationScopeInput`).
// One definition, used by the dry run that returns a hash and by the check of the batch that carries it.
import { createHash } from 'node:crypto';
import { BATCH_FIELDS } from '../platform/approval.js';

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** SHA-256 of the canonical JSON of a translate or sync body without the operation fields. */
export function batchSha256(body: object): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!(BATCH_FIELDS as readonly string[]).includes(k)) rest[k] = v;
  return sha256Hex(canonicalJson(rest));
}

/** SHA-256 of the canonical JSON `{"batches":[...]}` of a manifest. */
export const payloadSha256 = (batches: unknown[]) => sha256Hex(canonicalJson({ batches }));
