// The only thing a dry run stores (spec/README.md): a sample of a previewed batch's source strings (the first 5,
// each cut to 200 characters) and its estimate under its `batchSha256`, so the approval page can show a person what
// the batches of an operation say and cost, which the manifest's hashes alone cannot. Kept 24 hours, then swept (sweep.ts). Best
// effort: a store that refuses the write costs the preview nothing but the sample.
import type { Db } from '../../infra/db.js';
import type { Logger } from '../../infra/log.js';
import { batchSha256 } from './canonical.js';

const SAMPLE_SIZE = 5;
const SAMPLE_CHARS = 200;
const PREVIEW_KEEP_MS = 24 * 3600_000;

/**
 * A dry run of translate or sync: the `batchSha256` the batch must carry when sent under an operation (canonical.ts),
 * with the sample of its `sources` and the run's estimate (millicredits) stored under it for the approval page.
 */
export async function previewBatch(
  db: Db,
  log: Logger,
  projectId: string,
  body: object,
  preview: { sources: string[]; estimateMc: number },
  now = Date.now(),
): Promise<string> {
  const { sources, estimateMc } = preview;
  const sha = batchSha256(body);
  const sample = sources.slice(0, SAMPLE_SIZE).map((s) => {
    const chars = [...s];
    return chars.length > SAMPLE_CHARS ? `${chars.slice(0, SAMPLE_CHARS - 1).join('')}…` : s;
  });
  try {
    await db('batch_previews')
      .insert({
        project_id: projectId,
        batch_sha256: sha,
        sample: JSON.stringify(sample),
        unit_count: sources.length,
        estimate_mc: estimateMc,
        expires_at: now + PREVIEW_KEEP_MS,
      })
      .onConflict(['project_id', 'batch_sha256'])
      // The latest dry run's estimate: values filled since make a batch cheaper.
      .merge(['expires_at', 'estimate_mc']);
  } catch (err) {
    log.warn({ err, projectId }, 'storing a batch preview sample failed');
  }
  return sha;
}
