// Nested JSON (next-intl, i18next): keys are object paths joined with '.', rendered back into the file's nesting and order.
import type { FormatModule } from '../catalog.js';
import { detectBaseOnly, parseBaseOnly, renderBaseOnly } from './json.js';

export const format: FormatModule = {
  id: 'nested_json',
  detect: (text, fileName) => detectBaseOnly(text, fileName, true),
  // A flat file is a valid nested file too, so this parse accepts both; detection prefers `json` for flat files.
  parse: (text) => parseBaseOnly(text, true, 'nested_json'),
  render: (catalog, opts) => renderBaseOnly(catalog, opts, true),
};
