// The process's logger (pino, LOG_LEVEL). Requests get no child logger each: binding one per request cost more
// than the rest of a cached route, so a line carries the request id itself. Headers are never logged, so
// neither is an API key or the admin token.
import { pino, type DestinationStream, type Logger } from 'pino';

export type { DestinationStream, Logger };

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return destination ? pino({ level }, destination) : pino({ level });
}
