// Domain refusals carry no HTTP status (docs/decisions/0023-domain-refusals.md): server/domain throws `Refusal`,
// never `ApiError`, and the HTTP layer answers a refusal with the status the spec documents for its code
// (generated/errors.ts, from the spec's error examples; spec.test.ts holds it fresh).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { decode } from '../../server/domain/catalog/file.js';
import { holdRefusal } from '../../server/domain/billing/credits.js';
import { tooLarge } from '../../server/domain/content/rules.js';
import { answerOf } from '../../server/http/refusals.js';
import { ApiError, Refusal, conflict, invalidArgument, notFound } from '../../server/infra/errors.js';

const root = path.resolve(import.meta.dirname, '../..');

test('server/domain names no ApiError: its refusals are Refusals, which carry no status', (t) => {
  const dir = path.join(root, 'server/domain');
  const sources = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  t.true(sources.length > 50, `scanned ${sources.length} files`);
  const found: string[] = [];
  let refusals = 0;
  for (const file of sources) {
    const text = readFileSync(path.join(dir, file), 'utf8');
    if (/\bnew Refusal\(/.test(text)) refusals++;
    text.split('\n').forEach((line, i) => {
      if (/\bApiError\b/.test(line)) found.push(`server/domain/${file}:${i + 1}: ${line.trim()}`);
    });
  }
  t.true(refusals >= 8, `${refusals} domain files construct a Refusal`);
  t.deepEqual(found, [], 'throw or return a Refusal (server/infra/errors.ts) instead');
});

test('a refusal is answered with the status, body and headers its code has in the spec', (t) => {
  const caught = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      if (err instanceof Refusal) return err;
    }
    throw new Error('no Refusal thrown');
  };
  const base64 = answerOf(caught(() => decode('not base64!')));
  t.is(base64.status, 400);
  t.deepEqual(base64.body(), { error: 'invalid_base64', message: 'contentBase64 is not valid base64.' });
  t.deepEqual(base64.headers, {});
  const big = answerOf(caught(() => decode('A'.repeat(4 * 1024 * 1024))));
  t.is(big.status, 413);
  t.is(big.code, 'payload_too_large');

  const credits = holdRefusal({ balance: 3, held: 0, available: 3, spendingCap: null, spent: 0, keyLimit: null }, 5);
  const broke = answerOf(credits!);
  t.is(broke.status, 402);
  t.deepEqual(broke.body(), {
    error: 'insufficient_credits',
    message: 'The estimate (5 mc) exceeds the available balance (3 mc).',
    availableCredits: 3,
  });
  t.is(answerOf(tooLarge('The text')).status, 413);
  t.is(answerOf(invalidArgument('x')).status, 400);
  t.is(answerOf(notFound()).status, 404);
  t.is(answerOf(conflict('edit_conflict', 'x')).status, 409);
  t.is(answerOf(new Refusal('unavailable', 'x')).status, 503);

  // A refusal that says when to try again is answered with Retry-After.
  const quota = answerOf(new Refusal('run_quota_exceeded', 'A day of runs.', {}, 3600));
  t.is(quota.status, 429);
  t.deepEqual(quota.headers, { 'Retry-After': '3600' });
  t.deepEqual(quota.body(), { error: 'run_quota_exceeded', message: 'A day of runs.' });

  // An ApiError (server/http, admission, request records, the rate limit) is answered as it is.
  const own = new ApiError(401, 'unauthorized', 'x', {}, { 'WWW-Authenticate': 'Bearer' });
  t.is(answerOf(own), own);
});
