// Runtime bundles: one i18next resource file per language, nested by the key's dot segments. ICU simple
// arguments become i18next interpolations ({{name}}); a message that is one plural becomes i18next's
// plural suffix keys (key_one, key_other) with `#` as {{count}}. Anything richer stays ICU text, for
// apps that load i18next-icu.
import { TYPE } from '@formatjs/icu-messageformat-parser';
import { icuToForms, parseIcu, SIMPLE_ARGUMENT, simpleArguments } from './icu.js';
import { dict, own } from './catalog.js';
import type { Snapshot } from './snapshot.js';

/** i18next resources: values, nested under the key's dot segments. */
interface Tree {
  [segment: string]: string | Tree;
}

function toI18next(icu: string): string {
  // Plain text and simple arguments (most messages) convert without a parse.
  if (simpleArguments(icu)) return icu.replace(SIMPLE_ARGUMENT, '{{$1}}');
  try {
    const ast = parseIcu(icu);
    // Only literal text and simple arguments convert losslessly.
    if (ast.every((n) => n.type === TYPE.literal || n.type === TYPE.argument))
      return icu.replace(SIMPLE_ARGUMENT, '{{$1}}');
  } catch {
    /* not ICU: leave it as it is */
  }
  return icu;
}

// Every node of the tree is a dict (null prototype): key segments are user data, and on a plain object a segment named
// `constructor` walked into Object itself and `__proto__` into Object.prototype, polluting the whole process.
function place(tree: Tree, name: string, value: string) {
  const parts = name.split('.');
  let node = tree;
  for (let i = 0; i < parts.length - 1; i++) {
    const next = node[parts[i]];
    if (typeof next === 'string') {
      // `a.b` is a value and `a.b.c` a key: the deeper key stays flat beside it.
      node[parts.slice(i).join('.')] = value;
      return;
    }
    node = next ?? (node[parts[i]] = dict<string | Tree>());
  }
  const leaf = parts[parts.length - 1];
  const forms = value.includes('plural') ? icuToForms(value) : null;
  if (forms && forms.arg === 'count') {
    for (const [cat, text] of Object.entries(forms.forms))
      node[`${leaf}_${cat}`] = toI18next(text.replace(/#/g, '{count}'));
  } else if (typeof node[leaf] !== 'object') node[leaf] = toI18next(value);
}

/** The i18next resources of one language: its cells, the base language's sources for the base. */
export function bundleFor(s: Snapshot, lang: string): Tree {
  const tree = dict<string | Tree>();
  for (const k of s.keys) {
    const value = lang === s.baseLang ? k.source : own(k.cells, lang)?.value;
    if (value !== undefined) place(tree, k.name, value);
  }
  return tree;
}
