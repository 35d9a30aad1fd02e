// printf: an Apple or Android runtime formats the string with printf (`String(format:)`, `getString(id, a, b)`), so a
// lost or changed specifier crashes it or shows the wrong argument. `printf-specifiers` is a gate rule
// (packages/core/src/gates.ts): its message is the gate's.
import { printfSpecifiers } from '../../printf.js';
import { define, found } from '../define.js';
import type { BranchView } from '../branches.js';
import type { Finding } from '../types.js';

/** The printf specifiers of a text as a sorted multiset, `%%` left out (an escape, not an argument). */
function printfScan(text: string): string[] {
  return printfSpecifiers(text)
    .map((s) => s.spec)
    .filter((s) => s !== '%%')
    .sort();
}

/** What `a` has beyond `b`, both sorted multisets. */
function beyond(a: string[], b: string[]): string[] {
  const rest = [...b];
  return a.filter((x) => {
    const i = rest.indexOf(x);
    if (i === -1) return true;
    rest.splice(i, 1);
    return false;
  });
}

function specifierProblem(views: BranchView[]): string | null {
  for (const v of views) {
    const have = printfScan(v.value);
    if (v.sources.some((s) => printfScan(s).join('\0') === have.join('\0'))) continue;
    const want = printfScan(v.sources[0]);
    const missing = beyond(want, have);
    const extra = beyond(have, want);
    return `printf specifiers differ${v.label}: ${[
      missing.length ? `missing ${missing.join(' ')}` : '',
      extra.length ? `unexpected ${extra.join(' ')}` : '',
    ]
      .filter(Boolean)
      .join('; ')}`;
  }
  return null;
}

export const printfSpecifiersCheck = define({
  id: 'printf-specifiers',
  description:
    'The translation has the same printf specifiers as its source (`%lld`, `%1$@`, `%.2f`), branch by branch; `%%` aside.',
  severity: 'error',
  category: 'placeholders',
  field: 'target',
  languages: 'All languages; plural branches as for markup-tags.',
  trips: [
    { source: 'Shared by %1$@', target: 'Geteilt' },
    { source: '%.2f km', target: '%.1f km' },
  ],
  passes: [
    { source: '%lld files, %1$@ at %.2f%%', target: '%1$@: %lld Dateien bei %.2f%%' },
    { source: '50% off', target: '50 % Rabatt' },
  ],
  run: (cell) => (cell.source.includes('%') || cell.target.includes('%') ? found(specifierProblem(cell.views)) : null),
});

/** Specifiers without a position (`%s`, not `%1$s`), `%%` aside, in order. */
const unnumbered = (text: string) => printfSpecifiers(text).filter((s) => s.spec !== '%%' && !/^%\d+\$/.test(s.spec));

/** The conversion a specifier ends with (`d`, `@`), for comparing order. */
const conversion = (spec: string) => spec.slice(-1);

export const printfOrder = define({
  id: 'printf-order',
  description:
    'Specifiers without a position keep the source’s order of types: printf takes arguments in order, so `%s … %d` must not become `%d … %s`.',
  severity: 'error',
  category: 'placeholders',
  field: 'target',
  languages: 'All languages. Reorder with positions (`%2$d … %1$s`).',
  trips: [{ source: '%s has %d files', target: '%d Dateien hat %s' }],
  passes: [
    { source: '%s has %d files', target: '%2$d Dateien hat %1$s' },
    { source: '%s has %d files', target: '%s hat %d Dateien' },
  ],
  run: (cell): Finding | null => {
    if (!cell.source.includes('%')) return null;
    for (const v of cell.views) {
      const want = unnumbered(v.sources[0]).map((s) => conversion(s.spec));
      const have = unnumbered(v.value);
      if (want.length < 2 || have.length !== want.length) continue;
      if (have.every((s, i) => conversion(s.spec) === want[i])) continue;
      return {
        message: `printf arguments out of order${v.label}: ${have.map((s) => s.spec).join(' ')}, the source takes ${want.map((c) => `%${c}`).join(' ')}`,
      };
    }
    return null;
  },
});

export const printfPositions = define({
  id: 'printf-positions',
  description:
    'Specifiers are all numbered or all not, and numbered ones count from 1 without a gap (`%1$s %3$s` leaves one out).',
  severity: 'error',
  category: 'placeholders',
  field: 'target',
  languages: 'All languages. Android (aapt) and Apple refuse or misformat both.',
  trips: [
    { source: '%1$s and %2$s', target: '%1$s und %s' },
    { source: '%1$s and %2$s', target: '%1$s und %3$s' },
  ],
  passes: [{ source: '%1$s and %2$s', target: '%2$s und %1$s' }],
  run: (cell): Finding | null => {
    if (!cell.target.includes('%')) return null;
    const specs = printfSpecifiers(cell.target).filter((s) => s.spec !== '%%');
    const numbered = specs.filter((s) => /^%\d+\$/.test(s.spec));
    if (!numbered.length) return null;
    const spans = specs.map((s) => ({ start: s.index, end: s.index + s.spec.length }));
    if (numbered.length !== specs.length)
      return { message: 'numbered and unnumbered printf specifiers are mixed', spans };
    const positions = new Set(numbered.map((s) => Number(/^%(\d+)\$/.exec(s.spec)![1])));
    const max = Math.max(...positions);
    const gaps = Array.from({ length: max }, (_, i) => i + 1).filter((p) => !positions.has(p));
    // A source that skips the same positions (an argument it does not show) is the translation's model.
    const srcPositions = new Set(
      printfSpecifiers(cell.source).flatMap((s) =>
        /^%(\d+)\$/.test(s.spec) ? [Number(/^%(\d+)\$/.exec(s.spec)![1])] : [],
      ),
    );
    const own = gaps.filter((p) => srcPositions.has(p) || !srcPositions.size);
    return own.length ? { message: `printf positions skip ${own.map((p) => `%${p}$`).join(', ')}`, spans } : null;
  },
});
