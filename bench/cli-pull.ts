// `glossa pull` of 20 languages x 2 formats (json, android_xml; 1,000 keys) through bulk export (one zip
// per format, plus the version listing), against the same 40 files fetched with one HTTP GET each by a bare client
// (sequential fetch + writeFile, as a curl loop in CI does). Both write every file into a fresh folder each round.
// Target: at most 1.2x. The API's limit of 120 requests a minute per project allows only three such bare pulls a
// minute: each round starts at a fresh window (they are aligned to the minute) and takes one sequential and one
// parallel bare pull and four glossa pulls (92 requests), so neither side meets a 429. About three minutes. A bare client with 8 GETs in flight is shown beside.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pLimit from 'p-limit';
import { median, type Scenario } from './lib/compare.js';
import { run } from '../packages/cli/src/main.js';
import { REGISTRY } from '../packages/core/src/formats/index.js';
import { TARGETS_19 } from './lib/languages.js';
import { startService, stop } from './lib/servers.js';

const KEYS = 1_000;
const WINDOWS = 3;
const LANGS = TARGETS_19;
const FORMATS = ['json', 'android_xml'] as const;

class Null extends Writable {
  override _write(_c: Buffer, _e: string, done: () => void) {
    done();
  }
}

export const scenario: Scenario = {
  name: `glossa pull, ${LANGS.length + 1} languages x ${FORMATS.length} formats (${KEYS.toLocaleString('en')} keys), vs one GET per file by a bare client (ms)`,
  async run() {
    const svc = await startService({
      BENCH_LANGS: LANGS.join(','),
      BENCH_SCOPES: 'admin',
      BENCH_SEED_KEYS: String(KEYS),
      BENCH_FORMATS: FORMATS.join(','),
    });
    const work = mkdtempSync(path.join(os.tmpdir(), 'glossa-bench-cli-'));
    const ours: number[] = [];
    const bare: number[] = [];
    const parallel: number[] = [];
    let files = 0;
    let bytes = 0;
    try {
      const { projectId, apiKey } = svc.info.projects[0];
      {
        const headers = { authorization: `Bearer ${apiKey}` };
        const res = await fetch(`${svc.info.base}/projects/${projectId}/publish`, { method: 'POST', headers });
        if (res.status !== 201) throw new Error(`publish: ${res.status} ${await res.text()}`);
        const { versionId } = (await res.json()) as { versionId: string };
        const config = {
          baseUrl: svc.info.base,
          projectId,
          includeBase: true,
          files: [
            { source: 'locales/en.json', format: 'json', template: 'locales/{locale}.json' },
            { source: 'res/values/strings.xml', format: 'android_xml', template: 'res/values-{android}/strings.xml' },
          ],
        };
        const glossaPull = async (dir: string) => {
          mkdirSync(dir, { recursive: true });
          writeFileSync(path.join(dir, 'glossa.config.json'), JSON.stringify(config));
          const t0 = performance.now();
          const code = await run(['pull', '--version', versionId], {
            cwd: dir,
            env: { GLOSSA_API_KEY: apiKey },
            stdout: new Null(),
            stderr: process.stderr,
          });
          if (code !== 0) throw new Error(`glossa pull exited ${code}`);
          return performance.now() - t0;
        };
        const targets = FORMATS.flatMap((format) =>
          ['en', ...LANGS].map((lang) => ({
            url: `${svc.info.base}/projects/${projectId}/translations?version=${versionId}&format=${format}&lang=${lang}`,
            file: REGISTRY[format].path(lang, lang === 'en'),
          })),
        );
        const barePull = async (dir: string, concurrency: number) => {
          const limit = pLimit(concurrency);
          const t0 = performance.now();
          let n = 0;
          await Promise.all(
            targets.map((x) =>
              limit(async () => {
                const r = await fetch(x.url, { headers });
                const body = new Uint8Array(await r.arrayBuffer());
                if (r.status !== 200) throw new Error(`${x.url}: ${r.status}`);
                const dest = path.join(dir, x.file);
                mkdirSync(path.dirname(dest), { recursive: true });
                await writeFile(dest, body);
                n += body.length;
              }),
            ),
          );
          bytes = n;
          return performance.now() - t0;
        };
        await glossaPull(path.join(work, 'warm-up'));
        for (let w = 0; w < WINDOWS; w++) {
          await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 50));
          for (let round = 0; round < 4; round++) {
            ours.push(await glossaPull(path.join(work, `g${w}-${round}`)));
            if (round === 0) bare.push(await barePull(path.join(work, `b${w}`), 1));
            else if (round === 1) parallel.push(await barePull(path.join(work, `p${w}`), 8));
          }
        }
        files = targets.length;
      }
    } finally {
      await stop(svc);
      rmSync(work, { recursive: true, force: true });
    }
    const ms = median(ours);
    const floor = median(bare);
    return {
      figure: `${ms.toFixed(1)} ms per glossa pull (in-process, median of ${ours.length}): 3 requests, ${files} files written (${(bytes / 1e6).toFixed(2)} MB)`,
      baseline: `${floor.toFixed(1)} ms for ${files} sequential GETs + writes (median of ${bare.length}); ${median(parallel).toFixed(1)} ms with 8 in flight (median of ${parallel.length}); ${files} of the project's 120 requests a minute`,
      ratio: ms / floor,
      target: '<= 1.2',
    };
  },
};
