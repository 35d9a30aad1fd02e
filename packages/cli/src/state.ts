// What one run leaves for the next, beside the config file in .glossa/state.json: the tracking tokens of the last
// push (for `wait`), and the version and `snapshotAt` of the last pull (sent as `pulledAt` by the next push).
// Commit it, or cache it between CI runs, for `pulledAt` to guard the base language across runs.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { insideRoot } from './files.js';

interface State {
  trackingTokens?: string[];
  pulledVersion?: string;
  snapshotAt?: string;
}

const file = (dir: string) => insideRoot(dir, path.join('.glossa', 'state.json'));

export function readState(dir: string): State {
  try {
    return JSON.parse(readFileSync(file(dir), 'utf8')) as State;
  } catch {
    return {};
  }
}

export function writeState(dir: string, patch: State): void {
  const next = { ...readState(dir), ...patch };
  mkdirSync(path.dirname(file(dir)), { recursive: true });
  const tmp = `${file(dir)}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`);
  renameSync(tmp, file(dir));
}
