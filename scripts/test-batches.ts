// A whole run's test files in batches: several files of one folder in one AVA worker, each batch an entry file that
// imports its members (`test/service/batch-3.test.js` in the compiled tree). A worker's fixed cost, AVA's own start
// and the service's modules loaded, compiled and warmed up by the JIT again in every process, was about 1.5 CPU-s
// a file: eleven small service files took 27 CPU-s as eleven workers and 11 as one
// (docs/decisions/0037-test-files-batched-per-worker.md). Each member keeps its own service (its hooks start and
// stop it), its own database and its own module scope; its titles get its name (test/helpers/batch-member.ts).
//
// A file that must have a process to itself (it measures its own process, or its deadlines count wall time while
// the same process also answers it) says so with a line holding `test-batch: alone` and why, and runs as its own
// worker.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { compiledName as compiled, WEIGHTS_FILE } from './test-build.js';

/** The marker of a file that runs as its own worker. */
const ALONE = 'test-batch: alone';

/**
 * The most source a batch holds, in bytes of TypeScript (a rough measure of a file's work): about the largest test
 * file. A larger batch saves little more and holds more of the run's end on one process.
 */
const BATCH_BYTES = 50_000;

/**
 * Writes the batches of `files` (test files of the checkout, `test/x/y.test.ts`) into the compiled tree `dir`,
 * points each member's `ava` import at test/helpers/batch-member.js and returns what AVA runs: the batches' entry
 * files and the files that run alone. Files are batched with their folder's only.
 */
export function batchTests(dir: string, files: string[]): string[] {
  const byFolder = new Map<string, Array<{ file: string; bytes: number }>>();
  const out = { files: [] as string[], weights: {} as Record<string, number> };
  for (const file of files) {
    const source = readFileSync(path.join(dir, file), 'utf8');
    if (source.includes(ALONE)) {
      out.files.push(compiled(file));
      out.weights[compiled(file)] = source.length;
      continue;
    }
    const folder = path.posix.dirname(file);
    const members = byFolder.get(folder) ?? [];
    members.push({ file, bytes: source.length });
    byFolder.set(folder, members);
  }
  for (const [folder, members] of byFolder) {
    // First fit, largest first: few batches, none much over BATCH_BYTES.
    const bins: Array<{ members: string[]; bytes: number }> = [];
    for (const m of members.sort((a, b) => b.bytes - a.bytes)) {
      const bin = bins.find((b) => b.bytes + m.bytes <= BATCH_BYTES);
      if (bin) {
        bin.members.push(m.file);
        bin.bytes += m.bytes;
      } else bins.push({ members: [m.file], bytes: m.bytes });
    }
    bins.forEach((bin, i) => {
      if (bin.members.length === 1) {
        out.files.push(compiled(bin.members[0]));
        out.weights[compiled(bin.members[0])] = bin.bytes;
        return;
      }
      const entry = `${folder}/batch-${i + 1}.test.js`;
      const helper = path.posix.relative(folder, 'test/helpers/batch-member.js');
      const imports = bin.members.map((m) => {
        const name = path.posix.basename(m, '.test.ts');
        const member = compiled(m);
        const text = readFileSync(path.join(dir, member), 'utf8');
        if (!text.includes(AVA_IMPORT)) throw new Error(`${m}: no \`${AVA_IMPORT}\` to point at the batch's AVA`);
        writeFileSync(
          path.join(dir, member),
          text.replace(AVA_IMPORT, `import test from "${helper}?file=${encodeURIComponent(name)}";`),
        );
        return `import './${path.posix.basename(member)}';\n`;
      });
      writeFileSync(path.join(dir, entry), imports.join(''));
      out.files.push(entry);
      out.weights[entry] = bin.bytes;
    });
  }
  writeFileSync(path.join(dir, WEIGHTS_FILE), JSON.stringify(out.weights));
  return out.files;
}

/** How esbuild writes a test file's import of AVA. */
const AVA_IMPORT = 'import test from "ava";';
