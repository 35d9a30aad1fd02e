// The process's logger (pino, LOG_LEVEL). Requests get no child logger each: binding one per request cost more
// than the rest of a cached route, so a line carries the request id itself. Headers are never logged, so
// neither is an API key or the admin token, and an error is logged without the statement and values behind it.
import { pino, type DestinationStream, type Logger } from 'pino';

export type { DestinationStream, Logger };

const MAX_MESSAGE = 300;
const MAX_FRAMES = 8;

/**
 * Knex prefixes a failed statement's message with the statement, its bound values written in (`insert into ...
 * values ('<user text>') - Data too long ...`), and mysql2 adds them as `sql`: a 500 once wrote a 212 KB line of
 * user data. Only the driver's own message, capped, and the stack's frames are kept.
 */
function safeError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err).slice(0, MAX_MESSAGE) };
  let message = err.message;
  const cut = message.lastIndexOf(' - ');
  if (cut > 0 && /^\s*(insert|select|update|delete|with|create|alter|replace|pragma|begin|commit)\b/i.test(message))
    message = message.slice(cut + 3);
  if (message.length > MAX_MESSAGE) message = `${message.slice(0, MAX_MESSAGE)}…`;
  const e = err as Error & { code?: unknown; errno?: unknown; statusCode?: unknown };
  const frames = (err.stack ?? '')
    .split('\n')
    .filter((l) => /^\s+at /.test(l))
    .slice(0, MAX_FRAMES);
  return {
    type: err.name,
    message,
    code: e.code,
    errno: e.errno,
    stack: [`${err.name}: ${message}`, ...frames].join('\n'),
  };
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, serializers: { err: safeError } };
  return destination ? pino(options, destination) : pino(options);
}
