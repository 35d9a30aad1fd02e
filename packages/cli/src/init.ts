// `glossa init`: writes glossa.config.json by looking at the repository: Android `res/values/strings.xml`, Apple
// `*.xcstrings` and `<base>.lproj/Localizable.strings`, Flutter `l10n.yaml` (ARB), `locales/<base>.json`, gettext
// `<base>/LC_MESSAGES/*.po`. Paths are relative to the folder it runs in; the key is never written.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { insideRoot } from './files.js';
import { parse as parseYaml } from 'yaml';
import { REGISTRY } from '../../core/src/formats/index.js';
import { derivedNamespace, type FileMapping } from './config.js';
import { CliError, EXIT } from './errors.js';
import type { Output } from './output.js';

const SKIP = new Set([
  'node_modules',
  '.git',
  'build',
  'dist',
  '.gradle',
  'Pods',
  '.dart_tool',
  'DerivedData',
  '.glossa',
]);
const DEPTH = 8;

function walk(root: string): string[] {
  const found: string[] = [];
  const visit = (dir: string, depth: number) => {
    if (depth > DEPTH) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) {
        if (!SKIP.has(e.name)) visit(path.join(dir, e.name), depth + 1);
      } else if (e.isFile()) found.push(path.relative(root, path.join(dir, e.name)).split(path.sep).join('/'));
    }
  };
  visit(root, 0);
  return found.sort();
}

const isNested = (file: string) => {
  try {
    const j = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    return Object.values(j).some((v) => v !== null && typeof v === 'object');
  } catch {
    return false;
  }
};

/** The file mappings a repository suggests, for base language `base`. */
function detect(root: string, base: string): FileMapping[] {
  const files = walk(root);
  const out: FileMapping[] = [];
  const claimed = new Set<string>();
  const add = (m: FileMapping) => {
    if (claimed.has(m.source)) return;
    claimed.add(m.source);
    out.push(m);
  };
  for (const f of files.filter((x) => x === 'l10n.yaml' || x.endsWith('/l10n.yaml'))) {
    const dir = path.posix.dirname(f) === '.' ? '' : `${path.posix.dirname(f)}/`;
    let y: Record<string, unknown> = {};
    try {
      y = (parseYaml(readFileSync(path.join(root, f), 'utf8')) as Record<string, unknown> | null) ?? {};
    } catch {
      /* defaults */
    }
    const arbDir = `${dir}${typeof y['arb-dir'] === 'string' ? y['arb-dir'] : 'lib/l10n'}`.replace(/\/+$/, '');
    const templateFile = typeof y['template-arb-file'] === 'string' ? y['template-arb-file'] : `app_${base}.arb`;
    const prefix = templateFile.replace(/_[A-Za-z]{2,3}([_-][A-Za-z0-9]+)?\.arb$/, '');
    add({ source: `${arbDir}/${templateFile}`, format: 'arb', template: `${arbDir}/${prefix}_{posix}.arb` });
  }
  for (const f of files) {
    if (f.endsWith('res/values/strings.xml')) {
      const res = f.slice(0, -'values/strings.xml'.length);
      add({ source: f, format: 'android_xml', template: `${res}values-{android}/strings.xml` });
    } else if (f.endsWith('.xcstrings')) {
      add({ source: f, format: 'xcstrings' });
    } else if (f.endsWith(`${base}.lproj/Localizable.strings`)) {
      const dir = f.slice(0, -`${base}.lproj/Localizable.strings`.length);
      add({ source: f, format: 'ios_strings', template: `${dir}{apple}.lproj/Localizable.strings` });
    } else if (new RegExp(`(^|/)locales?/${base}\\.json$`).test(f)) {
      const dir = f.slice(0, -`${base}.json`.length);
      add({
        source: f,
        format: isNested(path.join(root, f)) ? 'nested_json' : 'json',
        template: `${dir}{locale}.json`,
      });
    } else if (new RegExp(`(^|/)locales?/${base}/([^/]+)\\.json$`).test(f)) {
      const m = new RegExp(`^(.*?)${base}/([^/]+)\\.json$`).exec(f)!;
      add({
        source: f,
        format: isNested(path.join(root, f)) ? 'nested_json' : 'json',
        template: `${m[1]}{locale}/${m[2]}.json`,
      });
    } else if (new RegExp(`(^|/)${base}/LC_MESSAGES/[^/]+\\.po$`).test(f)) {
      const m = new RegExp(`^(.*?)${base}/LC_MESSAGES/([^/]+)\\.po$`).exec(f)!;
      add({ source: f, format: 'po', template: `${m[1]}{posix}/LC_MESSAGES/${m[2]}.po` });
    }
  }
  // gettext templates, after the base `.po` files: a template whose translations a base `.po` already maps is left
  // to it. Where the translations go: beside the template's folder as `<lang>/LC_MESSAGES/<name>.po` when that is
  // how the folder holds them (Babel, Sphinx, Django), as `<lang>.po` when the template sits among them (GNU `po/`).
  const templates = new Set(out.map((m) => m.template));
  for (const f of files.filter((x) => x.endsWith('.pot'))) {
    const dir = path.posix.dirname(f) === '.' ? '' : `${path.posix.dirname(f)}/`;
    const name = path.posix.basename(f, '.pot');
    const inLcMessages = files.some((x) => x.startsWith(dir) && x.endsWith(`/LC_MESSAGES/${name}.po`));
    const beside = files.some((x) => path.posix.dirname(x) === path.posix.dirname(f) && x.endsWith('.po'));
    const flat = !inLcMessages && (beside || path.posix.basename(path.posix.dirname(f)) === 'po');
    const template = flat ? `${dir}{posix}.po` : `${dir}{posix}/LC_MESSAGES/${name}.po`;
    if (templates.has(template)) continue;
    templates.add(template);
    add({ source: f, format: 'po', template });
  }
  return out;
}

export function init(
  cwd: string,
  out: Output,
  o: { base: string; baseUrl?: string; projectId?: string; force: boolean },
): number {
  const file = insideRoot(cwd, 'glossa.config.json');
  if (existsSync(file) && !o.force) throw new CliError(EXIT.usage, `${file} exists; run with --force to replace it.`);
  const files = detect(cwd, o.base);
  if (!files.length)
    throw new CliError(
      EXIT.usage,
      `Found no localization files for base language ${o.base} (Android res/values, *.xcstrings, l10n.yaml, locales/${o.base}.json, ${o.base}/LC_MESSAGES/*.po, *.pot). Write glossa.config.json by hand.`,
    );
  // A lone file the service cannot sync without a namespace (Android, .strings, ARB, PO) gets one, so that it is the
  // whole catalog of it: a string deleted from it is disabled on the next push (docs/decisions/0016-namespaces.md).
  // Several files get theirs from loadConfig; a config written before namespaces keeps the default one.
  const lone = files.length === 1 && !REGISTRY[files[0].format].syncable;
  const config = {
    $schema: './node_modules/@glossa/cli/glossa.schema.json',
    ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}),
    ...(o.projectId ? { projectId: o.projectId } : {}),
    files: lone ? [{ ...files[0], namespace: derivedNamespace(files[0]) }] : files,
  };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  for (const m of files) out.line(`${m.format.padEnd(12)} ${m.source}${m.template ? ` -> ${m.template}` : ''}`);
  out.line(
    `wrote ${path.relative(cwd, file)}; set GLOSSA_API_KEY${o.projectId ? '' : ' and GLOSSA_PROJECT_ID (or projectId)'} to use it`,
  );
  out.result({ ok: true, config });
  return EXIT.ok;
}
