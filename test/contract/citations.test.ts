// Comments and docs cite what is in the repository: spec operationIds and schemas, docs/, bench scenarios and tests.
// Never a tracker's issue number, and never the prose documents that live beside the checkout: a reader of the
// repository has neither.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';

const root = path.resolve(import.meta.dirname, '../..');

const SCANNED = [
  'server',
  'packages',
  'bench',
  'scripts',
  'test',
  'spec',
  'generated',
  'docs',
  '.ci',
  'README.md',
  'CONTRIBUTING.md',
];
/** Folders never scanned: installed and built code, and third-party documents kept as test data. */
const SKIPPED = new Set(['node_modules', 'dist', 'test/fixtures']);
const TEXT = /\.(?:[cm]?[jt]s|md|ya?ml|json|html|css)$|^\.ci\/run$/;

const CITATION = /\b(?:API|DESIGN)\.md\b|\b[Ii]ssues? #?\d+/;
/** In prose (docs/, README.md, CONTRIBUTING.md), the folder beside the checkout is no link either. */
const OUTSIDE_LINK = /\.\.\/shared\b/;

function files(rel: string): string[] {
  const abs = path.join(root, rel);
  let entries;
  try {
    entries = readdirSync(abs, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') return TEXT.test(rel) ? [rel] : [];
    throw e;
  }
  return entries.flatMap((d) => {
    const child = path.posix.join(rel, d.name);
    if (SKIPPED.has(d.name) || SKIPPED.has(child)) return [];
    if (d.isDirectory()) return files(child);
    return d.isFile() && TEXT.test(child) ? [child] : [];
  });
}

test('no comment or doc cites an issue number or a document outside the repository', (t) => {
  const scanned = SCANNED.flatMap(files);
  t.true(scanned.length > 300, `scanned ${scanned.length} files`);
  const found: string[] = [];
  for (const file of scanned) {
    const prose = file.endsWith('.md') && (file.startsWith('docs/') || !file.includes('/'));
    readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (CITATION.test(line) || (prose && OUTSIDE_LINK.test(line)))
          found.push(`${file}:${i + 1}: ${line.trim().slice(0, 160)}`);
      });
  }
  t.deepEqual(found, [], 'cite a spec operationId or schema, docs/, a bench scenario or a test instead');
});
