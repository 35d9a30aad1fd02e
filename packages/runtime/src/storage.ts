// The runtime client's persistent cache sits behind this tiny interface, so a browser keeps bundles in
// localStorage (the default where there is one), a Node app in a folder (`folderStorage` from `./node.ts`), and an
// app with other needs (IndexedDB for bundles over localStorage's few megabytes, React Native's AsyncStorage) in
// whatever it passes. Values are strings (a bundle's JSON text as the delivery origin sent it); every method may
// answer at once or with a promise, and may fail: the client treats a failed read as a miss and a failed write as
// nothing stored.

export interface RuntimeStorage {
  get(key: string): string | null | undefined | Promise<string | null | undefined>;
  set(key: string, value: string): unknown;
  delete(key: string): unknown;
}

/** Keeps values for the life of the client only (the default where the platform has no localStorage). */
export function memoryStorage(): RuntimeStorage {
  const m = new Map<string, string>();
  return { get: (k) => m.get(k), set: (k, v) => m.set(k, v), delete: (k) => m.delete(k) };
}

/** The subset of the Web Storage API the client uses. */
interface WebStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * A Web Storage area (`localStorage`, `sessionStorage`) as a RuntimeStorage. Its errors (a full quota, a storage
 * the browser refuses) reach the client, which stores nothing then and goes on.
 */
export function webStorage(area: WebStorage): RuntimeStorage {
  return {
    get: (k) => area.getItem(k),
    set: (k, v) => area.setItem(k, v),
    delete: (k) => area.removeItem(k),
  };
}

/** localStorage when this platform has a usable one, else memory. */
export function defaultStorage(): RuntimeStorage {
  try {
    const area = (globalThis as { localStorage?: WebStorage }).localStorage;
    if (area) return webStorage(area);
  } catch {
    // Access itself throws where storage is disabled.
  }
  return memoryStorage();
}
