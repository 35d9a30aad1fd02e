// Where a webhook may point (API.md 4.7): `https`, no credentials, and a host whose every address is public.
// Checked at create and update, and again before every delivery, which then connects to an address this check
// passed (send.ts), so a name that resolves elsewhere between check and connect (DNS rebinding) gains nothing.
//
// Address spellings: the WHATWG URL parser already rewrites decimal, octal and hex IPv4 forms
// (`https://2130706433/`, `https://0x7f.1/`, `https://0177.0.0.1/`) to dotted quads and compresses IPv6, so the
// host is classified in its canonical form; ipaddr.js names the range. Only `unicast` (globally routable) passes:
// documentation, benchmarking, 6to4, NAT64 and other special ranges are refused with the private ones, since each
// may lead somewhere other than the public internet.
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import type { HostResolver } from '../platform/app.js';

/** Cloud metadata endpoints: refused even with WEBHOOK_ALLOW_PRIVATE. */
const METADATA = ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'].map((a) => ipaddr.parse(a).toString());

/** The ranges WEBHOOK_ALLOW_PRIVATE opens (local development): loopback and private, nothing else. */
const OPENED_BY_ALLOW_PRIVATE = new Set(['loopback', 'private', 'uniqueLocal']);

const RESOLVE_TIMEOUT_MS = 5_000;

interface UrlPolicy {
  allowPrivate: boolean;
  resolve?: HostResolver;
}

/** A URL that passed, and the address to connect to (one the check passed). */
export interface CheckedUrl {
  url: URL;
  /** The host name as written (TLS server name and Host header), brackets stripped from an IPv6 literal. */
  hostname: string;
  address: string;
}

/** Why a URL or address is refused; the message is safe to show to the webhook's owner. */
export class UrlRefused extends Error {}

// Both checks below are pure functions of their text, run before every attempt: remembered, since ipaddr.js
// answers "not an address" by throwing (a stack trace each time a host name is tested).
const literals = new LRUCache<string, boolean>({ max: 4096 });
const refusals = new LRUCache<string, { why: string | null }>({ max: 4096 });

/** Whether `host` is an IP address (any spelling ipaddr.js reads), not a name to resolve. */
function isAddressLiteral(host: string): boolean {
  let literal = literals.get(host);
  if (literal === undefined) literals.set(host, (literal = ipaddr.isValid(host)));
  return literal;
}

/** Why `address` may not be connected to, or null when it may. */
export function addressRefusal(address: string, allowPrivate: boolean): string | null {
  const key = `${allowPrivate ? 1 : 0} ${address}`;
  let known = refusals.get(key);
  if (!known) refusals.set(key, (known = { why: classify(address, allowPrivate) }));
  return known.why;
}

function classify(address: string, allowPrivate: boolean): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  // IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it reaches.
  const ip = ipaddr.process(address);
  if (METADATA.includes(ip.toString())) return `${address} is a cloud metadata address`;
  const range = ip.range();
  if (range === 'unicast') return null;
  if (allowPrivate && OPENED_BY_ALLOW_PRIVATE.has(range)) return null;
  return `${address} is not a public address (${range})`;
}

const systemResolve: HostResolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

async function resolveWithin(resolve: HostResolver, host: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UrlRefused(`${host} did not resolve within 5 seconds`)), RESOLVE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([resolve(host), timeout]);
  } catch (err) {
    if (err instanceof UrlRefused) throw err;
    throw new UrlRefused(`${host} does not resolve`);
  } finally {
    clearTimeout(timer);
  }
}

/** Only the URL's form: https, no credentials (no resolution). Throws UrlRefused. */
function parseWebhookUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UrlRefused('url is not a valid URL');
  }
  if (url.protocol !== 'https:') throw new UrlRefused('url must use https');
  if (url.username || url.password) throw new UrlRefused('url must not carry credentials');
  return url;
}

/** The whole check: form, resolution, every address public. Throws UrlRefused. */
export async function checkWebhookUrl(text: string, policy: UrlPolicy): Promise<CheckedUrl> {
  const url = parseWebhookUrl(text);
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = isAddressLiteral(hostname)
    ? [hostname]
    : await resolveWithin(policy.resolve ?? systemResolve, hostname);
  if (!addresses.length) throw new UrlRefused(`${hostname} does not resolve`);
  // Every address must pass, not only the one used: a name with one private answer is one resolver change away.
  for (const a of addresses) {
    const why = addressRefusal(a, policy.allowPrivate);
    if (why) throw new UrlRefused(hostname === a ? why : `${hostname} resolves to ${why}`);
  }
  return { url, hostname, address: addresses[0] };
}
