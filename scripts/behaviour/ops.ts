// The contract's operations as the snapshot drives them (scripts/behaviour-snapshot.ts): read from spec/, each called
// once valid (call2, remembered) and then refused every way its contract says it can be; and the fixture projects.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import {
  admin,
  api,
  arr,
  call,
  delivery,
  internal,
  send,
  str,
  type Json,
  type Obj,
  type Req,
  type Res,
} from './http.js';

export const FORMATS = ['json', 'nested_json', 'angular_json', 'ios_strings', 'xcstrings', 'android_xml', 'arb', 'po'];

// ---------------------------------------------------------------------------------------------------------------
// The contract's operations: each is called once with a valid request, remembered for the refusals

export interface Op {
  id: string;
  method: string;
  path: string;
  /** `callback`: a webhook the service sends (spec `webhooks:`), covered when the receiver got its event. */
  surface: 'public' | 'internal' | 'delivery' | 'callback';
  secured: boolean;
  scopes: string[];
  hasBody: boolean;
}

export function readOps(dir: string): void {
  for (const file of ['openapi.yaml', 'internal.yaml']) {
    const doc = YAML.parse(readFileSync(path.join(dir, 'spec', file), 'utf8')) as Obj;
    const defaultSecured = arr(doc.security).length > 0;
    for (const [event, item] of Object.entries((doc.webhooks ?? {}) as Record<string, Obj>))
      for (const o of Object.values(item as Record<string, Obj>))
        ops.push({
          id: str(o.operationId),
          method: 'POST',
          path: event,
          surface: 'callback',
          secured: false,
          scopes: [],
          hasBody: true,
        });
    for (const [p, item] of Object.entries(doc.paths as Record<string, Obj>))
      for (const [method, o] of Object.entries(item as Record<string, Obj>)) {
        if (!o || typeof o !== 'object' || !('operationId' in o)) continue;
        const servers = arr(o.servers);
        ops.push({
          id: str(o.operationId),
          method: method.toUpperCase(),
          path: p,
          surface: file === 'internal.yaml' ? 'internal' : servers.length ? 'delivery' : 'public',
          secured: o.security ? arr(o.security).length > 0 : defaultSecured,
          scopes: (o['x-scopes'] as string[] | undefined) ?? [],
          hasBody: Boolean(o.requestBody),
        });
      }
  }
}

/** Every due job, run until none is left (the route drains the queue; it also runs every sweep, so `ran` > 0). */
export async function runDue() {
  const r = await send({ method: 'POST', url: internal('/jobs/run-due'), auth: admin, body: {} });
  if (r.status !== 200) throw new Error(`run-due ${r.status} ${r.bytes.toString()}`);
}

async function must(label: string, r: Req): Promise<Obj> {
  const res = await call(label, r);
  if (res.status >= 300) throw new Error(`${label}: ${res.status} ${res.bytes.toString().slice(0, 300)}`);
  return res.json;
}

interface Project {
  id: string;
  key: string;
  langs: string[];
}

export async function project(name: string, body: Obj, creditsMc = 100_000_000): Promise<Project> {
  const ws = await must(`seed: workspace ${name}`, {
    method: 'POST',
    url: internal('/workspaces'),
    auth: admin,
    body: { name, creditsMc },
  });
  const p = await must(`seed: project ${name}`, {
    method: 'POST',
    url: internal('/projects'),
    auth: admin,
    body: { workspaceId: ws.workspaceId, name, ...body },
  });
  const k = await must(`seed: admin key ${name}`, {
    method: 'POST',
    url: internal(`/projects/${str(p.projectId)}/api-keys`),
    auth: admin,
    body: { scopes: ['admin'], name: 'all' },
  });
  const langs = [str(body.baseLang), ...arr(body.languages).map((l) => str(l.code))];
  return { id: str(p.projectId), key: `Bearer ${str(k.apiKey)}`, langs };
}

/** Every output format and language of the project's current version, pulled and hashed; then its delivery files. */
async function renderAll(p: Project, label: string): Promise<number> {
  let files = 0;
  const pull = async (q: Record<string, string>) => {
    files++;
    await call(`render ${label}`, {
      url: api(`/projects/${p.id}/translations?${new URLSearchParams({ version: 'current', ...q })}`),
      auth: p.key,
      file: true,
    });
  };
  // A project's /v1 requests stay under its rate limit (120 a minute) so that no answer depends on the clock: past
  // twelve languages, the bulk archive alone carries a language's files (byte for byte the single pulls).
  const singles = p.langs.slice(0, 12);
  for (const format of FORMATS) {
    if (format === 'xcstrings') {
      await pull({ format });
      continue;
    }
    for (const lang of singles) await pull({ format, lang });
    if (format === 'ios_strings') for (const lang of singles) await pull({ format, lang, part: 'stringsdict' });
    await pull({ format });
  }
  const m = await call(`delivery manifest ${label}`, { url: delivery(`/projects/${p.id}/manifest`) });
  const objects = [
    ...Object.values((m.json.bundles ?? {}) as Obj),
    ...Object.values((m.json.files ?? {}) as Obj).flatMap((byLang) => Object.values(byLang as Obj)),
  ] as Obj[];
  for (const o of objects) {
    files++;
    await call(`delivery file ${label}`, { url: delivery(`/projects/${p.id}/${str(o.url)}`), file: true });
  }
  return files;
}

export function findFile(dir: string, name: string): string {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) {
      const f = findFile(full, name);
      if (f) return f;
    } else if (e.name === name) return full;
  }
  return '';
}

// ---------------------------------------------------------------------------------------------------------------
// The run

const BOGUS: Record<string, string> = {
  projectId: 'p_nosuchproject0',
  workspaceId: 'ws_nosuchworkspace',
  versionId: '2001.01.01.1',
  docId: 'nosuchdoc',
  file: 'en.0123456789abcdef.json',
  requestId: 'nosuchrequest',
  webhookId: 'wh_nosuchwebhook',
  deliveryId: 'dlv_nosuchdelivery',
  operationId: 'op_nosuchoperation',
  keyId: 'nosuchkey000',
  key: 'no.such.key',
  lang: 'xx',
  code: 'xx',
  userId: 'usr_nosuchuser',
};

/** The contract's operations, read by readOps. */
export const ops: Op[] = [];
const byId = (id: string) => {
  const o = ops.find((x) => x.id === id);
  if (!o) throw new Error(`${id} is not in the spec`);
  return o;
};
function urlOf(o: Op, params: Record<string, string>, query = ''): string {
  const p = o.path.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(params[k] ?? ''));
  const base = o.surface === 'internal' ? internal(p) : o.surface === 'delivery' ? delivery(p) : api(p);
  return query ? `${base}?${query}` : base;
}
interface Call {
  params?: Record<string, string>;
  query?: string;
  body?: Json;
  auth?: string;
  headers?: Record<string, string>;
}
export const calls = new Map<string, Call>();
/** A valid call of `id`; the first one is what the refusals start from. */
export function call2(id: string, c: Call = {}): Promise<Res> {
  const o = byId(id);
  if (!calls.has(id)) calls.set(id, c);
  return call(id, {
    method: o.method,
    url: urlOf(o, c.params ?? {}, c.query),
    auth: c.auth,
    body: c.body,
    headers: c.headers,
    measured: id === 'internalDebugMetrics',
  });
}

export async function refusals(neg: Project, scopeKeys: Record<string, string>) {
  for (const o of ops) {
    const c = calls.get(o.id);
    if (!c) continue;
    const params = { ...c.params, ...(c.params?.projectId ? { projectId: neg.id } : {}) };
    const auth = o.surface === 'public' ? neg.key : c.auth;
    const base = { method: o.method, headers: c.headers, body: c.body };
    if (o.secured) await call(`${o.id} refused: no credentials`, { ...base, url: urlOf(o, params, c.query) });
    if (o.surface === 'public' && o.secured && !o.scopes.includes('*')) {
      const scope = ['capture', 'read', 'write', 'translate', 'publish'].find((s) => !o.scopes.includes(s))!;
      await call(`${o.id} refused: scope ${scope}`, {
        ...base,
        url: urlOf(o, params, c.query),
        auth: scopeKeys[scope],
      });
    }
    if (o.hasBody)
      await call(`${o.id} refused: body`, { ...base, url: urlOf(o, params, c.query), auth, raw: Buffer.from('[1]') });
    for (const name of Object.keys(c.params ?? {}))
      await call(`${o.id} refused: unknown ${name}`, {
        ...base,
        url: urlOf(o, { ...params, [name]: BOGUS[name] ?? 'nosuch' }, c.query),
        auth,
      });
  }
}

/** Every dashboard page reachable from `/` as the signed-in owner (at most three of each shape). */
export async function fixtures(dir: string): Promise<number> {
  // The checkout's copy of the public catalogs; a checkout from before the copy read them beside itself.
  const inside = path.resolve(dir, 'test/fixtures/catalogs');
  const root = existsSync(inside) ? inside : path.resolve(dir, '../shared/fixtures');
  let files = 0;
  for (const sub of readdirSync(root)
    .filter((d) => !d.endsWith('.md'))
    .sort())
    for (const name of readdirSync(path.join(root, sub)).sort()) {
      const rel = `${sub}/${name}`;
      const bytes = readFileSync(path.join(root, rel));
      let base = /-de[._-]/.test(name) ? 'de' : 'en';
      const extra = new Set<string>();
      if (sub === 'xcstrings') {
        const x = JSON.parse(bytes.toString('utf8')) as { sourceLanguage?: string; strings?: Record<string, Obj> };
        base = x.sourceLanguage ?? base;
        for (const s of Object.values(x.strings ?? {}))
          for (const l of Object.keys(s.localizations ?? {})) extra.add(l);
      }
      const langs = [...new Set(['ar', 'ja', 'pl', 'de', ...extra])].filter(
        (l) => l.toLowerCase() !== base.toLowerCase(),
      );
      const p = await project(`fixture ${rel}`, { baseLang: base, languages: langs.map((code) => ({ code })) });
      await call(`fixture sync ${rel}`, {
        method: 'POST',
        url: api(`/projects/${p.id}/sync`),
        auth: p.key,
        body: { contentBase64: bytes.toString('base64'), fileName: name },
      });
      for (const format of [sub, sub === 'json' ? 'nested_json' : 'json'])
        await call(`fixture format ${rel}`, {
          method: 'POST',
          url: api(`/projects/${p.id}/output-formats`),
          auth: p.key,
          body: { format, mode: 'add' },
        });
      await runDue();
      await call(`fixture publish ${rel}`, {
        method: 'POST',
        url: api(`/projects/${p.id}/publish`),
        auth: p.key,
        body: { incompleteMode: 'source' },
      });
      files += await renderAll(p, rel);
    }
  return files;
}
