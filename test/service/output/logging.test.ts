// Logging: one line per completed request at LOG_LEVEL=debug, with its request id, and never a header, so never
// an API key or the admin token (secrets stay out of logs).
import { Writable } from 'node:stream';
import test from 'ava';
import { ADMIN_TOKEN, createTestProject, startTestService } from '../../helpers/service.js';

/** A pino line as these tests read it (`request completed` lines carry the request's fields). */
interface LogLine {
  msg?: string;
  path?: string;
  method?: string;
  status?: number;
  reqId?: unknown;
  ms?: unknown;
  err?: { message: string };
}

test('debug logs a line per request with its id, status and timing, and no key or admin token', async (t) => {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as LogLine);
      done();
    },
  });
  const svc = await startTestService({ LOG_LEVEL: 'debug' }, undefined, { logDestination: sink });
  try {
    const p = await createTestProject(svc, { scopes: ['read'] });
    const ok = await fetch(`${svc.baseUrl}/projects/${p.projectId}/credential`, {
      headers: { authorization: `Bearer ${p.apiKey}` },
    });
    t.is(ok.status, 200);
    const refused = await fetch(`${svc.baseUrl}/projects/${p.projectId}/credential`, {
      headers: { authorization: `Bearer ${p.apiKey}x` },
    });
    t.is(refused.status, 401);
    const requests = lines.filter(
      (l) => l.msg === 'request completed' && l.path === `/v1/projects/${p.projectId}/credential`,
    );
    t.deepEqual(
      requests.map((l) => l.status),
      [200, 401],
    );
    for (const l of requests) {
      t.is(l.method, 'get');
      t.is(typeof l.reqId, 'string');
      t.is(typeof l.ms, 'number');
    }
    t.true(
      lines.some((l) => l.msg === 'request completed' && l.path!.startsWith('/internal/v1/')),
      'internal calls are logged too',
    );
    const all = JSON.stringify(lines);
    t.false(all.includes(p.apiKey.slice(4)), 'no API key in the log');
    t.false(all.includes(ADMIN_TOKEN), 'no admin token in the log');
  } finally {
    await svc.stop();
  }
});

test('at the default level a request writes nothing', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const svc = await startTestService({ LOG_LEVEL: 'info' }, undefined, { logDestination: sink });
  try {
    const p = await createTestProject(svc, { scopes: ['read'] });
    t.is(
      (
        await fetch(`${svc.baseUrl}/projects/${p.projectId}/credential`, {
          headers: { authorization: `Bearer ${p.apiKey}` },
        })
      ).status,
      200,
    );
    t.deepEqual(lines, []);
  } finally {
    await svc.stop();
  }
});

test('an error is logged without the statement or its values, and its line stays short', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const svc = await startTestService({ LOG_LEVEL: 'info' }, undefined, { logDestination: sink });
  try {
    const { db, log } = svc.service.app;
    const secret = `SECRET-USER-TEXT-${'x'.repeat(200_000)}`;
    // A real failed statement: a key whose project does not exist (the foreign key refuses it on both databases).
    const err = await db('keys')
      .insert({
        project_id: 'p_missing',
        name: 'k',
        token: 't',
        source: secret,
        enabled: true,
        source_verified: false,
        captured: false,
        source_updated_at: 0,
        created_at: 0,
        updated_at: 0,
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    t.truthy(err, 'the insert failed');
    t.true(String((err as Error).message).includes('SECRET-USER-TEXT'), 'the driver message carries the values');
    log.error({ err }, 'internal error');
    const line = lines.find((l) => l.includes('internal error'))!;
    t.truthy(line);
    t.false(line.includes('SECRET-USER-TEXT'), 'no user data in the log');
    t.true(line.length < 4000, `a short line (${line.length} bytes)`);
    t.regex((JSON.parse(line) as LogLine).err!.message, /foreign key|FOREIGN KEY/i);
  } finally {
    await svc.stop();
  }
});
