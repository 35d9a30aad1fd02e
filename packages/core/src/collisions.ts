// Export collisions (the spec's 409 `export_collision`): keys that collapse to one name in a lossy format.
import type { FormatId } from './catalog.js';
import { REGISTRY } from './formats/index.js';
import { arbName } from './formats/arb.js';
import { resourceName } from './formats/android_xml.js';
import { poCollisions } from './formats/po.js';
import { namespacesOf, namespaceView, snapshotCatalog, type Snapshot } from './snapshot.js';

interface CollisionGroup {
  format: FormatId;
  name: string;
  keys: string[];
}

/** The name a key takes in a format whose names are narrower than ours (android_xml, arb). */
function exportName(format: FormatId, k: Snapshot['keys'][number]): string | null {
  const spelled = k.fileKey ?? k.name;
  // The renderer's own rule, so the check refuses exactly the keys the file would merge.
  if (format === 'android_xml') return resourceName(spelled);
  // An ARB resource name is a Dart identifier: the renderer's own rule (formats/arb.ts).
  if (format === 'arb') return arbName(spelled);
  return null;
}

/** The first index of sorted `names` not below `x` (code-unit order, as Array.prototype.sort compares). */
function lowerBound(names: string[], x: string): number {
  let lo = 0;
  let hi = names.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (names[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The collisions of every namespace's files (each namespace is a file of its own: snapshot.ts `namespaceView`). */
export function findCollisions(s: Snapshot, formats: FormatId[]): CollisionGroup[] {
  const named = namespacesOf(s.keys);
  if (!named.length) return collisionsIn(s, formats);
  return ['', ...named].flatMap((ns) => collisionsIn(namespaceView(s, ns), formats));
}

function collisionsIn(s: Snapshot, formats: FormatId[]): CollisionGroup[] {
  const groups: CollisionGroup[] = [];
  for (const format of formats) {
    if (!REGISTRY[format].lossy) continue;
    if (format === 'nested_json') {
      // A key that is also a group of other keys (`a.b` and `a.b.c`) cannot be written as nested JSON.
      // Sorted, the names under `n.` are one run that starts where `n.` would go: found by bisection, so the
      // check stays n log n (a prefix scan per name took 3 s at 10,000 keys).
      const names = [...new Set(s.keys.map((k) => k.fileKey ?? k.name))].sort();
      for (const n of names) {
        const prefix = `${n}.`;
        const children: string[] = [];
        for (let i = lowerBound(names, prefix); i < names.length && names[i].startsWith(prefix); i++)
          children.push(names[i]);
        if (children.length) groups.push({ format, name: n, keys: [n, ...children] });
      }
      continue;
    }
    if (format === 'po') {
      // gettext's own rule, the renderer's: one message per msgctxt and msgid, refused only where keys disagree.
      const catalog = snapshotCatalog(s, 'po');
      const languages = [s.baseLang, ...s.languages];
      for (const g of poCollisions(catalog, { languages, baseLanguage: s.baseLang }))
        groups.push({ format, name: g.name, keys: g.entries.map((i) => s.keys[i].name) });
      continue;
    }
    const by = new Map<string, string[]>();
    for (const k of s.keys) {
      const name = exportName(format, k);
      if (name !== null) by.set(name, [...(by.get(name) ?? []), k.name]);
    }
    for (const [name, keys] of by) if (keys.length > 1) groups.push({ format, name, keys });
  }
  return groups;
}
