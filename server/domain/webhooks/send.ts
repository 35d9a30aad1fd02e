// One HTTPS POST of a delivery attempt. It goes to the address urls.ts checked, never to a fresh
// resolution of the name: the socket is opened to that IP, with the URL's host name as the TLS server name (SNI
// and certificate check) and Host header. The keep-alive pool is keyed by IP and server name, so a reused socket
// is one opened to an address checked for this same host.
//
// Verdicts: a 2xx within 10 seconds succeeds. Any other status fails; a 3xx is a redirect, never followed; a
// connection (TCP and TLS) not open within 5 seconds, or no answer within 10 seconds, fails. A receiver's body is
// read up to 64 KiB, of which the first 200 characters go to `lastError`; past that the socket is dropped.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { isIP } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import type { CheckedUrl } from './urls.js';

const ANSWER_MS = 10_000;
const CONNECT_MS = 5_000;
const BODY_CAP = 64 * 1024;
const SNIPPET = 200;

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

const agents = new Map<string, https.Agent>();

/** One keep-alive agent per extra-CA file: the system roots, plus WEBHOOK_CA_FILE's authorities when set. */
function agentFor(caFile: string | undefined): https.Agent {
  const key = caFile ?? '';
  let agent = agents.get(key);
  if (!agent) {
    // A secure context built once, not a `ca` option: the agent writes its options' `ca` into every request's pool
    // key, which for the whole root store costs more than the POST itself.
    const secureContext = caFile
      ? createSecureContext({ ca: [...rootCertificates, readFileSync(caFile, 'utf8')] })
      : undefined;
    agent = new https.Agent({ keepAlive: true, maxSockets: 64, secureContext });
    agents.set(key, agent);
  }
  return agent;
}

const printable = (s: string) => s.replace(/[^\x20-\x7e]+/g, ' ').trim();

export async function postSigned(
  target: CheckedUrl,
  body: Buffer,
  headers: Record<string, string>,
  opts: { caFile?: string } = {},
): Promise<SendResult> {
  const r = await postOnce(target, body, headers, opts);
  // A kept-alive socket the receiver closed while it sat idle fails the next request written to it before any
  // answer (Node's http docs, "reusedSocket"): that is no verdict of the receiver's, so the POST goes once more, on
  // another socket. Delivery is at least once, so a receiver that did read it deduplicates as for any retry.
  return r.staleSocket ? postOnce(target, body, headers, opts) : r;
}

function postOnce(
  target: CheckedUrl,
  body: Buffer,
  headers: Record<string, string>,
  opts: { caFile?: string },
): Promise<SendResult & { staleSocket?: boolean }> {
  return new Promise((resolve) => {
    let settled = false;
    let status: number | null = null;
    const chunks: Buffer[] = [];
    let read = 0;
    const finish = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(answerTimer);
      clearTimeout(connectTimer);
      resolve(r);
    };
    const verdict = (): SendResult => {
      if (status !== null && status >= 200 && status < 300) return { ok: true, statusCode: status, error: null };
      const snippet = printable(Buffer.concat(chunks).toString('utf8').slice(0, SNIPPET));
      const what = status !== null && status >= 300 && status < 400 ? `redirect (not followed)` : `HTTP ${status}`;
      return { ok: false, statusCode: status, error: snippet ? `${what}: ${snippet}` : what };
    };
    const req = https.request({
      host: target.address,
      port: target.url.port || 443,
      path: `${target.url.pathname}${target.url.search}`,
      method: 'POST',
      // SNI may not carry an IP address; an IP-literal URL is then verified against the address itself.
      servername: isIP(target.hostname) ? undefined : target.hostname,
      headers: {
        host: target.url.host,
        'content-type': 'application/json',
        'content-length': String(body.length),
        'user-agent': 'Glossa-Webhooks/1',
        ...headers,
      },
      agent: agentFor(opts.caFile),
    });
    const fail = (error: string) => {
      // A 2xx already answered stands, whatever the body does after it.
      if (status !== null) finish(verdict());
      else finish({ ok: false, statusCode: null, error });
      req.destroy();
    };
    const answerTimer = setTimeout(() => fail('timed out: no answer within 10 seconds'), ANSWER_MS);
    let connectTimer: NodeJS.Timeout | undefined;
    req.on('socket', (socket) => {
      if (req.reusedSocket) return;
      connectTimer = setTimeout(() => fail('connect timed out: not open within 5 seconds'), CONNECT_MS);
      socket.once('secureConnect', () => clearTimeout(connectTimer));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (req.reusedSocket && status === null && err.code === 'ECONNRESET' && !settled) {
        settled = true;
        clearTimeout(answerTimer);
        resolve({ ok: false, statusCode: null, error: 'ECONNRESET', staleSocket: true });
        return;
      }
      fail(printable(err.code ? `${err.code}: ${err.message}` : err.message));
    });
    req.on('response', (res) => {
      status = res.statusCode ?? null;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (chunks.length === 0 || Buffer.concat(chunks).length < SNIPPET) chunks.push(chunk);
        if (read > BODY_CAP) {
          finish(verdict());
          res.destroy();
        }
      });
      res.on('end', () => finish(verdict()));
      res.on('error', () => finish(verdict()));
      res.on('close', () => finish(verdict()));
    });
    req.end(body);
  });
}
