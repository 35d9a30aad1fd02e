// Instants the spec declares `format: date-time`. The validator (ajv-formats, RFC 3339) accepts a leap second
// (`23:59:60`), which Date.parse cannot read (NaN), and NaN compared with anything is false: a guard built on it
// silently passes. A leap second is read as POSIX time reads it, the first instant of the next second; anything
// else Date cannot place (out of its ±8.64e15 ms range) is refused.
import { invalidArgument } from './errors.js';

export function parseInstant(text: string, field: string): number {
  let ms = Date.parse(text);
  if (Number.isNaN(ms)) {
    const leap = /^(.*[Tt ]\d\d:\d\d:)60((?:\.\d+)?(?:[Zz]|[+-]\d\d:\d\d))$/.exec(text);
    if (leap) ms = Date.parse(`${leap[1]}59${leap[2]}`) + 1000;
  }
  if (!Number.isFinite(ms)) throw invalidArgument(`${field} is not an instant the service can represent.`);
  return ms;
}
