// The target languages the scenarios seed (the base language is always en). Each list keeps the order the
// scenarios measured with, so a figure stays comparable with the ones before it.

/** 39 targets: a project of 40 languages (publish, pull). Its first 19 and first 10 are the smaller projects'. */
export const TARGETS_39 = (
  'de,fr,es,it,pt,nl,pl,sv,ja,ko,da,fi,nb,cs,hu,ro,tr,uk,el,he,ar,hi,th,vi,id,ms,bg,hr,sk,sl,sr,lt,lv,et,ca,eu,gl,' +
  'is,ga'
).split(',');

/** 19 targets: a project of 20 languages. */
export const TARGETS_19 = TARGETS_39.slice(0, 19);

/** 10 targets: a push of new units into ten languages. */
export const TARGETS_10 = TARGETS_39.slice(0, 10);

/** 40 targets, every pair pending: the fill scenarios' project (fill.ts, fill-stall.ts, scaleout.ts). */
export const FILL_TARGETS_40 = [
  ...['de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'sv', 'ja', 'ko', 'zh', 'ru', 'ar', 'tr', 'cs', 'da', 'fi', 'nb', 'el'],
  ...['he', 'hu', 'id', 'ms', 'ro', 'sk', 'uk', 'vi', 'th', 'hi', 'bg', 'hr', 'sr', 'sl', 'lt', 'lv', 'et', 'ca', 'fa'],
  ...['bn', 'ta'],
];
