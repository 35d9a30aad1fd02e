// What `msgfmt --check` holds a message's translations to, so that every PO file the renderer writes passes it
// (po.ts writes a message gettext would refuse untranslated, and says so). Measured against GNU gettext 0.21's
// msgfmt (test/e2e/standalone/po-msgfmt.test.ts runs it on every shape below):
//
// - A msgstr is compared with msgid (a singular message) or with msgid_plural (a plural one), for each format flag
//   the message carries (`python-brace-format`, which po.ts adds to a message with placeholders, and the flags a
//   synced template brought: `c-format`, `python-format`, `javascript-format`, ...).
// - Strictly (same arguments, same types), except a msgstr[n] whose form the Plural-Forms expression chooses for
//   fewer than five of the numbers 0 to 1000 (plural-coverage.ts `manyNumbers`: English `one`), which is checked
//   loosely: a python-brace form may show any arguments or none, a printf form the first arguments only, a
//   python-format mapping a subset of the names; a python-format tuple still needs all of them.
// - A reference (msgid, msgid_plural) that is not a valid format string of its flag is not checked at all by msgfmt;
//   one this module cannot read is held to the same `%` directives as written, which may refuse what msgfmt takes
//   (the message is then untranslated) but never takes what it refuses.

/** One format string as msgfmt reads it: arguments by name or by position (1-based), each with its type. */
interface Reading {
  by: 'name' | 'position';
  args: Map<string, string>;
}

type Reader = (text: string) => Reading | null;

/** `{name}`, `{0}`, `{name.attr}`, `{name!r:>4}` as python-brace fields; `{{` and `}}` are literal braces. */
const braceReader: Reader = (text) => {
  const args = new Map<string, string>();
  const rest = text.replace(/\{\{|\}\}/g, '');
  let auto = 0;
  for (const m of rest.matchAll(/\{([^{}]*)\}|[{}]/g)) {
    if (m[1] === undefined) return null;
    const field = /^([A-Za-z_]\w*|\d+)?((?:\.[A-Za-z_]\w*|\[[^\]]*\])*)(?:![rsa])?(?::[^{}]*)?$/.exec(m[1]);
    if (!field) return null;
    args.set(field[1] ?? String(auto++), '');
  }
  return { by: 'name', args };
};

// C's conversions by the argument type msgfmt compares (format-c.c): signed, unsigned, double, char, string, pointer,
// a count written back; the length modifier is part of the type. Objective-C adds `@`.
const C_TYPES: Record<string, string> = {
  d: 'int',
  i: 'int',
  o: 'uint',
  u: 'uint',
  x: 'uint',
  X: 'uint',
  e: 'double',
  E: 'double',
  f: 'double',
  F: 'double',
  g: 'double',
  G: 'double',
  a: 'double',
  A: 'double',
  c: 'char',
  C: 'wchar',
  s: 'string',
  S: 'wstring',
  p: 'pointer',
  n: 'count',
  '@': 'object',
};
const C_DIRECTIVE =
  /%(?:(\d+)\$)?[-+ #0'I]*(\d+|\*(?:\d+\$)?)?(?:\.(\d+|\*(?:\d+\$)?))?(hh|h|ll|l|L|q|j|z|Z|t)?([diouxXeEfFgGaAcCsSpn@%])/y;

const cReader: Reader = (text) => {
  const args = new Map<string, string>();
  let positional: boolean | null = null;
  let next = 1;
  for (let at = text.indexOf('%'); at !== -1; at = text.indexOf('%', at)) {
    C_DIRECTIVE.lastIndex = at;
    const m = C_DIRECTIVE.exec(text);
    if (!m) return null;
    at = C_DIRECTIVE.lastIndex;
    if (m[5] === '%') continue;
    // A `*` width or precision takes an argument of its own: beyond what this reading follows.
    if (m[2]?.startsWith('*') || m[3]?.startsWith('*')) return null;
    const isPositional = m[1] !== undefined;
    if (positional !== null && positional !== isPositional) return null;
    positional = isPositional;
    const position = isPositional ? Number(m[1]) : next++;
    const type = `${m[4] ?? ''}${C_TYPES[m[5]]}`;
    const seen = args.get(String(position));
    if (position < 1 || (seen !== undefined && seen !== type)) return null;
    args.set(String(position), type);
  }
  // A numbered argument that skips one is not a format string C can take.
  for (let p = 1; p <= args.size; p++) if (!args.has(String(p))) return null;
  return { by: 'position', args };
};

const PYTHON_TYPES: Record<string, string> = {
  d: 'int',
  i: 'int',
  u: 'int',
  o: 'int',
  x: 'int',
  X: 'int',
  e: 'float',
  E: 'float',
  f: 'float',
  F: 'float',
  g: 'float',
  G: 'float',
  c: 'char',
  s: 'string',
  r: 'string',
  a: 'string',
};
const PYTHON_DIRECTIVE = /%(?:\(([^)]*)\))?[-+ #0]*(\d+|\*)?(?:\.(\d+|\*))?[hlL]?([diouxXeEfFgGcrsa%])/y;

const pythonReader: Reader = (text) => {
  const args = new Map<string, string>();
  let named: boolean | null = null;
  let next = 1;
  for (let at = text.indexOf('%'); at !== -1; at = text.indexOf('%', at)) {
    PYTHON_DIRECTIVE.lastIndex = at;
    const m = PYTHON_DIRECTIVE.exec(text);
    if (!m) return null;
    at = PYTHON_DIRECTIVE.lastIndex;
    if (m[4] === '%') continue;
    if (m[2] === '*' || m[3] === '*') return null;
    const isNamed = m[1] !== undefined;
    if (named !== null && named !== isNamed) return null;
    named = isNamed;
    const key = isNamed ? m[1] : String(next++);
    const seen = args.get(key);
    if (seen !== undefined && seen !== PYTHON_TYPES[m[4]]) return null;
    args.set(key, PYTHON_TYPES[m[4]]);
  }
  return { by: named ? 'name' : 'position', args };
};

/** How each flag's strings are read, and what a form chosen for few numbers may leave out. */
const FLAVOURS: Record<string, { read: Reader; loose: 'any' | 'prefix' | 'subset' | 'none' }> = {
  'python-brace-format': { read: braceReader, loose: 'any' },
  'python-format': { read: pythonReader, loose: 'subset' },
  'c-format': { read: cReader, loose: 'prefix' },
  'objc-format': { read: cReader, loose: 'prefix' },
};

// Any `%` sequence, for flags this module has no reading of (or references it cannot read): compared as written, a
// `%` that starts none among them.
const ANY_DIRECTIVE = /%(?:\([^)]*\))?[^A-Za-z%@\s]*[A-Za-z%@]|%/g;
const asWritten = (text: string) =>
  [...text.matchAll(ANY_DIRECTIVE)]
    .map((m) => m[0])
    .filter((d) => d !== '%%')
    .sort()
    .join('\u0000');

const show = (keys: Iterable<string>, by: Reading['by']) =>
  [...keys].map((k) => (by === 'name' ? `{${k}}` : `argument ${k}`)).join(', ');

/**
 * Why `msgstr` does not follow `ref` (named `refName`) under `flag` (`strict` unless its form is chosen for few
 * numbers), as a predicate ("lacks {count}"), or null.
 */
function formatProblem(flag: string, ref: string, refName: string, msgstr: string, strict: boolean): string | null {
  const flavour = FLAVOURS[flag];
  const want = flavour?.read(ref);
  if (!flavour || !want) {
    if (!flavour && !/%/.test(ref + msgstr)) return null;
    return asWritten(ref) === asWritten(msgstr) ? null : `has other ${flag} directives than ${refName}`;
  }
  const have = flavour.read(msgstr);
  if (!have) return `is not a valid ${flag} string`;
  if (have.by !== want.by && have.args.size && want.args.size && flavour.read !== cReader)
    return `takes its ${flag} arguments otherwise than ${refName} (by name or by position)`;
  const extra = [...have.args.keys()].filter((k) => !want.args.has(k));
  const missing = [...want.args.keys()].filter((k) => !have.args.has(k));
  const retyped = [...have.args].filter(([k, t]) => want.args.has(k) && want.args.get(k) !== t).map(([k]) => k);
  const loose = strict ? 'none' : flavour.loose;
  if (loose === 'any') return null;
  if (extra.length) return `shows ${show(extra, want.by)}, which ${refName} lacks`;
  if (retyped.length) return `formats ${show(retyped, want.by)} as another type than ${refName}`;
  if (!missing.length) return null;
  if (loose === 'subset') return want.by === 'name' ? null : `lacks ${show(missing, want.by)}`;
  // printf takes its arguments in order: a form may drop the last ones only.
  if (loose === 'prefix' && missing.every((k) => Number(k) > have.args.size)) return null;
  return `lacks ${show(missing, want.by)}`;
}

/** The format flags of a flag list (`fuzzy`, `no-c-format`, `range: 0..9` are not). */
const formatFlags = (flags: readonly string[]): string[] =>
  flags.filter((f) => /^[a-z0-9-]+-format$/.test(f) && !f.startsWith('no-'));

/**
 * Why msgfmt --check would refuse `msgstrs` (msgstr, or msgstr[n]) of a message with `flags`, or null. `often(n)`:
 * whether msgstr[n]'s form is chosen for many numbers (not asked of a singular message). The problem is a predicate
 * of the msgstr ("lacks {count}").
 */
export function gettextRefusal(
  flags: readonly string[],
  msgid: string,
  msgidPlural: string | undefined,
  msgstrs: readonly string[],
  often: (n: number) => boolean,
): { form: number; problem: string } | null {
  const ref = msgidPlural ?? msgid;
  for (const flag of formatFlags(flags)) {
    for (const [n, text] of msgstrs.entries()) {
      if (!text) continue;
      const strict = msgidPlural === undefined || often(n);
      const problem = formatProblem(flag, ref, msgidPlural === undefined ? 'msgid' : 'msgid_plural', text, strict);
      if (problem) return { form: n, problem };
    }
  }
  return null;
}
