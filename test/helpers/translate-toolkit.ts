// translate-toolkit (Debian's package), the real consumer of the TMX files we write: a command run, and a TMX file
// read by its Python reader (`translate.storage.tmx`) as JSON.
import { spawnSync } from 'node:child_process';

/** Runs `cmd`; a missing tool says which package brings it. */
export function run(cmd: string, args: string[]) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error) throw new Error(`${cmd} is missing (apt-get install -y translate-toolkit gettext): ${r.error.message}`);
  return r;
}

const PY_READ = `
import json, sys
from translate.storage import tmx
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
store = tmx.tmxfile.parsefile(sys.argv[1])
print(json.dumps({"srclang": store.sourcelanguage, "units": [{
  "source": u.source, "target": u.target,
  "langs": [n.get(XML_LANG) for n in u.getlanguageNodes()],
  "props": {p.get("type"): p.text for p in u.xmlelement.findall("prop")},
} for u in store.units]}))
`;

interface ToolkitTmxUnit {
  source: string;
  target: string;
  langs: string[];
  props: Record<string, string>;
}

/** The TMX file at `file` as translate-toolkit's reader sees it; a reader that fails throws its stderr. */
export function readTmxWithToolkit(file: string): { srclang: string; units: ToolkitTmxUnit[] } {
  const r = run('/usr/bin/python3', ['-c', PY_READ, file]);
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as { srclang: string; units: ToolkitTmxUnit[] };
}
