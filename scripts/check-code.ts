// `npm run check:code`, run by `npm test`: TypeScript's type check (what `tsc --noEmit` reports) and ESLint with
// typescript-eslint's type-checked rules (eslint.config.js, zero warnings), on one TypeScript program. Run apart, each
// built the whole program and computed its types again: the lint's type-aware rules now read the types the check
// already computed (docs/decisions/0034-one-program-for-types-and-lint.md has the measurement). Exits 1 on any
// diagnostic, error or warning.
import path from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');

function program(): ts.Program {
  const host: ts.ParseConfigFileHost = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  };
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, host)!;
  return ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    configFileParsingDiagnostics: config.errors,
  });
}

const started = Date.now();
const tsProgram = program();
const diagnostics = ts.getPreEmitDiagnostics(tsProgram);
const formatHost: ts.FormatDiagnosticsHost = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => root,
  getNewLine: () => '\n',
};
if (diagnostics.length) process.stdout.write(ts.formatDiagnostics(diagnostics, formatHost));
console.log(`types: ${diagnostics.length} diagnostics (${((Date.now() - started) / 1000).toFixed(1)} s)`);

const linted = Date.now();
const eslint = new ESLint({
  cwd: root,
  // The type-aware rules of the TypeScript files read this program instead of building their own; the JavaScript
  // files keep eslint.config.js's settings (no type information).
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parserOptions: { projectService: false, programs: [tsProgram] } },
    },
  ],
});
const results = await eslint.lintFiles(['.']);
const formatter = await eslint.loadFormatter('stylish');
const errors = results.reduce((n, r) => n + r.errorCount + r.fatalErrorCount, 0);
const warnings = results.reduce((n, r) => n + r.warningCount, 0);
const text = await formatter.format(results);
if (text) process.stdout.write(text);
console.log(`lint: ${errors} errors, ${warnings} warnings (${((Date.now() - linted) / 1000).toFixed(1)} s)`);
process.exit(diagnostics.length || errors || warnings ? 1 : 0);
