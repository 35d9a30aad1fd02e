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

/**
 * The longest key name (spec: `KeyName`, and the `ref` of a single-key read). Names are ASCII (letters, digits, `_`
 * and `.`), so characters, UTF-16 units and bytes count alike.
 */
export const MAX_KEY_NAME = 255;

/** A file key spelled as a key name already (spec: `KeyName`'s pattern): the name a person will read it by. */
export const isKeyName = (fileKey: string) => /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(fileKey);

/** The name of a file key that yields no readable one: a stable hash of its spelling. */
const hashedName = (fileKey: string) => `k_${createHash('sha256').update(fileKey).digest('hex').slice(0, 16)}`;

/**
 * Names of long file keys before names went up to MAX_KEY_NAME: a canonical name over 200 characters was hashed.
 * A key stored so keeps its name (plan.ts), so its translations stay with it.
 */
export const hashedBefore = (fileKey: string, name: string) => (name.length > 200 ? hashedName(fileKey) : null);

export function canonicalKey(fileKey: string): string {
  if (DIGEST.test(fileKey)) return `k${fileKey}`;
  const parts = fileKey.split('.').flatMap(segment);
  const name = parts.join('.');
  // A key with no letters or digits (`…`, CJK-only text), or a sentence longer than a name, still needs a stable,
  // readable-enough name. A file key already spelled as a name longer than that is refused (plan.ts).
  if (!name || name.length > MAX_KEY_NAME) return hashedName(fileKey);
  return name;
}
