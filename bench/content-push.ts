// Pushing a 200-block markdown document (PUT /content/{docId}, real prose: lib/content.ts) over HTTP, as a
// first push (a new document) and as a re-push with one block changed (alternating between two texts that differ
// in one paragraph, so every re-push really changes a block and carries the 199 others' ids over), against
// parsing the same text with remark alone (unified + remark-parse + remark-gfm + remark-frontmatter, the parser
// blocks.ts uses) in this process. Rounds alternate (push, parse, ...) and medians are compared.
// Target: a re-push with one block changed at most 3x the parse.
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { median, type Scenario } from './lib/compare.js';
import { startService, stop } from './lib/servers.js';
import { BLOCKS, DOCUMENT, EDITED, enableContent, putDocument } from './lib/content.js';

// Requests are spread over a few projects, so the 120/minute window stays far away.
const PROJECTS = 4;
const ROUNDS = 60;
/** A first push (a new document) every FIRST_EVERY rounds. */
const FIRST_EVERY = 3;

const parser = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter, ['yaml', 'toml']);

function parse(text: string): number {
  const t0 = performance.now();
  parser.parse(text);
  return performance.now() - t0;
}

export const scenario: Scenario = {
  name: `content push: PUT /content/{docId} of a ${BLOCKS}-block markdown document, re-pushed with one block changed, vs remark parsing the same text (ms)`,
  async run() {
    const svc = await startService({
      BENCH_LANGS: 'de,fr',
      BENCH_PROJECTS: String(PROJECTS),
      BENCH_SCOPES: 'write',
    });
    const { projects } = svc.info;
    const first: number[] = [];
    const repush: number[] = [];
    const parses: number[] = [];
    // The text each project's document holds now: a re-push sends the other one.
    const holds = projects.map(() => DOCUMENT);
    const push = async (p: number, docId: string, text: string, created: boolean) => {
      const t0 = performance.now();
      const r = await putDocument(svc.info, projects[p], docId, { title: 'Page bundles and Express', text });
      const ms = performance.now() - t0;
      if (!r.changed || r.created !== created) throw new Error(`push of ${docId}: ${JSON.stringify(r)}`);
      return ms;
    };
    const repushOne = (p: number) => {
      holds[p] = holds[p] === DOCUMENT ? EDITED : DOCUMENT;
      return push(p, 'doc', holds[p], false);
    };
    try {
      for (const p of projects) await enableContent(svc.info, p.projectId);
      // Warm-up of both (JIT, page cache), not counted: each project's document created and re-pushed twice.
      for (let p = 0; p < projects.length; p++) {
        await push(p, 'doc', DOCUMENT, true);
        await repushOne(p);
        await repushOne(p);
      }
      for (let i = 0; i < 5; i++) parse(i % 2 ? EDITED : DOCUMENT);
      for (let round = 0; round < ROUNDS; round++) {
        const p = round % projects.length;
        repush.push(await repushOne(p));
        parses.push(parse(holds[p]));
        if (round % FIRST_EVERY === 0) {
          first.push(await push(p, `first-${round}`, DOCUMENT, true));
          parses.push(parse(DOCUMENT));
        }
      }
    } finally {
      await stop(svc);
    }
    const a = median(repush);
    const f = median(first);
    const b = median(parses);
    return {
      figure:
        `re-push with one block changed ${a.toFixed(1)} ms (median of ${repush.length}); ` +
        `first push ${f.toFixed(1)} ms (median of ${first.length}, ${(f / b).toFixed(2)}x the parse)`,
      baseline: `${b.toFixed(1)} ms per remark parse of the same ${DOCUMENT.length.toLocaleString('en')} characters (median of ${parses.length})`,
      ratio: a / b,
      target: '<= 3',
    };
  },
};
