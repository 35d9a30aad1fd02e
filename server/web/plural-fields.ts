// The editor's fields per branch (keys.ts): a key whose source is one plural (`{count, plural, one {…} other {…}}`)
// is translated one field per CLDR category of the target language (Polish one, few, many, other; Arabic zero,
// one, two, few, many, other; plus any `=N` the source or the value has), each beside the source's branch for
// it; a source that is one select gets a field per option. The raw ICU stays beside them: dashboard.js writes it
// from the fields as they are typed (and the fields from it), and without script the server reads whichever the
// person changed (the raw field unchanged from what the page showed: the fields). The result is one ICU message,
// checked by the gates before it is saved, exactly as a value typed raw.
import { TYPE } from '@formatjs/icu-messageformat-parser';
import { formsToIcu, isExactKey, parseIcu, pluralCategories } from '../../packages/core/src/icu.js';
import { html, type Html } from './html.js';
import { langAttrs } from './direction.js';

interface Branching {
  kind: 'plural' | 'select';
  /** The argument the branches depend on (`count`). */
  arg: string;
  /** The fields, in order: the language's categories (and `=N` keys), or the source's select options. */
  keys: string[];
  /** The source's branch texts by key. */
  source: Record<string, string>;
}

/** A message that is exactly one cardinal plural (no offset) or one select: its argument and branch texts. */
function branchesOf(msg: string): { kind: 'plural' | 'select'; arg: string; branches: Record<string, string> } | null {
  let ast;
  try {
    ast = parseIcu(msg);
  } catch {
    return null;
  }
  if (ast.length !== 1) return null;
  const el = ast[0];
  const plural = el.type === TYPE.plural && el.pluralType === 'cardinal' && !el.offset;
  if (!plural && el.type !== TYPE.select) return null;
  // Option keys are the author's: without a prototype, one named `__proto__` is a branch like any other.
  const branches = Object.create(null) as Record<string, string>;
  for (const [key, opt] of Object.entries(el.options)) {
    const loc = opt.location;
    if (!loc) return null;
    branches[key] = msg.slice(loc.start.offset + 1, loc.end.offset - 1);
  }
  return { kind: plural ? 'plural' : 'select', arg: el.value, branches };
}

/** How a key's value is split into fields in `lang`, or undefined when its source is not one plural or select. */
export function branchingOf(source: string, lang: string, value = ''): Branching | undefined {
  const src = branchesOf(source);
  if (!src) return undefined;
  if (src.kind === 'select')
    return { kind: 'select', arg: src.arg, keys: Object.keys(src.branches), source: src.branches };
  let cats: string[];
  try {
    cats = pluralCategories(lang);
  } catch {
    return undefined;
  }
  const own = branchesOf(value);
  const exact = [...Object.keys(src.branches), ...(own?.kind === 'plural' ? Object.keys(own.branches) : [])].filter(
    isExactKey,
  );
  return { kind: 'plural', arg: src.arg, keys: [...new Set([...exact, ...cats])], source: src.branches };
}

/** The value's branch texts, when it has the source's shape (an empty value: none yet); undefined otherwise. */
export function valueBranches(b: Branching, value: string): Record<string, string> | undefined {
  if (!value) return {};
  const own = branchesOf(value);
  if (!own || own.kind !== b.kind || own.arg !== b.arg) return undefined;
  return own.branches;
}

/** The message the fields make: the branches typed, in the usual order (formsToIcu); empty when none is. */
export function messageOf(b: Branching, branches: Record<string, string>): string {
  const typed = Object.fromEntries(b.keys.filter((k) => branches[k]).map((k) => [k, branches[k]]));
  if (!Object.keys(typed).length) return '';
  if (b.kind === 'plural') return formsToIcu(typed, b.arg);
  return `{${b.arg}, select, ${Object.entries(typed)
    .map(([k, v]) => `${k} {${v}}`)
    .join(' ')}}`;
}

/** The posted fields (`branch-<key>`) of `b`, as branch texts. */
export function postedBranches(b: Branching, form: Record<string, string>): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const k of b.keys) {
    const v = form[`branch-${k}`];
    if (typeof v === 'string' && v !== '') out[k] = v.replace(/\r\n/g, '\n');
  }
  return out;
}

/** Up to three whole numbers (and a fraction when only one fits) `lang` puts in `category`, as a hint. */
function examples(lang: string, category: string): string {
  const rules = new Intl.PluralRules(lang);
  const found: string[] = [];
  for (let n = 0; n <= 200 && found.length < 3; n++) if (rules.select(n) === category) found.push(String(n));
  if (found.length < 3 && rules.select(1.5) === category) found.push('1.5');
  return found.length ? `${found.join(', ')}${found.length === 3 ? '…' : ''}` : '';
}

/**
 * The fields: one per branch, the source's branch beside each (its `other` where the source has no such branch),
 * each with the language's `lang` and `dir`. `id` is the cell's id (`cell-pl`); the raw field is `${id}-value`.
 */
export function branchFields(id: string, lang: string, baseLang: string, b: Branching, value: string): Html {
  const own = valueBranches(b, value);
  const what = b.kind === 'plural' ? 'plural category' : 'option';
  return html`<fieldset class="branches" data-branches="${id}-value" data-kind="${b.kind}" data-arg="${b.arg}">
    <legend>${b.kind === 'plural' ? 'Plural forms' : 'Options'} (${lang}): one field per ${what}</legend>
    ${
      b.kind === 'plural'
        ? html`<p class="hint">
            ${lang} has the categories ${b.keys.filter((k) => !isExactKey(k)).join(', ')}; <code>#</code> stands for the
            number.
          </p>`
        : ''
    }
    ${
      own === undefined
        ? html`<p class="warn branch-note">
            The saved value is not one ${b.kind} of <code>${b.arg}</code>: edit it as raw ICU below, or fill the fields
            to replace it.
          </p>`
        : ''
    }
    ${b.keys.map((k) => {
      const src = Object.hasOwn(b.source, k) ? b.source[k] : b.source.other;
      const hint = b.kind === 'plural' && !isExactKey(k) ? examples(lang, k) : '';
      return html`<div class="branch">
        <label for="${id}-b-${k}">${k}${hint ? html` <small>(${b.arg} = ${hint})</small>` : ''}</label>
        <p class="branch-source">
          <span class="visually-hidden">Source ${k}:</span>
          <span ${langAttrs(baseLang)}>${src ?? ''}</span>${
            Object.hasOwn(b.source, k) ? '' : html` <small>(the source's other)</small>`
          }
        </p>
        <textarea id="${id}-b-${k}" name="branch-${k}" rows="1" data-branch="${k}" ${langAttrs(lang)}>
${own?.[k] ?? ''}</textarea>
      </div>`;
    })}
  </fieldset>`;
}
