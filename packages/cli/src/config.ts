// glossa.config.json / .glossarc.json: found by searching upward from the working folder, checked against the
// schema the package publishes (packages/cli/glossa.schema.json, referenced by `$schema`). Paths are relative to the
// file.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FormatId } from '../../core/src/catalog.js';
import { CliError, EXIT } from './errors.js';

const CONFIG_NAMES = ['glossa.config.json', '.glossarc.json'];
// One folder up from both src/ (tests, tsx) and dist/ (the built bin): the schema sits at the package's root.
const SCHEMA_PATH = fileURLToPath(new URL('../glossa.schema.json', import.meta.url));

export interface FileMapping {
  source: string;
  format: FormatId;
  template?: string;
}

export interface Config {
  /** The config file's path; every path in it is relative to its folder. */
  file: string;
  dir: string;
  baseUrl: string;
  projectId: string;
  apiKey: string;
  files: FileMapping[];
  languageMap: Record<string, string>;
  includeBase: boolean;
}

/** The nearest config file from `cwd` up to the root, or null. */
function findConfig(cwd: string): string | null {
  let dir = path.resolve(cwd);
  for (;;) {
    for (const name of CONFIG_NAMES) {
      const f = path.join(dir, name);
      if (existsSync(f)) return f;
    }
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

let validate: ReturnType<Ajv2020['compile']> | undefined;

export function loadConfig(opts: { cwd: string; env: NodeJS.ProcessEnv; configPath?: string }): Config {
  const file = opts.configPath ? path.resolve(opts.cwd, opts.configPath) : findConfig(opts.cwd);
  if (!file || !existsSync(file))
    throw new CliError(EXIT.usage, `No ${CONFIG_NAMES.join(' or ')} found in ${opts.cwd} or any folder above it.`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CliError(EXIT.usage, `${file} is not valid JSON: ${(e as Error).message}`);
  }
  if (raw && typeof raw === 'object' && ('apiKey' in raw || 'key' in raw))
    throw new CliError(EXIT.usage, `${file} holds an API key: remove it and set GLOSSA_API_KEY instead.`);
  if (!validate) {
    const ajv = new Ajv2020({ allErrors: true });
    validate = ajv.compile(JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as object);
  }
  if (!validate(raw)) {
    const why = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
    throw new CliError(EXIT.usage, `${file} does not match glossa.schema.json: ${why}`);
  }
  const c = raw as {
    baseUrl?: string;
    projectId?: string;
    files: FileMapping[];
    languageMap?: Record<string, string>;
    includeBase?: boolean;
  };
  const baseUrl = opts.env.GLOSSA_BASE_URL || c.baseUrl;
  const projectId = opts.env.GLOSSA_PROJECT_ID || c.projectId;
  const apiKey = opts.env.GLOSSA_API_KEY;
  if (!baseUrl) throw new CliError(EXIT.usage, 'No base URL: set baseUrl in the config file or GLOSSA_BASE_URL.');
  if (!projectId) throw new CliError(EXIT.usage, 'No project: set projectId in the config file or GLOSSA_PROJECT_ID.');
  if (!apiKey) throw new CliError(EXIT.usage, 'No API key: set GLOSSA_API_KEY (the config file never holds it).');
  for (const m of c.files)
    if (m.format !== 'xcstrings' && !m.template)
      throw new CliError(
        EXIT.usage,
        `${file}: the mapping of ${m.source} needs a template (e.g. locales/{locale}.json).`,
      );
  return {
    file,
    dir: path.dirname(file),
    baseUrl: baseUrl.replace(/\/+$/, ''),
    projectId,
    apiKey,
    files: c.files,
    languageMap: c.languageMap ?? {},
    includeBase: c.includeBase ?? false,
  };
}
