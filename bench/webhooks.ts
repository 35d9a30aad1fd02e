// Webhook deliveries per second to a local HTTPS receiver (another process), against a bare Node `https`
// client posting the same signed bodies to the same receiver. Target >= 0.5.
// Ours is the whole path of each attempt, run by the worker loop's own drain (server/infra/jobs.ts): the job
// claimed from the queue (SQLite) in the worker's rolling window of DELIVERY_WIDTH, the delivery, webhook and event
// read, the URL checked again (resolver, ranges), both signature schemes, the POST to the checked address, and the
// fenced result write that also ends the job. The baseline signs (one HMAC) and posts over a keep-alive agent
// trusting the same CA: the floor of any sender. Both keep DELIVERY_WIDTH requests in flight, as one worker does.
// The rounds alternate and the median round's ratio is reported; rounds of 2,000, since shorter ones (a few hundred
// milliseconds) swung by 2x with the garbage collector and JIT.
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../server/app/app.js';
import { loadConfig } from '../server/infra/config.js';
import { newEventId, recordEvent } from '../server/domain/webhooks/events.js';
import { DELIVERY_WIDTH } from '../server/domain/webhooks/deliver.js';
import { newSecret } from '../server/domain/webhooks/sign.js';
import { alternate, list, medianRound, type Scenario } from './lib/compare.js';
import { SERVERS, spawnServer, stop } from './lib/servers.js';

const ROUNDS = 7;
const PER_ROUND = 2000;

const eventBody = (projectId: string, i: number) => {
  const id = newEventId();
  return {
    id,
    type: 'strings.published',
    schemaVersion: 1,
    createdAt: new Date().toISOString(),
    project: { id: projectId, handle: 'bench', slug: 'bench' },
    data: { versionId: `2025.01.01.${i + 1}`, label: null, keyCount: 1200, languages: [{ code: 'en', isBase: true }] },
  };
};

export const scenario: Scenario = {
  name: 'webhook deliveries vs a bare Node https client posting the same signed bodies (deliveries/s)',
  async run() {
    const rx = await spawnServer<{ port: number; caFile: string }>(SERVERS.webhookReceiver);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'glossa-bench-webhooks-'));
    const app = await createApp(
      loadConfig({
        DATA_DIR: dir,
        WORKERS: 'off',
        LOG_LEVEL: 'silent',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_CA_FILE: rx.info.caFile,
      }),
    );
    app.webhookResolver = () => Promise.resolve(['127.0.0.1']);
    const url = `https://hooks.test:${rx.info.port}/bench`;
    const projectId = 'prj_bench_webhooks';
    const secret = newSecret();
    const now = Date.now();
    await app.db('webhooks').insert({
      id: 'wh_bench',
      project_id: projectId,
      url,
      events: JSON.stringify(['strings.published']),
      enabled: true,
      failure_count: 0,
      secret,
      created_at: now,
      updated_at: now,
    });
    const agent = new https.Agent({ keepAlive: true, ca: readFileSync(rx.info.caFile, 'utf8') });
    let seq = 0;

    const ours = async () => {
      await app.db.transaction(async (trx) => {
        for (let i = 0; i < PER_ROUND; i++) {
          const body = eventBody(projectId, seq++);
          await recordEvent(trx, projectId, 'strings.published', body, Date.now(), body.id);
        }
      });
      const started = performance.now();
      await app.jobs.drain();
      const s = (performance.now() - started) / 1000;
      const left = await app.db('webhook_deliveries').whereNot({ status: 'delivered' }).count({ n: '*' });
      if (Number(left[0].n)) {
        const why = await app.db('webhook_deliveries').whereNot({ status: 'delivered' }).distinct('last_error');
        throw new Error(`${String(left[0].n)} deliveries not delivered: ${why.map((r) => r.last_error).join('; ')}`);
      }
      return PER_ROUND / s;
    };

    const post = (body: Buffer, headers: Record<string, string>) =>
      new Promise<void>((resolve, reject) => {
        const req = https.request(
          {
            host: '127.0.0.1',
            port: rx.info.port,
            servername: 'hooks.test',
            path: '/bench',
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': String(body.length), ...headers },
          },
          (res) => {
            res.resume();
            res.on('end', () => (res.statusCode === 204 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
          },
        );
        req.on('error', reject);
        req.end(body);
      });

    const bare = async () => {
      const bodies = Array.from({ length: PER_ROUND }, (_, i) => {
        const b = eventBody(projectId, i);
        return { id: b.id, body: Buffer.from(JSON.stringify(b)) };
      });
      const started = performance.now();
      let next = 0;
      const lane = async () => {
        while (next < bodies.length) {
          const { id, body } = bodies[next++];
          const t = Math.floor(Date.now() / 1000);
          const v1 = createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
          await post(body, { 'x-glossa-signature': `t=${t},v1=${v1}`, 'x-glossa-event-id': id });
        }
      };
      await Promise.all(Array.from({ length: DELIVERY_WIDTH }, lane));
      return PER_ROUND / ((performance.now() - started) / 1000);
    };

    let rounds;
    try {
      // Warm both sides (JIT, TLS sessions, database pages) before any round counts.
      rounds = await alternate({ ours, bare }, { rounds: ROUNDS, warmup: 1 });
    } finally {
      agent.destroy();
      await app.db.destroy();
      await stop(rx);
      rmSync(dir, { recursive: true, force: true });
    }
    const m = medianRound(rounds.ours, rounds.bare);
    return {
      figure: `${m.ours.toFixed(0)} deliveries/s (rounds: ${list(rounds.ours)})`,
      baseline: `${m.base.toFixed(0)} posts/s (rounds: ${list(rounds.bare)})`,
      ratio: m.ratio,
      target: '>= 0.5',
    };
  },
};
