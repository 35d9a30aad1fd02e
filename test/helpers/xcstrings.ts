// The layout of an Xcode string catalog (.xcstrings), for tests that write one or read a rendered one with JSON.parse.
// Only what the tests touch; reads of what a catalog may lack are optional.

export interface XcStringUnit {
  stringUnit: { state?: string; value: string };
}

export interface XcSubstitution {
  argNum?: number;
  formatSpecifier?: string;
  variations: { plural: Record<string, XcStringUnit> };
}

/** One language of one string: a plain unit, or variations (`plural`, `device`), with substitutions. */
export interface XcLocalization {
  stringUnit?: XcStringUnit['stringUnit'];
  variations?: Record<string, Record<string, XcStringUnit>>;
  substitutions?: Record<string, XcSubstitution>;
}

export interface XcString {
  comment?: string;
  shouldTranslate?: boolean;
  localizations: Record<string, XcLocalization>;
}

export interface XcStrings {
  sourceLanguage: string;
  strings: Record<string, XcString>;
  version: string;
}
