// The check engine's public face: run the catalogue over a cell or a source, list it, validate a project's settings.
export { runChecks, checkSource } from './engine.js';
export { CATALOGUE } from './catalogue.js';
export { validateCustomCheck } from './custom.js';
export type * from './types.js';
