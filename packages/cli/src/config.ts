// glossa.config.json / .glossarc.json: found by searching upward from the working folder, checked against the
// schema the package publishes (packages/cli/glossa.schema.json, referenced by `$schema`). Paths are relative to the
// file.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FormatId } from '../../core/src/catalog.js';
import { REGISTRY } from '../../core/src/formats/index.js';
import { CliError, EXIT } from './errors.js';

const CONFIG_NAMES = ['glossa.config.json', '.glossarc.json'];
// One folder up from both src/ (tests, tsx) and dist/ (the built bin): the schema sits at the package's root.
const SCHEMA_PATH = fileURLToPath(new URL('../glossa.schema.json', import.meta.url));

export interface FileMapping {
  source: string;
  format: FormatId;
  template?: string;
  /**
   * The project namespace the file is the whole catalog of (spec: SyncRequest.namespace). Resolved by loadConfig:
   * as the config says, else derived when it maps more than one file (`mappingNamespaces`); absent: the default one.
   */
  namespace?: string;
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

export function loadConfig(opts: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  configPath?: string;
  /** No config file is needed when the environment names the project (the MCP server without a repository). */
  withoutFiles?: boolean;
}): Config {
  const file = opts.configPath ? path.resolve(opts.cwd, opts.configPath) : findConfig(opts.cwd);
  if (!file && !opts.configPath && opts.withoutFiles && opts.env.GLOSSA_BASE_URL && opts.env.GLOSSA_PROJECT_ID)
    return projectOnly(opts.cwd, opts.env);
  if (!file || !existsSync(file))
    throw new CliError(
      EXIT.usage,
      `No ${CONFIG_NAMES.join(' or ')} found in ${opts.cwd} or any folder above it${opts.withoutFiles ? ' (or set GLOSSA_BASE_URL, GLOSSA_PROJECT_ID and GLOSSA_API_KEY to work on a project without one)' : ''}.`,
    );
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
  for (const m of c.files) {
    if (m.format !== 'xcstrings' && !m.template)
      throw new CliError(
        EXIT.usage,
        `${file}: the mapping of ${m.source} needs a template (e.g. locales/{locale}.json).`,
      );
    // Every language would be written to the one path, each over the last.
    if (m.template && !REGISTRY[m.format].multiLanguage && !PLACEHOLDER.test(m.template))
      throw new CliError(
        EXIT.usage,
        `${file}: the template ${m.template} of ${m.source} has no language placeholder ({locale}, {android}, {apple} or {posix}), so every language would be written to one file.`,
      );
  }
  return {
    file,
    dir: path.dirname(file),
    baseUrl: baseUrl.replace(/\/+$/, ''),
    projectId,
    apiKey,
    files: mappingNamespaces(file, c.files),
    languageMap: languageMap(file, c.languageMap ?? {}),
    includeBase: c.includeBase ?? false,
  };
}

/** The project's side of the config file and the key, from the environment alone: no files to push or pull. */
function projectOnly(cwd: string, env: NodeJS.ProcessEnv): Config {
  if (!env.GLOSSA_API_KEY)
    throw new CliError(EXIT.usage, 'No API key: set GLOSSA_API_KEY (the config file never holds it).');
  return {
    file: '',
    dir: path.resolve(cwd),
    baseUrl: env.GLOSSA_BASE_URL!.replace(/\/+$/, ''),
    projectId: env.GLOSSA_PROJECT_ID!,
    apiKey: env.GLOSSA_API_KEY,
    files: [],
    languageMap: {},
    includeBase: false,
  };
}

/**
 * `languageMap` keyed by the API's spelling of a code, lowercase (`pt-br`): a key written `pt-BR` matched nothing
 * and was silently ignored. Two keys naming one code are refused.
 */
function languageMap(file: string, raw: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    const code = k.toLowerCase().replace(/_/g, '-');
    if (code in out) throw new CliError(EXIT.usage, `${file}: languageMap names ${code} twice (${k}).`);
    out[code] = v;
  }
  return out;
}

/** A template's placeholders (files.ts `expandTemplate`). */
const PLACEHOLDER = /\{(?:locale|android|apple|posix)\}/;

/**
 * The namespace a mapping takes when the config names none: its base file's name without the extension
 * (`public/locales/en/app.json`: `app`; `values/strings.xml`: `strings`; `Localizable.xcstrings`: `Localizable`), or,
 * when that name is the language itself (the template's file name holds a placeholder: `locales/{locale}.json`), the
 * folder's (`locales`), else the format's id (`{locale}.json` beside the config: `json`). Spelled to the spec's `Namespace`
 * pattern.
 */
export function derivedNamespace(m: Pick<FileMapping, 'source' | 'template' | 'format'>): string {
  const perLanguage = m.template !== undefined && PLACEHOLDER.test(path.posix.basename(m.template));
  const source = m.source.replace(/\\/g, '/');
  const raw = perLanguage
    ? path.posix.basename(path.posix.dirname(source))
    : path.posix.basename(source).replace(/\.[^.]*$/, '');
  const spelled = raw
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^[.-]+/, '')
    .slice(0, 64);
  return spelled || m.format;
}

/** A namespace spelled from a mapping's whole path (`app/src/main/res/values/strings.xml`: its folders and name). */
function pathNamespace(m: Pick<FileMapping, 'source'>): string {
  const spelled = m.source
    .replace(/\\/g, '/')
    .replace(/\.[^./]*$/, '')
    .split('/')
    .filter((s) => s && s !== '.' && s !== '..')
    .join('.')
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/\.{2,}/g, '.');
  // The end of the path tells files apart best: kept when the whole is longer than a namespace may be.
  return spelled.slice(-64).replace(/^[.-]+/, '') || 'default_';
}

/**
 * Each mapping's namespace. A config of one file keeps the default namespace (as before namespaces) unless it names
 * one; a config of several gives each mapping its own, so the files' syncs never disable each other's keys (each is
 * the whole catalog of its namespace). Derived names that meet (two Android modules' `strings.xml`) are spelled from
 * the files' paths instead; two mappings the config itself puts in one namespace are refused, since a sync of one
 * would disable the other's keys.
 */
function mappingNamespaces(file: string, files: FileMapping[]): FileMapping[] {
  const derived = files.map((m) => (m.namespace === undefined && files.length > 1 ? derivedNamespace(m) : undefined));
  const uses = new Map<string, number>();
  files.forEach((m, i) => {
    const ns = m.namespace ?? derived[i] ?? '';
    uses.set(ns, (uses.get(ns) ?? 0) + 1);
  });
  const out = files.map((m, i): FileMapping => {
    let ns = m.namespace ?? derived[i] ?? '';
    if (derived[i] !== undefined && (uses.get(ns) ?? 0) > 1) ns = pathNamespace(m);
    const { namespace: _n, ...rest } = m;
    return ns === '' ? rest : { ...rest, namespace: ns };
  });
  const taken = new Map<string, string>();
  for (const m of out) {
    const ns = m.namespace ?? '';
    const other = taken.get(ns);
    if (other !== undefined)
      throw new CliError(
        EXIT.usage,
        `${file}: ${other} and ${m.source} are both in namespace ${JSON.stringify(ns)}, and a sync of one would disable the other's keys: give one of them its own "namespace".`,
      );
    taken.set(ns, m.source);
  }
  return out;
}
