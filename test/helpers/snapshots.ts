// Snapshots as a publish freezes them (packages/core/src/snapshot.ts), built directly for tests of the renderers alone.
import { dict } from '../../packages/core/src/catalog.js';
import type { Snapshot } from '../../packages/core/src/snapshot.js';
import { ICU_KEYS, ICU_LANGS } from './icu-project.js';

interface KeyOf {
  name: string;
  source: string;
  ctx?: string;
  /** Approved values by language. */
  values?: Record<string, string>;
}

/** A snapshot of `keys`; its languages are those the values name unless given. */
export function snapshotOf(keys: KeyOf[], opts: { baseLang?: string; languages?: string[] } = {}): Snapshot {
  return {
    baseLang: opts.baseLang ?? 'en',
    languages: opts.languages ?? [...new Set(keys.flatMap((k) => Object.keys(k.values ?? {})))],
    catalogs: {},
    keys: keys.map((k) => ({
      name: k.name,
      fileKey: null,
      comment: null,
      meta: null,
      ctx: k.ctx ?? null,
      source: k.source,
      forms: null,
      cells: dict(Object.entries(k.values ?? {}).map(([l, value]) => [l, { value, status: 'approved' }] as const)),
    })),
  };
}

/** The fixture project (icu-project.ts) as its publish freezes it: each language's value, else the source. */
export const icuSnapshot = (): Snapshot =>
  snapshotOf(
    ICU_KEYS.map((k) => ({
      name: k.key,
      source: k.source,
      ctx: k.ctx,
      values: Object.fromEntries(
        ICU_LANGS.map((l) => [l, (k.values as Record<string, string | undefined>)[l] ?? k.source]),
      ),
    })),
    { languages: [...ICU_LANGS] },
  );
