// The snapshot's HTTP client and normalisation (scripts/behaviour-snapshot.ts): every answer is recorded in call
// order, with what varies between two runs replaced by placeholders numbered in order of first appearance.
import { createHash } from 'node:crypto';
import http from 'node:http';
import { unzipSync } from 'fflate';

export type Json = unknown;
export type Obj = Record<string, Json>;
export interface Rec {
  label: string;
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
  body?: string;
  sha256?: string;
  size?: number;
  entries?: Array<{ name: string; sha256: string }>;
}

export const ADMIN_TOKEN = 'snapshot-admin-token-0123456789';
/** The headers kept beside status and body: the ones that carry behaviour, none that carry time. */
const KEPT_HEADERS = ['content-type', 'content-disposition', 'glossa-format-warnings', 'location', 'retry-after'];

// ---------------------------------------------------------------------------------------------------------------
// Normalisation: one pass in record order, so a value's placeholder is the same in every run.

const PATTERNS: Array<[string, RegExp]> = [
  ['apikey', /glk_[A-Za-z0-9]+_[A-Za-z0-9]+/g],
  ['secret', /whsec_[A-Za-z0-9+/=]+/g],
  ['token', /\b(?:trk|cap)_[A-Za-z0-9_-]{12,}/g],
  ['id', /\b(?:p|ws|dlv|evt|op|cpub|cj|d|wh|usr|k)_[A-Za-z0-9]{8,}\b/g],
  ['version', /\b20\d\d\.\d\d\.\d\d\.\d+\b/g],
  ['time', /\b20\d\d-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?/g],
  ['ms', /\b1[6-9]\d{11}\b/g],
  ['origin', /127\.0\.0\.1:\d+/g],
];
const placeholders = new Map<string, string>();
const counters = new Map<string, number>();
const literals = new Set<string>();
let literalRe: RegExp | undefined;

function placeholder(kind: string, value: string): string {
  // Instants are not numbered: whether two of them fall in the same millisecond (or minute) is the clock's doing.
  if (kind === 'time' || kind === 'ms') return `<<${kind}>>`;
  let p = placeholders.get(value);
  if (!p) {
    const n = (counters.get(kind) ?? 0) + 1;
    counters.set(kind, n);
    p = `<<${kind}:${n}>>`;
    placeholders.set(value, p);
  }
  return p;
}

/** A value that varies between runs and matches no pattern (a bare key id, a cookie, a CSRF token). */
export function volatile(value: string | undefined) {
  if (!value || value.length < 4 || literals.has(value) || placeholders.has(value)) return;
  literals.add(value);
  const sorted = [...literals].sort((a, b) => b.length - a.length);
  literalRe = new RegExp(sorted.map((s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'g');
}

export function norm(text: string): string {
  let out = text;
  for (const [kind, re] of PATTERNS) out = out.replace(re, (m) => placeholder(kind, m));
  if (literalRe) out = out.replace(literalRe, (m) => placeholder('value', m));
  return out;
}

/** Learns the generated values of a JSON answer: ids, keys, secrets and tokens by their field names. */
function learn(v: Json, key = ''): void {
  if (Array.isArray(v)) v.forEach((x) => learn(x));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) learn(x, k);
  else if (typeof v !== 'string') return;
  // A handle ends in a random suffix; a secret's hint is its last characters.
  else if (key === 'handle' || key === 'secretHint') volatile(v);
  else if (
    /^(id|\w*Id|\w*_id|apiKey|secret|\w*[tT]oken|revisionId|pushId)$/.test(key) &&
    /[A-Z0-9]/.test(v) &&
    !v.startsWith('snap')
  )
    volatile(v);
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP, recorded

export const records: Rec[] = [];
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
/** The two origins' ports, set once the service is started. */
export const ports = { main: 0, delivery: 0 };
const jar = new Map<string, string>();

export interface Req {
  method?: string;
  url: string;
  auth?: string;
  body?: Json;
  raw?: Buffer;
  type?: string;
  headers?: Record<string, string>;
  cookies?: boolean;
  /** A rendered file: recorded by the sha256 of its exact bytes (a zip by its entries'). */
  file?: boolean;
  /** Measurements (GET /debug/metrics): every number of the answer is a placeholder, its shape is kept. */
  measured?: boolean;
}
export interface Res {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: Buffer;
  json: Obj;
}

export function send(r: Req): Promise<Res> {
  const u = new URL(r.url);
  const body = r.raw ?? (r.body === undefined ? undefined : Buffer.from(JSON.stringify(r.body)));
  const headers: Record<string, string> = { ...r.headers };
  if (r.auth) headers.authorization = r.auth;
  if (body) {
    headers['content-type'] = r.type ?? 'application/json';
    headers['content-length'] = String(body.length);
  }
  if (r.cookies && jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  return new Promise<Res>((resolve, reject) => {
    const req = http.request(u, { method: r.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        let json: Obj = {};
        if (/json/.test(res.headers['content-type'] ?? ''))
          try {
            json = JSON.parse(bytes.toString('utf8')) as Obj;
          } catch {
            /* recorded as text */
          }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  }).then(async (res) => {
    // Lists ordered by creation time fall back to random ids within one millisecond: no two writes share one.
    if (r.method && r.method !== 'GET') await new Promise((ok) => setTimeout(ok, 3));
    return res;
  });
}

export async function call(label: string, r: Req): Promise<Res> {
  const res = await send(r);
  learn(res.json);
  for (const c of [res.headers['set-cookie'] ?? []].flat()) {
    const [name, value] = c.split(';')[0].split('=');
    if (r.cookies) jar.set(name, value);
    volatile(value);
  }
  const text = res.bytes.toString('utf8');
  for (const m of text.matchAll(/name="csrf" value="([^"]+)"/g)) volatile(m[1]);
  const u = new URL(r.url);
  const rec: Rec = {
    label,
    method: r.method ?? 'GET',
    path: norm(u.pathname + u.search),
    status: res.status,
    headers: Object.fromEntries(
      KEPT_HEADERS.filter((h) => res.headers[h] !== undefined).map((h) => [h, norm(String(res.headers[h]))]),
    ),
  };
  const type = res.headers['content-type'] ?? '';
  if (type.includes('zip')) {
    rec.entries = Object.entries(unzipSync(new Uint8Array(res.bytes))).map(([name, b]) => ({
      name: norm(name),
      sha256: fileHash(Buffer.from(b)),
    }));
  } else if (r.file || (!/json|text|xml|html|javascript|css/.test(type) && res.bytes.length)) {
    rec.sha256 = fileHash(res.bytes);
    rec.size = res.bytes.length;
  } else rec.body = norm(r.measured ? text.replace(/-?\d+(\.\d+)?(e[+-]?\d+)?/g, '<<n>>') : text);
  records.push(rec);
  return res;
}

/** The sha256 of the exact bytes; of the normalised text only when the file itself names a volatile value. */
function fileHash(b: Buffer): string {
  const text = b.toString('utf8');
  const n = norm(text);
  return n === text ? sha(b) : `normalised:${sha(n)}`;
}

export const api = (p: string) => `http://127.0.0.1:${ports.main}/v1${p}`;
export const internal = (p: string) => `http://127.0.0.1:${ports.main}/internal/v1${p}`;
export const delivery = (p: string) => `http://127.0.0.1:${ports.delivery}/v1${p}`;
export const admin = `Bearer ${ADMIN_TOKEN}`;
export const str = (v: Json): string => (typeof v === 'string' ? v : '');
export const arr = (v: Json): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
