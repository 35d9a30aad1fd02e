// Exporting the terms a project uses as one file (spec: `exportTerms`): our CSV, which Tolgee reads, or TBX-Basic
// (packages/core/src/formats/terms-csv.ts, tbx.ts).
import { writeTermsCsv } from '../../../packages/core/src/formats/terms-csv.js';
import { writeTbx } from '../../../packages/core/src/formats/tbx.js';
import type { TermEntry } from '../../../packages/core/src/terms/entry.js';
import type { Db } from '../../infra/db.js';
import type { ProjectRow } from '../../infra/tables.js';
import { allTerms, type TermScope, type TermView } from './store.js';

const entryOf = (t: TermView): TermEntry & { id: string } => ({
  id: t.termId,
  text: t.text,
  description: t.description,
  partOfSpeech: t.partOfSpeech,
  forbidden: t.forbidden,
  nonTranslatable: t.nonTranslatable,
  caseSensitive: t.caseSensitive,
  abbreviation: t.abbreviation,
  translations: t.translations,
});

export async function exportTerms(db: Db, project: ProjectRow, format: 'csv' | 'tbx', scope?: TermScope) {
  const terms = (await allTerms(db, project, scope)).map(entryOf);
  if (format === 'tbx')
    return {
      body: writeTbx({ sourceLanguage: project.base_lang, title: project.name }, terms),
      contentType: 'application/x-tbx',
      fileName: 'terms.tbx',
    };
  const languages = [...new Set(terms.flatMap((t) => Object.keys(t.translations)))].sort();
  return { body: writeTermsCsv(terms, languages), contentType: 'text/csv; charset=utf-8', fileName: 'terms.csv' };
}
