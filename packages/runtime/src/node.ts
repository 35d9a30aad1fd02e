// The runtime client's persistent cache for Node apps: one file per key in a folder. Its own entry point, so the
// browser build never sees `node:fs`:
//
//   import { createRuntimeClient } from '@glossa/runtime';
//   import { folderStorage } from '@glossa/runtime/node';
//   const strings = createRuntimeClient({ deliveryUrl, storage: folderStorage('.cache/glossa') });
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RuntimeStorage } from './storage.js';

/**
 * Keeps each key in a file of `dir` (made on first write). Writes go to a temporary file renamed into place, so a
 * process killed mid-write leaves the previous value or none, never half a bundle. File names are the keys,
 * percent-encoded (a key too long for a file name is hashed).
 */
export function folderStorage(dir: string): RuntimeStorage {
  const file = (key: string) => {
    const name = encodeURIComponent(key);
    return path.join(dir, name.length > 200 ? createHash('sha256').update(key).digest('hex') : name);
  };
  return {
    get: (key) => readFile(file(key), 'utf8').catch(() => null),
    async set(key, value) {
      await mkdir(dir, { recursive: true });
      const tmp = `${file(key)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      try {
        await writeFile(tmp, value);
        await rename(tmp, file(key));
      } finally {
        await rm(tmp, { force: true });
      }
    },
    delete: (key) => rm(file(key), { force: true }),
  };
}
