// Signing, and the Standard Webhooks headers beside it (standardwebhooks.com), over the same bytes.
//
// One secret serves both schemes. It is `whsec_` + base64 of 32 random bytes, the form the Standard Webhooks
// libraries take as is:
// - X-Glossa-Signature: `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed with the whole secret string
//   (UTF-8, `whsec_` included), as docs/guides/webhooks.md documents it.
// - webhook-signature: `v1,<base64 HMAC-SHA256 of "<id>.<t>.<body>">`, keyed with the base64-decoded part after
//   `whsec_`, which is what `new Webhook(secret)` of the standardwebhooks packages does with the same string.
// During a rotation each header carries one value per live secret, the new one first.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

export const newSecret = () => `${PREFIX}${randomBytes(32).toString('base64')}`;
export const secretHint = (secret: string) => secret.slice(-4);

function hmac(key: string | Buffer, parts: Array<string | Buffer>): Buffer {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest();
}

const standardKey = (secret: string) => Buffer.from(secret.slice(PREFIX.length), 'base64');

/** Every signing header of one attempt: `secrets` are the live ones, newest first; `t` in unix seconds. */
export function signatureHeaders(
  body: Buffer,
  ids: { eventId: string; webhookId: string },
  secrets: string[],
  t: number,
): Record<string, string> {
  const ours = secrets.map((s) => `v1=${hmac(s, [`${t}.`, body]).toString('hex')}`);
  const standard = secrets.map((s) => `v1,${hmac(standardKey(s), [`${ids.eventId}.${t}.`, body]).toString('base64')}`);
  return {
    'x-glossa-signature': [`t=${t}`, ...ours].join(','),
    'x-glossa-event-id': ids.eventId,
    'x-glossa-webhook-id': ids.webhookId,
    'webhook-id': ids.eventId,
    'webhook-timestamp': String(t),
    'webhook-signature': standard.join(' '),
  };
}
