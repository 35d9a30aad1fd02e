// A DNS server on loopback (UDP, RFC 1035 wire format) for the webhook resolver's tests: it answers A and AAAA for
// the names the test gives, NXDOMAIN for any other name, and nothing at all for a name the test marks silent (a
// server that never answers). Only what a stub resolver's single question needs: no compression in questions, no
// EDNS in answers (the OPT record a query may carry is ignored), no TCP.
import dgram from 'node:dgram';
import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

const A = 1;
const AAAA = 28;

export interface DnsQuery {
  name: string;
  type: 'A' | 'AAAA' | number;
  at: number;
}

export interface DnsServer {
  /** `127.0.0.1:<port>`, for WEBHOOK_DNS_SERVERS. */
  address: string;
  queries: DnsQuery[];
  /** The addresses (IPv4 and IPv6 mixed) `name` resolves to, with a TTL in seconds. */
  set(name: string, addresses: string[], ttl?: number): void;
  /** Names ending in `suffix` get no answer, ever. */
  silence(suffix: string): void;
  close(): Promise<void>;
}

/** The question's name (lowercased) and type, and where the question ends. */
function readQuestion(msg: Buffer): { name: string; type: number; end: number } | null {
  let at = 12;
  const labels: string[] = [];
  while (at < msg.length) {
    const len = msg[at];
    if (len === 0) {
      at++;
      break;
    }
    if (len > 63) return null;
    labels.push(msg.subarray(at + 1, at + 1 + len).toString('latin1'));
    at += 1 + len;
  }
  if (at + 4 > msg.length) return null;
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(at), end: at + 4 };
}

function answer(query: Buffer, q: { end: number }, rcode: number, rdatas: Buffer[], type: number, ttl: number): Buffer {
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // id
  // QR, opcode 0, AA, RD copied from the query, RA; then the rcode.
  header.writeUInt16BE(0x8400 | (query.readUInt16BE(2) & 0x0100) | 0x0080 | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(rdatas.length, 6);
  const records = rdatas.map((rdata) => {
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    rr.writeUInt16BE(type, 2);
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(ttl, 6);
    rr.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([rr, rdata]);
  });
  return Buffer.concat([header, query.subarray(12, q.end), ...records]);
}

export async function startDnsServer(): Promise<DnsServer> {
  const names = new Map<string, { addresses: string[]; ttl: number }>();
  const silent: string[] = [];
  const queries: DnsQuery[] = [];
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, from) => {
    const q = readQuestion(msg);
    if (!q) return;
    queries.push({ name: q.name, type: q.type === A ? 'A' : q.type === AAAA ? 'AAAA' : q.type, at: Date.now() });
    if (silent.some((s) => q.name === s || q.name.endsWith(`.${s}`))) return;
    const known = names.get(q.name);
    const rdatas = (known?.addresses ?? [])
      .filter((a) => (q.type === A ? isIPv4(a) : q.type === AAAA ? !isIPv4(a) : false))
      .map((a) => Buffer.from(ipaddr.parse(a).toByteArray()));
    socket.send(answer(msg, q, known ? 0 : 3, rdatas, q.type, known?.ttl ?? 0), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    queries,
    set: (name, addresses, ttl = 60) => names.set(name.toLowerCase(), { addresses, ttl }),
    silence: (suffix) => silent.push(suffix.toLowerCase()),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
