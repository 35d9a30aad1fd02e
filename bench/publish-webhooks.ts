// A publish with five webhooks subscribed costs what one without does. The outbox writes the event, five
// deliveries and their five jobs inside the publish's transaction; nothing is sent while the client waits (the
// workers send later). Same project as the publish scenario (10,000 keys x 20 languages, json + android_xml,
// prepared): publishes with the five webhooks enabled and with them disabled alternate after a warm-up, medians
// compared.
// Target: at most 1.1x.
import { alternate, list, median, type Scenario } from './lib/compare.js';
import { TARGETS_19 } from './lib/languages.js';
import { startService, stop } from './lib/servers.js';

// 1 + 4 + 2 x 12 publishes: the daily limit per project is 30 (docs/guides/api.md "Limits").
const ROUNDS = 12;
const LANGS = TARGETS_19.join(',');

export const scenario: Scenario = {
  name: 'POST /publish with five webhooks subscribed vs without (ms, 10,000 keys x 20 languages, prepared)',
  async run() {
    const svc = await startService({
      BENCH_LANGS: LANGS,
      BENCH_SCOPES: 'admin',
      BENCH_SEED_KEYS: '10000',
      BENCH_FORMATS: 'json,android_xml',
      // The webhooks point at loopback; WORKERS stays off, so none is sent during the run.
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    const { projectId, apiKey } = svc.info.projects[0];
    const api = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${svc.info.base}/projects/${projectId}${p}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
      return res.status === 204 ? undefined : ((await res.json()) as Record<string, unknown>);
    };
    const publish = async () => {
      const t0 = performance.now();
      await api('POST', '/publish');
      return performance.now() - t0;
    };
    const hooks: string[] = [];
    const setEnabled = (enabled: boolean) =>
      Promise.all(hooks.map((id) => api('PATCH', `/webhooks/${id}`, { enabled })));
    let withHooks: number[] = [];
    let without: number[] = [];
    try {
      for (let i = 0; i < 5; i++)
        hooks.push(
          (await api('POST', '/webhooks', { url: `https://127.0.0.1:9/hook${i}`, events: ['strings.published'] }))!
            .webhookId as string,
        );
      await publish();
      const due = await fetch(`${svc.info.adminUrl}/jobs/run-due`, {
        method: 'POST',
        headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
        body: JSON.stringify({ now: new Date(Date.now() + 60_000).toISOString() }),
      });
      if (due.status !== 200) throw new Error(`run-due failed: ${due.status}`);
      // Warm-up: the first publishes of a process run 2x slower (JIT, caches) and would count against whichever side
      // went first.
      let state: boolean | undefined;
      const publishWith = async (enabled: boolean) => {
        // Only on a change: the project's rate limit (120 requests a minute) counts each PATCH.
        if (state !== enabled) await setEnabled((state = enabled));
        return publish();
      };
      for (const enabled of [true, true, false, false]) await publishWith(enabled);
      // ABBA order: each side goes first in half the rounds, so a drift over the run favors neither.
      ({ without, withHooks } = await alternate(
        { without: () => publishWith(false), withHooks: () => publishWith(true) },
        { rounds: ROUNDS, abba: true },
      ));
    } finally {
      await stop(svc);
    }
    const a = median(withHooks);
    const b = median(without);
    return {
      figure: `${a.toFixed(0)} ms per publish with five webhooks (runs: ${list(withHooks)})`,
      baseline: `${b.toFixed(0)} ms without (runs: ${list(without)})`,
      ratio: a / b,
      target: '<= 1.1',
    };
  },
};
