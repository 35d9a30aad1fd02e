// How webhook hosts are resolved, at create and update and before every delivery (urls.ts): one resolver per
// service, so a name's answer is judged and pinned the same way at both moments.
//
// Not dns.lookup: getaddrinfo runs on the libuv thread pool, which file reads, hashing and compression share, and a
// lookup whose server never answers keeps its thread long after the caller gave up. dns.Resolver (c-ares) sends its
// own queries on sockets of the event loop, so a server that never answers holds nothing but a timer. Servers are
// WEBHOOK_DNS_SERVERS, else the system's (/etc/resolv.conf); /etc/hosts is not read, and `localhost` and its
// subdomains are loopback without a query (RFC 6761), so they are refused unless WEBHOOK_ALLOW_PRIVATE.
//
// What one project can spend: at most PER_PROJECT_IN_FLIGHT of its lookups wait on a server at once, and at most
// PER_PROJECT_WAITING more wait for one of those; past that a lookup is refused at once. So a project naming hosts
// that never answer slows only its own creates and deliveries. Answers are cached for their DNS TTL (at most
// MAX_TTL_MS), failures for FAILURE_TTL_MS, and a lookup already in flight for a host is joined, not repeated. The
// counts live in this process: they guard this process's resolver, not a quota
// (docs/decisions/0005-webhook-dns-and-fairness.md).
import { Resolver } from 'node:dns/promises';
import { LRUCache } from 'lru-cache';
import pLimit, { type LimitFunction } from 'p-limit';
import type { App, HostResolver } from '../../infra/app.js';

/** Lookups of one project that may wait on a DNS server at once, in this process. */
export const PER_PROJECT_IN_FLIGHT = 4;
/** Lookups of one project that may wait for one of those; past that, refused at once. */
export const PER_PROJECT_WAITING = 32;
const MAX_TTL_MS = 60_000;
const MIN_TTL_MS = 1_000;
const FAILURE_TTL_MS = 10_000;

/** Why a host has no address to deliver to; the message is safe to show to the webhook's owner. */
export class LookupFailed extends Error {}

interface Options {
  /** `ip` or `ip:port` (`[v6]:port`); empty: the system's servers. */
  servers: string[];
  timeoutMs: number;
  /** Replaces the DNS queries when it returns a resolver (tests): its answers carry no TTL and are not cached. */
  query?: () => HostResolver | undefined;
}

type Answer = { addresses: string[] } | { error: string };

const isLocalhost = (host: string) => /(^|\.)localhost\.?$/i.test(host);

export class HostLookups {
  private readonly resolver: Resolver;
  private readonly cache = new LRUCache<string, Answer>({ max: 2048, ttl: MAX_TTL_MS });
  private readonly pending = new Map<string, Promise<Answer>>();
  private readonly limits = new Map<string, LimitFunction>();
  private readonly underWay = new Map<string, number>();

  constructor(private readonly opts: Options) {
    // One try of `timeoutMs`: c-ares would otherwise try again with a doubled timeout, past what the caller waits.
    this.resolver = new Resolver({ timeout: opts.timeoutMs, tries: 1 });
    if (opts.servers.length) this.resolver.setServers(opts.servers);
  }

  /** Every address of `host` (IPv4 and IPv6), looked up on behalf of `projectId`. Throws LookupFailed. */
  async addresses(projectId: string, host: string): Promise<string[]> {
    if (isLocalhost(host)) return ['127.0.0.1', '::1'];
    const answer = this.cache.get(host) ?? (await this.join(projectId, host));
    if ('error' in answer) throw new LookupFailed(answer.error);
    return answer.addresses;
  }

  private join(projectId: string, host: string): Promise<Answer> {
    const running = this.pending.get(host);
    if (running) return running;
    // Counted here, synchronously: p-limit's own counts move a microtask after each call.
    const under = this.underWay.get(projectId) ?? 0;
    if (under >= PER_PROJECT_IN_FLIGHT + PER_PROJECT_WAITING)
      throw new LookupFailed(
        `${host} was not looked up: this project has ${under} lookups of webhook hosts under way; ` +
          'try again in a few seconds',
      );
    let limit = this.limits.get(projectId);
    if (!limit) this.limits.set(projectId, (limit = pLimit(PER_PROJECT_IN_FLIGHT)));
    this.underWay.set(projectId, under + 1);
    const lookup = limit(() => this.cache.get(host) ?? this.query(host)).finally(() => {
      this.pending.delete(host);
      const left = (this.underWay.get(projectId) ?? 1) - 1;
      if (left) this.underWay.set(projectId, left);
      else {
        this.underWay.delete(projectId);
        this.limits.delete(projectId);
      }
    });
    this.pending.set(host, lookup);
    return lookup;
  }

  /** One lookup, bounded by the timeout whatever the server does, its answer cached. Never rejects. */
  private async query(host: string): Promise<Answer> {
    const secs = this.opts.timeoutMs / 1000;
    const late: Answer = { error: `${host} did not resolve within ${secs} second${secs === 1 ? '' : 's'}` };
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<{ answer: Answer; ttlMs: number }>((resolve) => {
      timer = setTimeout(() => resolve({ answer: late, ttlMs: FAILURE_TTL_MS }), this.opts.timeoutMs);
    });
    try {
      const { answer, ttlMs } = await Promise.race([this.ask(host, late), deadline]);
      if (ttlMs > 0) this.cache.set(host, answer, { ttl: ttlMs });
      return answer;
    } finally {
      clearTimeout(timer);
    }
  }

  private async ask(host: string, late: Answer): Promise<{ answer: Answer; ttlMs: number }> {
    const nowhere: Answer = { error: `${host} does not resolve` };
    const query = this.opts.query?.();
    if (query) {
      const addresses = await query(host).catch(() => []);
      return { answer: addresses.length ? { addresses } : nowhere, ttlMs: 0 };
    }
    const [v4, v6] = await Promise.allSettled([
      this.resolver.resolve4(host, { ttl: true }),
      this.resolver.resolve6(host, { ttl: true }),
    ]);
    const records = [v4, v6].flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
    if (records.length) {
      const ttl = Math.min(...records.map((r) => r.ttl)) * 1000;
      return {
        answer: { addresses: records.map((r) => r.address) },
        ttlMs: Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, ttl)),
      };
    }
    const timedOut = [v4, v6].some(
      (r) => r.status === 'rejected' && (r.reason as NodeJS.ErrnoException).code === 'ETIMEOUT',
    );
    return { answer: timedOut ? late : nowhere, ttlMs: FAILURE_TTL_MS };
  }
}

const perApp = new WeakMap<App, HostLookups>();

/** The service's one resolver of webhook hosts (WEBHOOK_DNS_SERVERS, WEBHOOK_DNS_TIMEOUT_MS; app.webhookResolver). */
export function lookupsOf(app: App): HostLookups {
  let lookups = perApp.get(app);
  if (!lookups) {
    lookups = new HostLookups({
      servers: app.config.webhookDnsServers,
      timeoutMs: app.config.webhookDnsTimeoutMs,
      query: () => app.webhookResolver,
    });
    perApp.set(app, lookups);
  }
  return lookups;
}
