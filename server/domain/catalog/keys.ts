// Keys: content tokens (how pushes are deduplicated) and readable, stable, collision-free names.
import { createHash } from 'node:crypto';
import type { Db } from '../../infra/db.js';

export type Forms = Record<string, string>;

const CATEGORY_ORDER = ['zero', 'one', 'two', 'few', 'many', 'other'];

/** Forms with their categories in CLDR order, so equal content always serializes the same way. */
export function orderedForms(forms: Forms): Forms {
  // A synced file names its categories (an xcstrings plural may hold `__proto__`): a null prototype keeps them data.
  const out = Object.create(null) as Forms;
  for (const k of Object.keys(forms).sort((a, b) => CATEGORY_ORDER.indexOf(a) - CATEGORY_ORDER.indexOf(b)))
    out[k] = forms[k];
  return out;
}

/** The default namespace (migration 024): every key had it before namespaces, and a request naming none uses it. */
export const DEFAULT_NAMESPACE = '';

/**
 * The ctx a content token is hashed with in a namespace. Tokens stay unique per project (translate deduplicates by
 * them): a key of a named namespace salts its ctx with the namespace, so the same text in `app` and `common` is two
 * keys; the default namespace hashes as it always did, so its tokens are unchanged. The salt starts with NUL, which
 * no real ctx carries; one that mimicked it could at worst meet a token already taken, which the unique index
 * (project, token) refuses as a lost race, never as a shared key.
 */
export function namespacedCtx(namespace: string, ctx: string | null | undefined): string | null | undefined {
  return namespace === DEFAULT_NAMESPACE ? ctx : `${ctx ?? ''}\u0000ns\u0000${namespace}`;
}

/** The content token of a unit: identical (ctx, source) or (ctx, forms) give the same token. */
export function contentToken(source: string | null, forms: Forms | null, ctx: string | null | undefined): string {
  const content = forms ? ['f', orderedForms(forms)] : ['s', source ?? ''];
  return createHash('sha256')
    .update(JSON.stringify([ctx ?? '', content]))
    .digest('base64url')
    .slice(0, 32);
}

function words(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      // A placeholder names itself: "Hello, {name}!" reads as "hello name".
      .replace(/\{\s*([A-Za-z0-9_]+)[^{}]*\}/g, ' $1 ')
      .toLowerCase()
      .match(/[a-z0-9]+/g) ?? []
  );
}

/** A readable name from the source (and ctx as a leading segment), before collision suffixes. */
export function baseName(source: string, ctx: string | null | undefined, token: string): string {
  let stem = words(source).slice(0, 6).join('_').slice(0, 48).replace(/_+$/, '');
  if (!stem)
    stem = `key_${token
      .slice(0, 8)
      .replace(/[^A-Za-z0-9]/g, 'x')
      .toLowerCase()}`;
  const prefix = ctx ? words(ctx).slice(0, 4).join('_').slice(0, 40) : '';
  return prefix ? `${prefix}.${stem}` : stem;
}

/**
 * Assigns each wanted base name a name free in the project and among the other wanted names:
 * `hello`, then `hello_2`, `hello_3`, ...
 */
export async function freeNames(
  db: Db,
  projectId: string,
  wanted: string[],
  namespace: string = DEFAULT_NAMESPACE,
): Promise<string[]> {
  const taken = new Set<string>();
  const unique = [...new Set(wanted)];
  for (let i = 0; i < unique.length; i += 500) {
    const rows = await db('keys')
      .where({ project_id: projectId, namespace })
      .whereIn('name', unique.slice(i, i + 500))
      .select('name');
    for (const r of rows) taken.add(r.name);
  }
  const out: string[] = [];
  for (const base of wanted) {
    let name = base;
    if (taken.has(name)) {
      const pattern = `${base.replace(/[!%_]/g, '!$&')}!_%`;
      const like = await db('keys')
        .where({ project_id: projectId, namespace })
        .andWhereRaw("name LIKE ? ESCAPE '!'", [pattern])
        .select('name');
      for (const r of like) taken.add(r.name);
      for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
    }
    taken.add(name);
    out.push(name);
  }
  return out;
}
