// A content run of the 200-block markdown document (lib/content.ts) into 10 languages with the pseudo
// engine, through the real jobs: from POST /content/{docId}/run (one job per language, holds) to every job done
// by run-due (protect, engine batches, restore and shape check, one fenced transaction per language with its
// charge), as fill.ts measures the fill jobs. Figure: blocks x languages per second (the title is translated too,
// and not counted). Baseline: the pseudo engine's translate() alone, in this process, on the same protected
// messages (inline.ts protectBlock), in the engine's batches, one language after the other.
// Each round is a document of its own, with every block new (a round tag in front of each), so neither side finds
// its answers in the pseudo engine's memo of sources; rounds alternate (run, engine, ...) and medians are compared.
// No target is set for this one: the figures are reported, and the verdict is always met.
import { alternate, list, median, type Scenario } from './lib/compare.js';
import { splitDocument } from '../server/domain/content/blocks.js';
import { protectBlock } from '../server/domain/content/inline.js';
import { openDb } from '../server/infra/db.js';
import { PseudoEngine } from '../server/infra/engines/pseudo.js';
import type { components } from '../generated/openapi.js';
import { json } from './lib/http.js';
import { startService, stop } from './lib/servers.js';
import { BLOCKS, enableContent, putDocument, tagged } from './lib/content.js';
import { TARGETS_10 } from './lib/languages.js';

const LANGS = TARGETS_10;
const ROUNDS = 5;
const PAIRS = BLOCKS * LANGS.length;

/** Every block of `docId` translated into every language, none given up on, no run left open. */
async function checkRun(databaseUrl: string, projectId: string, docId: string): Promise<void> {
  const db = openDb(databaseUrl);
  try {
    const doc = { project_id: projectId, doc_id: docId };
    const [{ n: done }] = await db('content_units')
      .where({ ...doc, gave_up: false })
      .whereNotNull('text')
      .whereNot('unit_id', 'like', '@%')
      .count({ n: '*' });
    const [{ n: open }] = await db('content_langs').where(doc).whereNotNull('run_id').count({ n: '*' });
    if (Number(done) !== PAIRS || Number(open))
      throw new Error(`run of ${docId} incomplete: ${done}/${PAIRS} blocks translated, ${open} languages running`);
  } finally {
    await db.destroy();
  }
}

export const scenario: Scenario = {
  name: `content run: POST /content/{docId}/run of a ${BLOCKS}-block markdown document into ${LANGS.length} languages + run-due, pseudo engine, vs the engine alone on the same protected blocks (blocks x languages/s)`,
  async run() {
    const svc = await startService({
      BENCH_LANGS: LANGS.join(','),
      BENCH_SCOPES: 'write,translate',
      TRANSLATION_ENGINE: 'pseudo',
    });
    const project = svc.info.projects[0];
    const admin = { authorization: 'Bearer bench', 'content-type': 'application/json' };

    /** Pushes the round's document (not timed), then runs it; seconds from the run request to run-due's answer. */
    const contentRound = async (tag: string) => {
      const docId = `run-${tag}`;
      await putDocument(svc.info, project, docId, { title: `Page bundles and Express ${tag}`, text: tagged(tag) });
      const t0 = performance.now();
      const res = await fetch(`${svc.info.base}/projects/${project.projectId}/content/${docId}/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ confirm: true }),
      });
      const started = await json<components['schemas']['ContentRunResult']>(res);
      if (res.status !== 200 || started.jobs.length !== LANGS.length)
        throw new Error(`run of ${docId}: ${res.status} ${JSON.stringify(started).slice(0, 300)}`);
      const due = await fetch(`${svc.info.adminUrl}/jobs/run-due`, { method: 'POST', headers: admin, body: '{}' });
      const ran = (await due.json()) as { ran: number; failed: number };
      const seconds = (performance.now() - t0) / 1000;
      if (due.status !== 200 || ran.failed) throw new Error(`run-due: ${due.status} ${JSON.stringify(ran)}`);
      await checkRun(svc.info.databaseUrl, project.projectId, docId);
      return seconds;
    };

    /**
     * The pseudo engine on the round's protected blocks, batched as the run batches them; seconds. With
     * `pipeline`, each language also protects its blocks and restores the answers, as the run's job does.
     */
    const engine = new PseudoEngine();
    const engineRound = async (tag: string, pipeline = false) => {
      const blocks = splitDocument('markdown', tagged(tag));
      const protect = () => blocks.map((b) => protectBlock('markdown', b.type, b.text));
      const protectedOnce = protect();
      const t0 = performance.now();
      let failed = 0;
      for (const lang of LANGS) {
        const guards = pipeline ? protect() : protectedOnce;
        for (let i = 0; i < guards.length; i += engine.maxBatch) {
          const batch = guards.slice(i, i + engine.maxBatch);
          const items = batch.map((g, k) => ({
            id: String(i + k),
            key: `doc/${i + k}`,
            source: g.message,
            sourceLang: 'en',
            targetLang: lang,
          }));
          for (const [k, o] of (await engine.translate(items)).entries())
            if (o.value === undefined || (pipeline && !('text' in batch[k].restore(o.value)))) failed++;
        }
      }
      const seconds = (performance.now() - t0) / 1000;
      if (failed) throw new Error(`${failed} of ${PAIRS} blocks failed`);
      return seconds;
    };

    let rounds;
    try {
      await enableContent(svc.info, project.projectId);
      // A warm-up round of each (JIT, page cache), not counted.
      rounds = await alternate(
        {
          runs: async (r) => PAIRS / (await contentRound(`R${r}`)),
          engines: async (r) => PAIRS / (await engineRound(`R${r}`)),
          // A tag of its own: the engine's memo holds the round's sources now.
          pipelines: async (r) => PAIRS / (await engineRound(`P${r}`, true)),
        },
        { rounds: ROUNDS, warmup: 1 },
      );
    } finally {
      await stop(svc);
    }
    const { runs, engines, pipelines } = rounds;
    const a = median(runs);
    const b = median(engines);
    return {
      figure: `${a.toFixed(0)} blocks x languages/s, ${((PAIRS / a) * 1000).toFixed(0)} ms per run of ${PAIRS.toLocaleString('en')} (rounds: ${list(runs)})`,
      baseline:
        `${b.toFixed(0)} blocks x languages/s for the pseudo engine alone (rounds: ${list(engines)}); ` +
        `${median(pipelines).toFixed(0)}/s with protectBlock and restore per language around it (rounds: ${list(pipelines)})`,
      ratio: a / b,
      target: 'none set, reported only',
      met: true,
    };
  },
};
