// Pseudo-localization: a deterministic, offline engine that makes untranslated, truncated or concatenated UI
// text obvious (accents, ~30% expansion, brackets) while keeping every piece of ICU structure intact.
import { LRUCache } from 'lru-cache';
import { TYPE, type LiteralElement, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { checkFill } from '../../../packages/core/src/gates.js';
import { judgeValue, maskSource, unmask } from '../../../packages/core/src/guard.js';
import { conformAst, parseIcu, pluralCategories, printIcu, type IcuAst } from '../../../packages/core/src/icu.js';
import { coverManyNumbers, manyNumbers } from '../../../packages/core/src/plural-coverage.js';
import { printfSpecifiers } from '../../../packages/core/src/printf.js';
import type { TranslationEngine, TranslationItem, TranslationOutcome } from './types.js';

const FROM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
// One BMP code unit per letter, so the expansion stays exactly what pad() adds.
const TO = 'áƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ';
const MAP: string[] = [];
for (let i = 0; i < FROM.length; i++) MAP[FROM.charCodeAt(i)] = TO[i];

// Text that other layers interpret (HTML entities, markup a source carries as text, URLs, printf conversions with
// their length modifiers such as `%lld`) must survive letter for letter.
const PROTECTED = /&(?:[a-zA-Z]+|#\d+|#x[0-9a-fA-F]+);|<\/?[A-Za-z][^<>]*>|\b[a-z][a-z0-9+.-]*:\/\/\S+/g;

function accentPlain(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += (c < 128 && MAP[c]) || s[i];
  }
  return out;
}

/** Offsets [start, end) of the protected runs of `s`, in order and not overlapping. */
function protectedRuns(s: string): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (const m of s.matchAll(PROTECTED)) runs.push([m.index, m.index + m[0].length]);
  for (const p of printfSpecifiers(s)) runs.push([p.index, p.index + p.spec.length]);
  runs.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const r of runs) {
    const last = merged[merged.length - 1];
    if (last && r[0] < last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push(r);
  }
  return merged;
}

function accent(s: string): string {
  if (!s.includes('&') && !s.includes('%') && !s.includes('://') && !s.includes('<')) return accentPlain(s);
  let out = '';
  let last = 0;
  for (const [from, to] of protectedRuns(s)) {
    out += accentPlain(s.slice(last, from)) + s.slice(from, to);
    last = to;
  }
  return out + accentPlain(s.slice(last));
}

// rawValue too (these have nothing to quote), so merging with a neighbouring literal keeps that one's spelling.
const lit = (value: string): LiteralElement => ({ type: TYPE.literal, value, rawValue: value });

const pad = (letters: number) => '~'.repeat(Math.ceil(letters * 0.3));

/** Accents every literal under `nodes` in place; returns how many literal characters there are. */
function pseudoNodes(nodes: MessageFormatElement[]): number {
  let n = 0;
  for (const el of nodes) {
    if (el.type === TYPE.literal) {
      el.value = accent(el.value);
      // The accent map leaves quoting characters alone, so the original spelling stays valid accented.
      if (el.rawValue !== undefined) el.rawValue = accent(el.rawValue);
      n += el.value.length;
    } else if (el.type === TYPE.tag) {
      n += pseudoNodes(el.children);
    } else if (el.type === TYPE.plural || el.type === TYPE.select) {
      for (const opt of Object.values(el.options)) n += pseudoNodes(opt.value);
    }
  }
  return n;
}

/**
 * The pseudo-localized form of an ICU message for `targetLang` (whose plural categories it gets). A message that
 * is a single plural or select is bracketed per branch, so it stays a single plural for platform plural formats.
 * Throws when `source` is not valid ICU.
 */
export function pseudoLocalize(source: string, targetLang: string): string {
  try {
    return pseudoMessage(parseIcu(source), targetLang);
  } catch (e) {
    if (!source.includes('<')) throw e;
  }
  // Markup that is not ICU rich text (`<a href="/terms">`, `<br>`, react-i18next's numbered `<1>…</1>`, `<0/>`,
  // whose names no ICU tag may start with): each tag stands in as an argument of a name no
  // message uses, and is put back as written. Printing the tags as literal text would quote them (`'<a …>'`).
  if (source.includes(TAG_ARG)) throw new SyntaxError(`source uses the reserved name ${TAG_ARG}`);
  const tagsAsWritten: string[] = [];
  const masked = source.replace(TAG, (tag) => `{${TAG_ARG}${tagsAsWritten.push(tag) - 1}}`);
  return pseudoMessage(parseIcu(masked), targetLang).replace(TAG_ARGUMENT, (_, n: string) => tagsAsWritten[Number(n)]);
}

const TAG = /<\/?[A-Za-z][^<>{}]*>|<\/?\d+\s*\/?>/g;
const TAG_ARG = '__glossa_tag_';
const TAG_ARGUMENT = /\{__glossa_tag_(\d+)\}/g;

function pseudoMessage(ast: IcuAst, targetLang: string): string {
  conformAst(ast, pluralCategories(targetLang));
  coverManyNumbers(ast, targetLang);
  const only = ast.length === 1 ? ast[0] : null;
  if (only && (only.type === TYPE.plural || only.type === TYPE.select)) {
    for (const opt of Object.values(only.options)) {
      const n = pseudoNodes(opt.value);
      opt.value = [lit('['), ...opt.value, lit(`${pad(n)}]`)];
    }
  } else {
    const n = pseudoNodes(ast);
    ast = [lit('['), ...ast, lit(`${pad(n)}]`)];
  }
  return printIcu(ast);
}

/**
 * Values that passed the gate, by the target language's plural categories and the source: the pseudo form of a
 * source depends on the language only through those categories (conformAst), and so does checkFill's verdict on
 * it when that verdict is null, so one source filled into 40 languages is worked out once per category set.
 * Failures are not kept: their reasons name the language.
 */
const BRANCHES = /plural|select/;
const passed = new LRUCache<string, string>({ max: 20_000 });

/**
 * An item the termbase or a length limit concerns: the names the termbase keeps go through as tokens (so they are
 * not accented), each use of a term with a required translation comes out as that translation, and the value is
 * held to the same guards as an engine's answer (packages/core/src/guard.ts): a term or a length it does not meet is
 * reported with it (`failures`), as the OpenAI engine reports what its repair request did not fix.
 */
function pseudoGuarded(item: TranslationItem): TranslationOutcome {
  const mask = maskSource(item.source, item.sourceLang, item.terms, 'pseudo');
  let value: string;
  try {
    value = pseudoLocalize(mask?.text ?? item.source, item.targetLang);
  } catch (e) {
    const err = e as Error;
    return { id: item.id, error: err instanceof SyntaxError ? `source is not valid ICU: ${err.message}` : err.message };
  }
  if (mask) {
    const back = unmask(value, mask);
    if ('problem' in back) return { id: item.id, error: back.problem };
    value = back.value;
  }
  const verdict = judgeValue(value, item);
  if (verdict.hard) return { id: item.id, error: verdict.hard };
  return { id: item.id, value: verdict.value!, ...(verdict.soft.length ? { failures: verdict.soft } : {}) };
}

function pseudoOne(item: TranslationItem): TranslationOutcome {
  if (item.terms?.length || item.maxLength) return pseudoGuarded(item);
  let memo: string | undefined;
  try {
    // Without the words plural and select, the source has no branches to conform: one entry for every language.
    // A category that stands for many numbers (plural-coverage.ts) is made from `other`: part of the key too.
    const cats = pluralCategories(item.targetLang).map((c) => (manyNumbers(item.targetLang, c) ? `${c}*` : c));
    memo = BRANCHES.test(item.source) ? `${cats.join(' ')}\n${item.source}` : `*\n${item.source}`;
    const hit = passed.get(memo);
    if (hit !== undefined) return { id: item.id, value: hit };
  } catch {
    // An invalid language tag: pseudoLocalize below reports it.
  }
  let value: string;
  try {
    value = pseudoLocalize(item.source, item.targetLang);
  } catch (e) {
    const err = e as Error;
    return {
      id: item.id,
      error: err instanceof SyntaxError ? `source is not valid ICU: ${err.message}` : err.message,
    };
  }
  const problem = checkFill(item.source, value, item.targetLang, item.markup);
  if (problem) return { id: item.id, error: problem };
  if (memo !== undefined) passed.set(memo, value);
  return { id: item.id, value };
}

// The engine runs in the service's process: a batch of new sources is tens of milliseconds of parsing, so it
// hands the event loop back every few milliseconds, and other requests are answered between slices.
const SLICE_MS = 4;
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class PseudoEngine implements TranslationEngine {
  readonly name = 'pseudo';
  readonly maxBatch = 500;
  readonly checksFill = true;

  async translate(items: TranslationItem[]): Promise<TranslationOutcome[]> {
    const out: TranslationOutcome[] = [];
    let slice = performance.now();
    for (const item of items) {
      out.push(pseudoOne(item));
      if (performance.now() - slice > SLICE_MS) {
        await yieldTurn();
        slice = performance.now();
      }
    }
    return out;
  }
}
