// Canonical key names for synced files (spec: `syncCatalog`): `welcomeMessage` → `welcome.message`,
// `nav.homeTitle` → `nav.home.title`, `Add Feed` → `add_feed`, an Angular digest `1234567890123456789` →
// `k1234567890123456789`. The file's own spelling is kept beside the canonical name and written back on pull.
import { createHash } from 'node:crypto';

const DIGEST = /^\d{19}$/;

function segment(raw: string): string[] {
  return (
    raw
      // camelCase and PascalCase boundaries become segment breaks.
      .replace(/([a-z0-9])([A-Z])/g, '$1.$2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1.$2')
      .split('.')
      .map((s) =>
        s
          .normalize('NFKD')
          .replace(/[\u0300-\u036f]/g, '')
          .toLowerCase()
          .replace(/[^a-z0-9_]+/g, '_')
          .replace(/^_+|_+$/g, '')
          .replace(/_+/g, '_'),
      )
      .filter(Boolean)
  );
}

export function canonicalKey(fileKey: string): string {
  if (DIGEST.test(fileKey)) return `k${fileKey}`;
  const parts = fileKey.split('.').flatMap(segment);
  const name = parts.join('.');
  // A key with no letters or digits (`…`, CJK-only text) still needs a stable, readable-enough name.
  if (!name || name.length > 200) return `k_${createHash('sha256').update(fileKey).digest('hex').slice(0, 16)}`;
  return name;
}
