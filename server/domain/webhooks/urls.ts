// Where a webhook may point: `https`, no credentials, and a host whose every address is public.
// Checked at create and update, and again before every delivery, which then connects to an address this check
// passed (send.ts), so a name that resolves elsewhere between check and connect (DNS rebinding) gains nothing.
//
// Address spellings: the WHATWG URL parser already rewrites decimal, octal and hex IPv4 forms
// (`https://2130706433/`, `https://0x7f.1/`, `https://0177.0.0.1/`) to dotted quads and compresses IPv6, so the
// host is classified in its canonical form; ipaddr.js names the range. Only `unicast` (globally routable) passes:
// documentation, benchmarking, 6to4, NAT64 and other special ranges are refused with the private ones, since each
// may lead somewhere other than the public internet.
import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import { LookupFailed, type HostLookups } from './resolver.js';

/** Cloud metadata endpoints: refused even with WEBHOOK_ALLOW_PRIVATE. */
const METADATA = ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'].map((a) => ipaddr.parse(a).toString());

/** The ranges WEBHOOK_ALLOW_PRIVATE opens (local development): loopback and private, nothing else. */
const OPENED_BY_ALLOW_PRIVATE = new Set(['loopback', 'private', 'uniqueLocal']);

interface UrlPolicy {
  allowPrivate: boolean;
  /** The service's resolver (resolver.ts lookupsOf), and the project whose lookup it is (its share of lookups). */
  lookups: HostLookups;
  projectId: string;
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

/**
 * IPv6 forms that carry an IPv4 address, with where it sits. IPv4-mapped (::ffff:0:0/96) is judged as the IPv4
 * address it reaches (ipaddr.process); every other form is refused whatever it embeds, since a translator, a 6to4
 * relay or a stack that still honours IPv4-compatible addresses may deliver it to that IPv4 address. ipaddr.js names
 * all but `::/96` (IPv4-compatible, deprecated by RFC 4291), which it calls `unicast`, so that one is matched here.
 * The embedded address only sharpens the message (a metadata address is named as such).
 */
const EMBEDDING: Array<{ range: string; cidr: [ipaddr.IPv6, number]; v4: (b: number[]) => number[] }> = [
  { range: 'ipv4Compatible', cidr: ipaddr.IPv6.parseCIDR('::/96'), v4: (b) => b.slice(12, 16) },
  { range: 'rfc6145', cidr: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), v4: (b) => b.slice(12, 16) },
  { range: 'rfc6052', cidr: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), v4: (b) => b.slice(12, 16) },
  { range: '6to4', cidr: ipaddr.IPv6.parseCIDR('2002::/16'), v4: (b) => b.slice(2, 6) },
  // Teredo: the client's address, obfuscated (each bit inverted) in the last 32 bits.
  { range: 'teredo', cidr: ipaddr.IPv6.parseCIDR('2001::/32'), v4: (b) => b.slice(12, 16).map((x) => x ^ 0xff) },
];

/** The range name of an IPv6 form embedding an IPv4 address, and that address; null for any other address. */
function embedded(ip: ipaddr.IPv4 | ipaddr.IPv6): { range: string; v4: string } | null {
  if (ip.kind() !== 'ipv6') return null;
  const v6 = ip as ipaddr.IPv6;
  // `::` and `::1` sit inside ::/96 but are the unspecified and loopback addresses, named as such by ipaddr.js.
  if (v6.range() === 'unspecified' || v6.range() === 'loopback') return null;
  const e = EMBEDDING.find((x) => v6.match(x.cidr));
  return e ? { range: e.range, v4: e.v4(v6.toByteArray()).join('.') } : null;
}

function classify(address: string, allowPrivate: boolean): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  // IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it reaches.
  const ip = ipaddr.process(address);
  if (METADATA.includes(ip.toString())) return `${address} is a cloud metadata address`;
  const carried = embedded(ip);
  if (carried) {
    if (METADATA.includes(carried.v4)) return `${address} is a cloud metadata address (${carried.range})`;
    return `${address} is not a public address (${carried.range}, carrying ${carried.v4})`;
  }
  const range = ip.range();
  if (range === 'unicast') return null;
  if (allowPrivate && OPENED_BY_ALLOW_PRIVATE.has(range)) return null;
  return `${address} is not a public address (${range})`;
}

async function resolve({ lookups, projectId }: UrlPolicy, host: string): Promise<string[]> {
  try {
    return await lookups.addresses(projectId, host);
  } catch (err) {
    if (err instanceof LookupFailed) throw new UrlRefused(err.message);
    throw err;
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
  const addresses = isAddressLiteral(hostname) ? [hostname] : await resolve(policy, hostname);
  if (!addresses.length) throw new UrlRefused(`${hostname} does not resolve`);
  // Every address must pass, not only the one used: a name with one private answer is one resolver change away.
  for (const a of addresses) {
    const why = addressRefusal(a, policy.allowPrivate);
    if (why) throw new UrlRefused(hostname === a ? why : `${hostname} resolves to ${why}`);
  }
  return { url, hostname, address: addresses[0] };
}
