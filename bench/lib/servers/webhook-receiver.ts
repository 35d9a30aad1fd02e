// The webhook scenario's receiver (bench/webhooks.ts), in a process of its own: a certificate authority made for the run (openssl),
// an HTTPS server on loopback answering 204 to every POST. Prints READY {port, caFile}; removes the CA on exit.
import { makeTestCa, startReceiver } from '../../../test/helpers/webhook-receiver.js';

const ca = makeTestCa();
const rx = await startReceiver(ca);
// Only the count matters here: the bodies would grow without bound over a bench run.
setInterval(() => rx.received.splice(0), 1000).unref();
console.log(`READY ${JSON.stringify({ port: rx.port, caFile: ca.caFile })}`);
const keepAlive = setInterval(() => {}, 1 << 30);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    clearInterval(keepAlive);
    ca.remove();
    void rx.close().then(() => process.exit(0));
  });
}
