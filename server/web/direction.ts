// The `lang` and `dir` a field or a cell of text in a language carries, so that Arabic, Hebrew, Persian or Urdu are
// typed and read right to left, and screen readers and spell checkers know the language. The direction comes
// from the language's script as CLDR gives it (packages/core/src/checks/languages.ts), not from a list kept here.
import { languageInfo } from '../../packages/core/src/checks/languages.js';
import { html, type Html } from './html.js';

const dirOf = (lang: string): 'rtl' | 'ltr' => (languageInfo(lang).rtl ? 'rtl' : 'ltr');

/** `lang="…" dir="…"` for an element holding text in `lang`. */
export const langAttrs = (lang: string): Html => html`lang="${lang}" dir="${dirOf(lang)}"`;
