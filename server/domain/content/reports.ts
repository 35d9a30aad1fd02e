// The reports of a run (getContentDocument `include=reports`), per language. Quality: what the run translated, what it
// gave up on, and how much each block grew or shrank (a block far from its language's usual ratio is worth a
// reviewer's look). SEO: the lengths search engines cut (title, description fields), and whether headings and
// links survived. Markup and placeholders are preserved by construction (inline.ts refuses any answer that
// changes them), so the report states it rather than measuring it again.
import type { ContentDocRow, ContentUnitRow } from '../../infra/tables.js';
import { charCount, fieldMaxChars } from './rules.js';
import { TITLE_UNIT, unitsOf, type Unit } from './store.js';

export interface UnitOutcome {
  unit: Unit;
  text?: string;
  error?: string;
}

const round = (n: number) => Math.round(n * 100) / 100;

export function qualityReport(outcomes: UnitOutcome[]) {
  const done = outcomes.filter((o) => o.text !== undefined);
  const ratios = done
    .filter((o) => o.unit.kind === 'block' && o.unit.text.trim())
    .map((o) => ({ id: o.unit.id, ratio: round(charCount(o.text!) / Math.max(1, charCount(o.unit.text))) }));
  const sorted = ratios.map((r) => r.ratio).sort((a, b) => a - b);
  return {
    unitsTranslated: done.length,
    gaveUp: outcomes.filter((o) => o.text === undefined).map((o) => ({ id: o.unit.id, reason: o.error ?? 'failed' })),
    markupPreserved: true,
    placeholdersPreserved: true,
    lengthRatio: {
      median: sorted.length ? sorted[Math.floor(sorted.length / 2)] : null,
      min: sorted[0] ?? null,
      max: sorted[sorted.length - 1] ?? null,
      blocks: ratios,
    },
  };
}

/** Links in a block's text: markdown inline links and autolinks, and HTML anchors. */
const linkCount = (text: string) => (text.match(/\]\([^)]*\)|<https?:\/\/[^>]+>|<a\s[^>]*href=/gi) ?? []).length;

/**
 * SEO of the language after this run: the run's new texts over what the language already had. `rows` is the
 * language's translations before the run.
 */
export function seoReport(doc: ContentDocRow, rows: Map<string, ContentUnitRow>, outcomes: UnitOutcome[]) {
  const made = new Map(outcomes.filter((o) => o.text !== undefined).map((o) => [o.unit.id, o.text!]));
  const textOf = (u: Unit) => made.get(u.id) ?? rows.get(u.id)?.text ?? null;
  const units = unitsOf(doc);
  const title = units.find((u) => u.id === TITLE_UNIT)!;
  const translatedTitle = textOf(title);
  const fields = units
    .filter((u) => u.kind === 'field' && fieldMaxChars(u.id.slice('@field:'.length)) != null)
    .map((u) => {
      const t = textOf(u);
      const maxChars = fieldMaxChars(u.id.slice('@field:'.length))!;
      const chars = t == null ? null : charCount(t);
      return {
        name: u.id.slice('@field:'.length),
        sourceChars: charCount(u.text),
        chars,
        maxChars,
        fits: chars == null ? null : chars <= maxChars,
      };
    });
  const blocks = units.filter((u) => u.kind === 'block');
  const headings = blocks.filter((u) => u.type === 'heading' || /^h[1-6]$/.test(u.type));
  return {
    title: { sourceChars: charCount(title.text), chars: translatedTitle == null ? null : charCount(translatedTitle) },
    fields,
    headings: { source: headings.length, translated: headings.filter((u) => textOf(u) != null).length },
    links: {
      source: blocks.reduce((n, u) => n + linkCount(u.text), 0),
      kept: blocks.reduce((n, u) => {
        const t = textOf(u);
        return n + (t == null ? 0 : Math.min(linkCount(t), linkCount(u.text)));
      }, 0),
    },
  };
}
