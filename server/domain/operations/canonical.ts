// Canonical JSON (object keys sorted, no whitespace) and the hashes defined over it: a batch's `batchSha256`
// (spec: `TranslateDryRunResult.batchSha256`) and a manifest's `payload_sha256` (`TranslateOperationScopeInput`).
// One definition, used by the dry run that returns a hash and by the check of the batch that carries it; likewise a
// batch's unit count (`OperationBatch.unit_count`), which the dry run stores beside its sample (previews.ts).
import { createHash } from 'node:crypto';
import stableStringify from 'fast-json-stable-stringify';
import { BATCH_FIELDS } from '../../infra/approval.js';
import { readSyncFile } from '../catalog/file.js';

/** Object keys sorted by code unit, no whitespace, values as JSON.stringify writes them (the spec's definition). */
export const canonicalJson = (value: unknown): string => stableStringify(value);

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** SHA-256 of the canonical JSON of a translate or sync body without the operation fields. */
export function batchSha256(body: object): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!(BATCH_FIELDS as readonly string[]).includes(k)) rest[k] = v;
  return sha256Hex(canonicalJson(rest));
}

/** SHA-256 of the canonical JSON `{"batches":[...]}` of a manifest. */
export const payloadSha256 = (batches: unknown[]) => sha256Hex(canonicalJson({ batches }));

/**
 * The units of a batch body as its dry run counts them: a translate's `units`, a re-translation's `cells`, a sync
 * file's entries.
 * A file the sync would refuse is refused here with the same error.
 */
export function batchUnitCount(body: Record<string, unknown>, baseLang: string): number {
  if (Array.isArray(body.units)) return body.units.length;
  if (Array.isArray(body.cells)) return body.cells.length;
  return readSyncFile(body as { contentBase64: string }, baseLang).catalog.entries.length;
}
