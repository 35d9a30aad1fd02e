// What acting under an operation costs an agent. Ours: POST /operations (a one-batch manifest) and
// then the batch of 500 new units x 10 languages sent under it (operationId, requestId, attemptId, batchIndex,
// batchSha256), timed together; the dry-run preview that gave the batch its hash and the person's approval
// happen between rounds of the clock, not on it. Baseline: the same push of 500 new units without an
// operation, by a person's key. Rounds alternate (operation, plain, operation, ...); medians are compared.
// Target: at most 1.5x.
import { createHash } from 'node:crypto';
import { alternate, list, median, type Scenario } from './lib/compare.js';
import type { components } from '../generated/openapi.js';
import { json } from './lib/http.js';
import { TARGETS_10 } from './lib/languages.js';
import { startService, stop } from './lib/servers.js';

const LANGS = TARGETS_10;
const UNITS = 500;
const ROUNDS = 5;
const source = (tag: string, i: number) => `${tag} string ${i}: open the {item} settings`;

type TranslateResult = components['schemas']['TranslateResult'];

export const scenario: Scenario = {
  name: `operation: POST /operations + one batch of ${UNITS} units x ${LANGS.length} languages under it, vs the same push without an operation (ms)`,
  async run() {
    const svc = await startService({
      BENCH_LANGS: LANGS.join(','),
      BENCH_SCOPES: 'admin',
      BENCH_SEED_KEYS: '5000',
    });
    const { projectId, apiKey } = svc.info.projects[0];
    const admin = (p: string, body: unknown) =>
      fetch(`${svc.info.adminUrl}${p}`, {
        method: 'POST',
        headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const agentKey = (
      await json<{ apiKey: string }>(
        await admin(`/projects/${projectId}/api-keys`, { scopes: ['translate'], requiresOperationApproval: true }),
      )
    ).apiKey;
    const call = async <T>(key: string, p: string, body: unknown) => {
      const res = await fetch(`${svc.info.base}${p}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const out = await json<T>(res);
      if (res.status !== 200 && res.status !== 201)
        throw new Error(`${p} answered ${res.status}: ${JSON.stringify(out).slice(0, 300)}`);
      return out;
    };
    const check = (r: TranslateResult) => {
      if (r.units.length !== UNITS || r.units.some((u) => u.pending.length !== LANGS.length))
        throw new Error(`push queued less than asked: ${JSON.stringify(r).slice(0, 300)}`);
    };

    /** Not timed: the preview (the batch's hash and estimate), and the manifest built from it. */
    const prepare = async (tag: string) => {
      const units = Array.from({ length: UNITS }, (_, i) => ({ source: source(tag, i) }));
      const preview = await call<{ batchSha256: string; estimatedCredits: number }>(
        agentKey,
        `/projects/${projectId}/translate?dryRun=true`,
        { units },
      );
      const batches = [{ index: 0, sha256: preview.batchSha256, unit_count: UNITS }];
      // Canonical already: one key, and the batch's keys written in sorted order.
      const payload = createHash('sha256').update(JSON.stringify({ batches })).digest('hex');
      const create = {
        action: 'translate',
        max_credits: Math.ceil(preview.estimatedCredits / 1000) + 1,
        scope: { project_id: projectId, langs: LANGS, unit_count: UNITS, batches, payload_sha256: payload },
      };
      return { units, sha: preview.batchSha256, create };
    };

    const underOperation = async (round: string) => {
      const { units, sha, create } = await prepare(`Op ${round}`);
      const t0 = performance.now();
      const op = await call<{ operation_id: string }>(agentKey, '/operations', create);
      let ms = performance.now() - t0;
      // The person's approval: between the two timed calls.
      const approved = await admin(`/operations/${op.operation_id}/approve`, {});
      if (approved.status !== 200) throw new Error(`approve answered ${approved.status}`);
      const t1 = performance.now();
      const r = await call<TranslateResult>(agentKey, `/projects/${projectId}/translate`, {
        units,
        operationId: op.operation_id,
        requestId: `bench-${round}`,
        attemptId: 'a1',
        batchIndex: 0,
        batchSha256: sha,
      });
      ms += performance.now() - t1;
      check(r);
      return ms;
    };
    const plain = async (round: string) => {
      const units = Array.from({ length: UNITS }, (_, i) => ({ source: source(`Plain ${round}`, i) }));
      const t0 = performance.now();
      const r = await call<TranslateResult>(apiKey, `/projects/${projectId}/translate`, { units });
      const ms = performance.now() - t0;
      check(r);
      return ms;
    };

    let rounds;
    try {
      // A warm-up round of both, not counted.
      rounds = await alternate(
        { ours: (r) => underOperation(String(r)), base: (r) => plain(String(r)) },
        { rounds: ROUNDS, warmup: 1 },
      );
    } finally {
      await stop(svc);
    }
    const { ours, base } = rounds;
    const a = median(ours);
    const b = median(base);
    return {
      figure: `${a.toFixed(1)} ms per create + batch (rounds: ${list(ours)})`,
      baseline: `${b.toFixed(1)} ms per plain push (rounds: ${list(base)})`,
      ratio: a / b,
      target: '<= 1.5',
    };
  },
};
