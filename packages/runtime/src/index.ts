// The runtime client: an app's strings over the air from Glossa's delivery origin (README "How publishing and
// delivery work"), in browsers and Node, with no runtime dependency and no server code. The browser build of this
// module is at most 6 KB minified and gzipped (test/e2e/consumers/runtime-client-browser.test.ts); Node apps add
// `folderStorage` from ./node.ts for a persistent cache.
//
//   const strings = createRuntimeClient({ deliveryUrl: meta.deliveryUrl, bundled: { en: appEnJson } });
//   await i18next.use(strings.backend()).init({ lng: navigator.language, fallbackLng: 'en' });
//   strings.on('version', () => rerender());                   // i18next's resources are reloaded already
//   const de = await strings.messages('de-AT');                // or without i18next: the resources of `de`
//
// - Manifest: `<deliveryUrl>/manifest`, revalidated with If-None-Match (a 304 costs nothing) at start, on
//   `refresh()` and every `refreshInterval`; bundles by their hashed, immutable URLs, relative to the manifest.
// - Cache (`storage`): the manifest with its ETag, and each bundle under its language and hash. A start with a
//   cached manifest serves from the cache at once and revalidates in the background (stale-while-revalidate); a
//   new version's bundles of the languages in use are fetched before it replaces the old one (the app never sees
//   half a version), then `version` fires. With no cache and no network, `bundled` strings are shown.
// - Languages: README's chain (locale.ts): `pt-BR` → `pt` → base, `zh-Hant-TW` → `zh-Hant` → base, case-
//   insensitively, with `map` first at every step.
// - Capture (`capture`, off unless `enabled: true`): see CaptureOptions.
import { matchLocale } from './locale.js';
import { defaultStorage, type RuntimeStorage } from './storage.js';

export { localeChain, matchLocale } from './locale.js';
export { memoryStorage, webStorage, type RuntimeStorage } from './storage.js';

/** i18next resources of one language: the bundle's JSON (nested objects of strings). */
export interface Resources {
  [key: string]: string | Resources;
}

/** The delivery manifest, as far as the client reads it (spec: `Manifest`). */
export interface Manifest {
  projectId: string;
  versionId: string;
  /** Canonical BCP 47, as every code in the manifest (`pt-BR`, `zh-Hant`). */
  baseLang: string;
  languages: Array<{ code: string; isBase: boolean }>;
  /** The i18next bundle of each language; `url` is relative to the manifest's own URL. */
  bundles: Record<string, { url: string; hash: string; size: number }>;
  /** Each named namespace's bundles, as `bundles` (the default namespace's); absent when the project has none. */
  namespaces?: Record<string, { bundles: Manifest['bundles'] }>;
}

/**
 * Missing-string capture: strings the app shows untranslated are sent to `POST {apiUrl}/projects/{projectId}/capture`
 * (`captureUnits`: at most 200 units a request), where each unknown one becomes a captured key for review.
 *
 * - Off unless `enabled` is `true`. Keep it and the key out of production builds: set both from a development-only
 *   variable your bundler replaces at build time, e.g. `capture: import.meta.env.DEV ? { enabled: true, apiUrl,
 *   apiKey: import.meta.env.VITE_GLOSSA_CAPTURE_KEY } : undefined` (or `process.env.NODE_ENV !== 'production'`):
 *   the production build then holds neither the key nor a capture call.
 * - Use a key with the `capture` scope alone: it can do nothing else if it leaks.
 * - Nothing is sent for a language before its bundle has loaded from the delivery origin or the cache (before that,
 *   every string looks missing), nor while only `bundled` strings are shown. Each source (with its ctx) is sent
 *   once per client, batched: the first batch `delay` ms after the first report, then at most one request per
 *   `interval` ms, longer after a failure (backing off up to 5 minutes). A network failure, a 429 or a 5xx keeps
 *   the batch for the next try; 401 or 403 turns capture off. Nothing ever throws into the app.
 * - `POST /capture` answers browsers on any origin (spec `x-cors`; it takes the bearer key, never a cookie), so a
 *   page reports from its own origin.
 */
export interface CaptureOptions {
  enabled: boolean;
  /** The main API's base URL, `{base_url}` (`https://api.example.com/v1`). */
  apiUrl: string;
  /** A key with the `capture` scope alone. */
  apiKey: string;
  /** Default: the manifest's. */
  projectId?: string;
  /** Milliseconds from the first report to the first request (default 2,000). */
  delay?: number;
  /** Milliseconds between requests at least (default 10,000; the project's rate limit is 120 a minute). */
  interval?: number;
}

export interface RuntimeOptions {
  /**
   * The project on the delivery origin: `GET /meta`'s `deliveryUrl` (`https://cdn.example.com/v1/projects/<id>`,
   * or `https://<deliveryHost>/v1` on a custom domain). The manifest is `<deliveryUrl>/manifest`.
   */
  deliveryUrl: string;
  /** The persistent cache. Default: localStorage where there is one, else memory (Node: pass `folderStorage`). */
  storage?: RuntimeStorage;
  /** Strings shipped with the app, by language (base language first): shown offline on a first start. */
  bundled?: Record<string, Resources>;
  /** App locale → project language, consulted first at every step of the chain (`{'zh-TW': 'zh-Hant'}`). */
  map?: Record<string, string>;
  /** Milliseconds between background revalidations of the manifest (default 300,000; 0: only on `refresh()`). */
  refreshInterval?: number;
  /**
   * A pinned version: the manifest of the version the app must show, saved with the app at build time
   * (`curl <deliveryUrl>/manifest > strings-manifest.json`). The client then never reads the current manifest and
   * never changes version at run time; it fetches that version's immutable bundles once and caches them.
   */
  pin?: Manifest;
  /** Milliseconds a request may take (default 10,000). */
  timeout?: number;
  capture?: CaptureOptions;
  /** Default: the platform's `fetch`. */
  fetch?: typeof fetch;
}

export interface RuntimeClient {
  /** The version whose strings are shown; undefined before any manifest is known. */
  readonly versionId: string | undefined;
  /** The project language `locale` is shown in (undefined before any manifest or bundled strings are known). */
  resolve(locale: string): string | undefined;
  /**
   * The resources `locale` is shown with: its language's bundle (cache, else network), else the `bundled`
   * strings, else `{}`. Never rejects. With `namespace`: that namespace's bundle when the manifest names it
   * (`namespaces`), else the default bundle's top-level object of that name (`translation`: the whole bundle).
   */
  messages(locale: string, namespace?: string): Promise<Resources>;
  /** Revalidates the manifest now; true when a new version was taken (its `version` event has fired). */
  refresh(): Promise<boolean>;
  /** Calls `listener` with each new version's id once its bundles are in; returns the unsubscribe. */
  on(event: 'version', listener: (versionId: string) => void): () => void;
  /**
   * Reports a string shown untranslated in `locale` (default: any language loaded); see CaptureOptions. `key`: the
   * key the app asked for, when `source` is its default text (the captured key is then that key).
   */
  report: (source: string, ctx?: string, locale?: string, key?: string) => void;
  /** i18next's `missingKeyHandler` (with `saveMissing: true`) for apps that load strings by another backend. */
  missingKeyHandler: (
    languages: readonly string[] | string,
    namespace: string,
    key: string,
    fallbackValue?: string,
  ) => void;
  /** Sends every queued capture batch now (before an app exits). */
  flush(): Promise<void>;
  /** A new i18next backend over this client: `i18next.use(client.backend())`. */
  backend(options?: { reloadOnVersion?: boolean }): GlossaBackend;
  /** Stops the interval and capture timers. */
  close(): void;
}

const noop = () => {};
/** A namespace the manifest names, read as data (`constructor` is a namespace name, not a way into the prototype). */
const namespaceOf = (m: Manifest | undefined, ns: string) =>
  m?.namespaces && Object.prototype.hasOwnProperty.call(m.namespaces, ns) ? m.namespaces[ns] : undefined;
/** What the client reads of a manifest is there (a damaged cache entry or answer is none). */
const isManifest = (m: Manifest | undefined): m is Manifest =>
  !!m && typeof m.versionId === 'string' && Array.isArray(m.languages) && !!m.bundles;

export function createRuntimeClient(options: RuntimeOptions): RuntimeClient {
  const { bundled = {}, map, pin, timeout = 10_000, capture } = options;
  const base = options.deliveryUrl.replace(/\/+$/, '');
  const manifestUrl = `${base}/manifest`;
  const storage = options.storage ?? defaultStorage();
  const request = options.fetch ?? ((url, init) => fetch(url, init));
  const prefix = `glossa:${base}:`;
  const manifestKey = `${prefix}manifest`;
  const bundleKey = (code: string, hash: string, ns = '') => `${prefix}${ns && `${ns}/`}${code}:${hash.slice(0, 16)}`;
  const listeners = new Set<(versionId: string) => void>();
  /** The locales asked for: a new version's bundles of these are fetched before it is taken. */
  const wanted = new Set<string>();
  /** The manifest's namespaces asked for (`''`: the default one), likewise. */
  const wantedNs = new Set<string>(['']);
  /** A namespace's bundles in a manifest (`''`: the default one's), if it has them. */
  const bundlesOf = (m: Manifest, ns: string) => (ns ? namespaceOf(m, ns)?.bundles : m.bundles);
  /** Bundles read or being read, by storage key. */
  const parsed = new Map<string, Promise<Resources>>();
  /** Languages whose bundle from the origin (or its cache) has been served: capture may report for them. */
  const loaded = new Set<string>();
  let manifest = pin;
  let etag: string | null | undefined;
  let started: Promise<void> | undefined;
  let refreshing: Promise<boolean> | undefined;
  /** A cached manifest not yet revalidated. */
  let stale = false;
  let closed = false;
  let interval: ReturnType<typeof setInterval> | undefined;

  const read = async (key: string) => {
    try {
      return (await storage.get(key)) ?? undefined;
    } catch {
      return undefined;
    }
  };
  const quietly = async (op: () => unknown) => {
    try {
      await op();
    } catch {
      // A cache that refuses a write or a delete: the client goes on from memory.
    }
  };
  const get = (url: string, headers: Record<string, string> = {}, cache?: RequestCache) =>
    request(url, { headers, cache, signal: AbortSignal.timeout?.(timeout) });
  const codesOf = (m: Manifest) => m.languages.map((l) => l.code);
  const resolveIn = (m: Manifest | undefined, locale: string) =>
    m ? matchLocale(locale, codesOf(m), m.baseLang, map) : undefined;

  function bundle(m: Manifest, code: string, ns = ''): Promise<Resources> {
    const obj = bundlesOf(m, ns)![code];
    const key = bundleKey(code, obj.hash, ns);
    let p = parsed.get(key);
    if (!p) {
      p = (async () => {
        const cached = await read(key);
        if (cached) {
          try {
            return JSON.parse(cached) as Resources;
          } catch {
            // A damaged entry: fetched again.
          }
        }
        const res = await get(new URL(obj.url, manifestUrl).href);
        if (!res.ok) throw new Error(`bundle ${code}: HTTP ${res.status}`);
        const text = await res.text();
        const data = JSON.parse(text) as Resources;
        await quietly(() => storage.set(key, text));
        return data;
      })();
      parsed.set(key, p);
      p.catch(() => parsed.delete(key));
    }
    return p;
  }

  function start(): Promise<void> {
    return (started ??= (async () => {
      if (pin) return;
      const cached = await read(manifestKey);
      // (A refresh() made before the first read may have taken a newer manifest already.)
      if (cached && !manifest) {
        try {
          const rec = JSON.parse(cached) as { m: Manifest; e: string | null };
          if (isManifest(rec.m)) ({ m: manifest, e: etag } = rec);
        } catch {
          // A damaged entry: as if none.
        }
      }
      // Stale-while-revalidate: with a cached manifest the app goes on at once, and the manifest is revalidated
      // once the first strings are served (messages()), so the request costs the first screen nothing.
      if (manifest) stale = true;
      else await refresh();
      const every = options.refreshInterval ?? 300_000;
      if (every > 0) {
        interval = setInterval(() => void refresh(), every);
        (interval as { unref?: () => void }).unref?.();
      }
    })());
  }

  function refresh(): Promise<boolean> {
    if (pin || closed) return Promise.resolve(false);
    stale = false;
    return (refreshing ??= (async () => {
      try {
        const res = await get(manifestUrl, etag ? { 'If-None-Match': etag } : {}, 'no-store');
        // 304: unchanged. 404: nothing published yet. Anything else: try again later. The body is read to its end
        // all the same, so the connection is free again (an unread one stays open, and a browser aborts it later).
        if (res.status !== 200) {
          await res.text();
          return false;
        }
        const m = (await res.json()) as Manifest;
        const e = res.headers.get('etag');
        const prev = manifest;
        if (!isManifest(m)) return false;
        // The new version's bundles of the languages in use first, so that the switch is whole: if one cannot be
        // had, the version in use stays, and the next refresh tries again.
        if (prev?.versionId !== m.versionId)
          await Promise.all(
            [...wanted].flatMap((locale) =>
              [...wantedNs].map(async (ns) => {
                const code = resolveIn(m, locale);
                if (code && bundlesOf(m, ns)?.[code]) await bundle(m, code, ns);
              }),
            ),
          );
        manifest = m;
        etag = e;
        await quietly(() => storage.set(manifestKey, JSON.stringify({ m, e })));
        if (prev?.versionId === m.versionId) return false;
        for (const ns of prev ? ['', ...Object.keys(prev.namespaces ?? {})] : [])
          for (const code in bundlesOf(prev!, ns)) {
            const hash = bundlesOf(prev!, ns)![code].hash;
            if (bundlesOf(m, ns)?.[code]?.hash !== hash) {
              parsed.delete(bundleKey(code, hash, ns));
              await quietly(() => storage.delete(bundleKey(code, hash, ns)));
            }
          }
        if (prev || wanted.size)
          for (const f of listeners) {
            try {
              f(m.versionId);
            } catch {
              // A listener's error is the app's; the other listeners still hear of the version.
            }
          }
        return true;
      } catch {
        // Offline, a timeout, a damaged answer: the strings in use stay.
        return false;
      } finally {
        refreshing = undefined;
      }
    })());
  }

  async function messages(locale: string, namespace?: string): Promise<Resources> {
    try {
      await start();
      // A namespace the manifest names has bundles of its own; any other is a part of the default bundle.
      const ns = namespace && namespaceOf(manifest, namespace) ? namespace : '';
      const r = await serve(locale, ns);
      if (ns || namespace === undefined || namespace === 'translation') return r;
      const sub = r[namespace];
      return typeof sub === 'object' ? sub : {};
    } finally {
      if (stale) {
        stale = false;
        setTimeout(() => void refresh(), 0);
      }
    }
  }

  async function serve(locale: string, ns: string): Promise<Resources> {
    wanted.add(locale);
    wantedNs.add(ns);
    const m = manifest;
    const code = resolveIn(m, locale);
    if (m && code && bundlesOf(m, ns)?.[code]) {
      try {
        const r = await bundle(m, code, ns);
        if (m === manifest) loaded.add(code);
        return r;
      } catch {
        // Offline with this bundle never cached: the bundled strings.
      }
    }
    const langs = Object.keys(bundled);
    const own = matchLocale(locale, langs, langs[0], map);
    // Shipped strings are the default namespace's (a named one's `bundled` entry is its top-level object).
    const shipped = own ? bundled[own] : {};
    const part = ns && Object.prototype.hasOwnProperty.call(shipped, ns) ? shipped[ns] : undefined;
    return ns ? (typeof part === 'object' ? part : {}) : shipped;
  }

  // --- capture ---
  const on = capture?.enabled === true && !!capture.apiKey;
  const every = capture?.interval ?? 10_000;
  const seen = new Set<string>();
  const queue: Array<{ source: string; ctx?: string; key?: string; namespace?: string }> = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last = 0;
  let backoff = 0;
  let off = !on;

  function schedule(wait: number) {
    if (timer || off || !queue.length) return;
    timer = setTimeout(() => void send(true), Math.max(wait, last + every + backoff - Date.now()));
    (timer as { unref?: () => void }).unref?.();
  }

  async function send(again: boolean) {
    timer = undefined;
    const projectId = capture?.projectId ?? manifest?.projectId;
    if (!projectId) return;
    const units = queue.splice(0, 200);
    if (!units.length) return;
    last = Date.now();
    let status = 0;
    try {
      const res = await request(`${capture!.apiUrl.replace(/\/+$/, '')}/projects/${projectId}/capture`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${capture!.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ units }),
        signal: AbortSignal.timeout?.(timeout),
      });
      status = res.status;
    } catch {
      // Offline: kept for the next try.
    }
    if (!status || status === 429 || status >= 500) {
      queue.unshift(...units);
      backoff = Math.min(backoff * 2 || every, 300_000);
    } else {
      backoff = 0;
      if (status === 401 || status === 403) off = true;
    }
    if (again) schedule(0);
  }

  function report(
    source: string,
    ctx: string | undefined,
    key: string | undefined,
    namespace: string | undefined,
    ...locales: string[]
  ) {
    if (off || typeof source !== 'string' || !source || source.length > 5000 || (ctx && ctx.length > 2000)) return;
    if (!(locales.length ? locales.some((l) => loaded.has(resolveIn(manifest, l)!)) : loaded.size)) return;
    // The key the app asked for, unless it is the text itself (i18next's natural-language keys): the captured key
    // is then named by it (spec: CaptureRequest `key`), so the app finds it once reviewed and published.
    const named = typeof key === 'string' && key !== source && key.length <= 255 ? key : undefined;
    // A namespace the manifest names is the project's namespace of that name (spec: CaptureRequest `namespace`);
    // any other (i18next's `translation`) is the default one, as the client loads it.
    const ns = namespace !== undefined && namespaceOf(manifest, namespace) ? namespace : undefined;
    const id = `${ctx ?? ''}\u0000${source}\u0000${named ?? ''}\u0000${ns ?? ''}`;
    if (seen.has(id) || seen.size >= 5000) return;
    seen.add(id);
    queue.push({ source, ...(ctx ? { ctx } : {}), ...(named ? { key: named } : {}), ...(ns ? { namespace: ns } : {}) });
    schedule(capture?.delay ?? 2000);
  }

  const client: RuntimeClient = {
    get versionId() {
      return manifest?.versionId;
    },
    resolve: (locale) => {
      const langs = Object.keys(bundled);
      return resolveIn(manifest, locale) ?? matchLocale(locale, langs, langs[0], map);
    },
    messages,
    refresh,
    on(_event, listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    report: (source, ctx, locale, key) => report(source, ctx, key, undefined, ...(locale ? [locale] : [])),
    missingKeyHandler: (languages, namespace, key, fallbackValue) =>
      report(
        fallbackValue || key,
        undefined,
        key,
        namespace,
        ...(typeof languages === 'string' ? [languages] : languages),
      ),
    async flush() {
      clearTimeout(timer);
      for (let n = Math.ceil(queue.length / 200); n > 0 && !off; n--) await send(false);
      schedule(0);
    },
    backend: (o) => new GlossaBackend({ ...o, client }),
    close() {
      closed = true;
      clearInterval(interval);
      clearTimeout(timer);
      off = true;
    },
  };
  return client;
}

/** i18next's services, as far as the backend uses them. */
interface I18nextServices {
  backendConnector: { reload(languages: string[], namespaces: string[], callback: (err?: unknown) => void): void };
  resourceStore: { data: Record<string, Record<string, unknown>> };
}

/**
 * The backend's options: i18next's `backend` init option when i18next constructs the backend itself
 * (`i18next.use(GlossaBackend).init({ backend: { deliveryUrl, … } })`), or `client.backend(options)`.
 */
export type GlossaBackendOptions = Partial<RuntimeOptions> & {
  /** The client to read through; default: a new one from the other options (`deliveryUrl` then required). */
  client?: RuntimeClient;
  /** Reload i18next's loaded languages when a new version arrives (default true). */
  reloadOnVersion?: boolean;
};

/**
 * An i18next backend (module type `backend`) reading Glossa's bundles through a RuntimeClient. i18next and
 * react-i18next load it unchanged:
 *
 *   i18next.use(client.backend()).init({ lng, fallbackLng: 'en', saveMissing: true })
 *   i18next.use(GlossaBackend).init({ lng, fallbackLng: 'en', backend: { deliveryUrl, refreshInterval: 60_000 } })
 *
 * - `lng` may be any locale: it is shown in the project language the client's chain maps it to (`pt-BR` reads
 *   `pt` when the project has no `pt-BR`). Set `fallbackLng` to the project's base language.
 * - Namespaces: a namespace the manifest names (`namespaces`: a project that syncs `app.json` and `common.json`
 *   into namespaces `app` and `common`) loads its own bundle; otherwise i18next's default `translation` is the
 *   whole bundle and any other namespace is the bundle's top-level object of that name (`common.ok` is
 *   `t('ok', { ns: 'common' })`).
 * - A new version reloads every loaded language (`reloadOnVersion`) and i18next fires `loaded`; react-i18next
 *   re-renders on it with `bindI18nStore: 'added'` (or listen to the client's `version` event).
 * - `saveMissing: true` sends missing strings to capture through `create` when the client's `capture` is enabled
 *   (the default value if the call gave one, else the key, as the source, and the key the app asked for); otherwise
 *   it does nothing.
 */
export class GlossaBackend {
  static readonly type = 'backend';
  static readonly callbackApi = true;
  readonly type = 'backend';
  readonly callbackApi = true;
  client?: RuntimeClient;

  constructor(private options: GlossaBackendOptions = {}) {}

  init(services: I18nextServices, backendOptions?: GlossaBackendOptions): void {
    const o = { ...backendOptions, ...this.options };
    const client = (this.client = o.client ?? createRuntimeClient(o as RuntimeOptions));
    if (o.reloadOnVersion !== false)
      client.on('version', () => {
        const data = services.resourceStore.data;
        const langs = Object.keys(data);
        const namespaces = [...new Set(langs.flatMap((l) => Object.keys(data[l])))];
        services.backendConnector.reload(langs, namespaces, noop);
      });
  }

  read(language: string, namespace: string, callback: (err: unknown, data: Resources | false) => void): void {
    this.client!.messages(language, namespace).then((r) => callback(null, r), noop);
  }

  create(languages: readonly string[], namespace: string, key: string, fallbackValue?: string): void {
    this.client!.missingKeyHandler(languages, namespace, key, fallbackValue);
  }
}
