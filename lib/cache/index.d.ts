/// <reference types="node" />
import type { IncomingMessage, ServerResponse, IncomingHttpHeaders } from 'http';

/** What a request looks like to the cache (node's IncomingMessage, or Koa's ctx.req). */
export interface CacheRequest {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
}

export interface ResponseCacheOptions {
  /** The `name` label of this cache's metrics in ssr-native/metrics. Default 'response-cache'. */
  name?: string;
  /**
   * Total bytes of stored entries (bodies, keys, headers); least recently used evicted first.
   * Default 64 MiB. With `store: sharedMemoryStore(...)` the segment's size is the budget: give
   * it there (here it is a TypeError); with Redis it bounds each process's memory layer.
   */
  maxBytes?: number;
  /** Most entries kept, whatever their size (a flood of distinct URLs cannot grow past it). Default 10,000. As maxBytes with sharedMemoryStore. */
  maxEntries?: number;
  /** Bodies larger than this pass through and are not stored. Default 1 MiB. */
  maxEntrySize?: number;
  /**
   * Query string in the key: 'keep' (default), 'sort' the parameters, or 'ignore' it (then a
   * render sees the URL without its query; the URL as received is in `req.unstrippedUrl`).
   */
  query?: 'keep' | 'sort' | 'ignore';
  /**
   * Query parameters left out of the key (utm_source, fbclid, ...). A render the cache may store
   * never sees them: they are taken out of req.url, req.originalUrl, Express 4's req.query and
   * Koa's ctx.url / ctx.originalUrl; the URL as received is in `req.unstrippedUrl`.
   */
  ignoreParams?: string[];
  /**
   * The Host header is part of the key (default true). `false` shares one entry between every
   * Host: it needs `allowedHosts` (a TypeError otherwise), the names of the one site.
   */
  host?: boolean;
  /**
   * The Host names the cache serves and stores for, as Angular's `security.allowedHosts`:
   * 'shop.example', 'shop.example:8443' (that port only), '*.shop.example' (its subdomains),
   * '*' (any). An entry without a port allows any port while the Host is keyed; with
   * `host: false` no entry matches a Host whose port it does not spell ('localhost:4200' for
   * development), whatever port the server listens on. A request naming another (in Host, or in a keyed X-Forwarded-Host / X-Host /
   * Forwarded host=) passes; a value that is not `host[:port]` always passes. Default: any
   * well-formed Host, each its own entries (as sent, no case folding).
   */
  allowedHosts?: string[];
  /**
   * Requests with forwarding headers (Forwarded, X-Forwarded-Host, -Proto, -Scheme, -Port,
   * -Prefix, X-Host): 'auto' (default) keys them when the framework honours them (Express:
   * `trust proxy` covers the peer; Koa: `app.proxy`), else the request passes (neither served
   * from nor stored in the cache; plain node:http trusts nothing); 'key' always keys them (a
   * proxy in front sets or strips them on every request); 'pass' always passes.
   * Requests with rewrite headers (X-Original-URL, X-Rewrite-URL, X-HTTP-Method-Override) always pass.
   */
  forwarded?: 'auto' | 'key' | 'pass';
  /**
   * What else a page depends on, as a part of the key: a string (added), undefined (nothing)
   * or false (the request passes). A background refresh carries only the key's headers (Host,
   * keyed forwarding headers, Vary'd ones, `keyHeaders`): one whose key() differs from the
   * stale entry's is not stored.
   */
  key?: (req: CacheRequest) => string | false | null | undefined;
  /** Request headers whose values are part of every key (as if every response named them in Vary); carried into refreshes. */
  keyHeaders?: string[];
  /** Requests with a Cookie header pass unless true, or unless this function says so for the request. Default false. */
  cookies?: boolean | ((req: CacheRequest) => boolean);
  /**
   * Requests with an Authorization header pass (the origin answers; nothing is looked up,
   * filled or replaced) unless true, or unless this function says so for the request; then
   * they are rendered and stored only if the response says `public`, `s-maxage` or
   * `must-revalidate` (RFC 9111 3.5). Default false.
   */
  authorization?: boolean | ((req: CacheRequest) => boolean);
  /** Requests this returns true for pass the cache entirely. */
  bypass?: (req: CacheRequest) => boolean;
  /** Statuses stored when the response has a lifetime. Default 200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501. */
  statuses?: number[];
  /** Seconds of freshness for a storable response without s-maxage, max-age or Expires. Default 0: not stored. */
  defaultTtl?: number;
  /** Milliseconds a request waits for another one rendering the same key before rendering itself. Default 5000. */
  lockTimeout?: number;
  /**
   * Seconds a variant (URL, Host, Vary'd values) whose 2xx answer was unstorable by its headers
   * (private, no-store, no-cache, Set-Cookie, Vary: *, no lifetime, too large) passes straight
   * through (0: off). Never started by a status (206, 304, 412, a redirect) or by a request with
   * Range, preconditions or credentials. Default 120.
   */
  hitForPass?: number;
  /** A client's Cache-Control: no-cache / Pragma: no-cache makes a render. Default false (as nginx). */
  honorRequestNoCache?: boolean;
  /** The response header listing an entry's tags (removed before the response is sent). Default 'cache-tag'. */
  tagHeader?: string;
  /** Give stored responses without an ETag the native CRC-32 weak ETag. Default true. */
  etag?: boolean;
  /** Refresh stale-while-revalidate entries in the background (through the server). Default true. */
  staleWhileRevalidate?: boolean;
  /**
   * Add a `Cache-Status` header (RFC 9211) saying how the cache handled each request:
   * `ssr-native; hit; ttl=53` (negative ttl: stale while revalidated), `ssr-native; fwd=miss`,
   * `fwd=stale`, `fwd=stale; fwd-status=500; ttl=-40` (a stale-if-error copy), `fwd=request`,
   * `fwd=method`, `fwd=bypass; detail=cookie`. Never stored: each hit writes its own.
   * `{ worker: true }` adds the process (`pid=`, and `worker=` in a node:cluster / PM2 worker) to
   * `detail`. Default false.
   */
  cacheStatus?: boolean | { worker?: boolean };
  /** Milliseconds a background refresh may take. Default 30000. */
  refreshTimeout?: number;
  /** Background refreshes in flight at once. Default 16. */
  maxRefreshes?: number;
  /**
   * Sends a background refresh in place of the request through the server:
   * `req` holds the method, target, the key's headers only, and the triggering socket;
   * set `options.header` to `options.token` on it; call `done(ok)` once.
   */
  refresh?: (
    req: { method: string; url: string; headers: IncomingHttpHeaders; socket?: object },
    options: { token: string; header: string; timeout: number },
    done: (ok: boolean) => void,
  ) => void;
  /**
   * A shared layer for a fleet: a connected ioredis / iovalkey client or node-redis client; or
   * sharedMemoryStore(...): one cache for every process of this machine, in place of each
   * process's memory. Anything else (a string such as 'shared') is a TypeError naming these.
   */
  store?: object | SharedMemoryStore;
  storeOptions?: {
    /** Prefix of every Redis key and of the purge channel. Default 'ssr-native:cache:'. */
    prefix?: string;
    /** Milliseconds a Redis call may take before it counts as failed. Default 100. */
    timeout?: number;
    /** Milliseconds Redis is left alone after a failure (doubled per failure in a row, up to 30 s). Default 1000. */
    retryAfter?: number;
  };
  /** The clock, in milliseconds (tests). Default Date.now. */
  now?: () => number;
}

/** Every field is described in docs/cache.md, "Stats". */
export interface ResponseCacheStats {
  /** Which store holds the entries (see ResponseCacheStoreName). */
  store: ResponseCacheStoreName;
  /** Fresh answers from the cache. */
  hits: number;
  /** Requests that rendered (or waited for a render) for want of an entry. */
  misses: number;
  /** Stale answers sent while a background refresh runs. */
  staleServed: number;
  /** Stale answers sent in place of a 5xx or a failed render. */
  staleIfError: number;
  /** 304s sent for a hit. */
  notModified: number;
  /** Requests the cache did not touch (method, cookies, credentials, bypass, hit-for-pass, ...). */
  passes: number;
  /** Passes for forwarding headers not keyed, a Host outside allowedHosts, or key() returning false (a proxy whose headers `trust proxy` does not cover shows here). */
  unkeyedPasses: number;
  /** Requests whose Host, :authority or keyed forwarded host is not RFC 3986 host[:port] (they pass). */
  badAuthority: number;
  /** Requests refused by allowedHosts (they pass). */
  hostNotAllowed: number;
  /** Passes because the variant's answers were found unstorable lately. */
  hitForPassServed: number;
  /** Requests that waited for another's render of the same page. */
  coalesced: number;
  /** Waits that ran out (lockTimeout). */
  coalesceTimeouts: number;
  /** Waiters whose client left. */
  waitersGone: number;
  /** Responses rendered for the cache. */
  renders: number;
  /** Renders stored. */
  stored: number;
  /** Renders not storable (status, Cache-Control, Set-Cookie, ...). */
  uncacheable: number;
  /** Renders past maxEntrySize. */
  tooLarge: number;
  /** Background refreshes sent. */
  refreshes: number;
  /** Background refreshes that failed. */
  refreshFailures: number;
  /** Entries dropped by purges in this process. */
  purged: number;
  /** Entries dropped by an unsafe method's answer (POST, PUT, PATCH, DELETE). */
  invalidated: number;
  /** Entries held now (with sharedMemoryStore: the segment's, for every process). */
  entries: number;
  /** Bytes held now (with sharedMemoryStore: the segment's). */
  bytes: number;
  /** The byte budget that applies (with sharedMemoryStore: the segment's maxBytes). */
  maxBytes: number;
  /** The entry budget that applies (with sharedMemoryStore: the segment's maxEntries). */
  maxEntries: number;
  /** Entries evicted for room. */
  evictions: number;
  /** Renders the cache is waiting on. */
  pending: number;
  /** Variants passing for hit-for-pass now. */
  hitForPassKeys: number;
  /** Background refreshes in flight. */
  refreshing: number;
  /**
   * With a store: answers served from the shared layer (sharedMemoryStore: every hit and stale
   * answer this process served out of the segment, whoever stored it; Redis: entries taken from
   * Redis on a miss of this process's memory).
   */
  sharedHits?: number;
  /** With a store: shared-layer look-ups that found nothing. */
  sharedMisses?: number;
  /** Redis: entries written. */
  sharedWrites?: number;
  /** Redis: calls that failed. */
  sharedErrors?: number;
  /** Redis: calls that timed out. */
  sharedTimeouts?: number;
  /** With a store: fills that waited for another process's render. */
  sharedLockWaits?: number;
  /** With a store: entries read back that were not valid (deleted). */
  sharedInvalid?: number;
  /** sharedMemoryStore: bytes of this process's copies of the segment's pages (at most `hotBytes`). */
  hotBytes?: number;
  /** sharedMemoryStore: pages this process keeps a copy of. */
  hotEntries?: number;
  /** sharedMemoryStore: bytes of the checked metadata this process keeps of entries it read (no bodies). */
  metaBytes?: number;
  /** sharedMemoryStore: entries whose checked metadata this process keeps (at most 2,048). */
  metaEntries?: number;
  /** sharedMemoryStore: reads of the segment that reused kept metadata (no parse, no checks). */
  metaHits?: number;
  /** Redis: purges received from other processes. */
  purgeMessages?: number;
  /** Purge subscriptions lost and made again (each drops this process's memory layer). */
  resubscriptions?: number;
}

/**
 * The controls every cache middleware carries. Each purge returns the number of entries this
 * process dropped; with a `store`, a Promise of it, settled once the shared entries are deleted
 * and the other processes are told.
 */
export interface ResponseCacheControls {
  /** Drops every entry of a URL path with its query (`/p/1?x=1`), for every host and variant. */
  purge(url: string): number | Promise<number>;
  /** Drops every entry whose path and query start with `prefix`. */
  purgePrefix(prefix: string): number | Promise<number>;
  /** Drops every entry whose response listed `tag` in its Cache-Tag header. */
  purgeTag(tag: string): number | Promise<number>;
  /** Drops everything. */
  clear(): number | Promise<number>;
  stats(): ResponseCacheStats;
  /** Closes the shared layer's subscription connection (the client itself is yours). */
  close(): void;
}

export type ResponseCacheMiddleware = ((
  req: IncomingMessage,
  res: ServerResponse,
  next: (err?: unknown) => void,
) => void) &
  ResponseCacheControls;

/** The shared response cache as connect-style middleware for node:http and Express 4/5. */
export function responseCache(options?: ResponseCacheOptions): ResponseCacheMiddleware;

export interface SharedMemoryStoreOptions {
  /** The segment's name (letters, digits, '.', '_', '-'): every process giving it shares one cache. */
  name: string;
  /**
   * An absolute tmpfs folder. Default: $XDG_RUNTIME_DIR, else the first of systemd's
   * $RUNTIME_DIRECTORY, when it is a directory of this user that no one else may write; else
   * '/dev/shm' (where another local user can plant a file under the name: then this process
   * falls back to its own memory, see `stats().store`).
   */
  dir?: string;
  /** Bytes of stored entries for all processes together, reserved in RAM when the segment is opened. Default 64 MiB. */
  maxBytes?: number;
  /** Index slots. Default 10000. */
  maxEntries?: number;
  /** Keep the entries over a full restart (a rolling restart always keeps them). Default false. */
  persist?: boolean;
  /**
   * Bytes of pages each process may keep copies of beside the segment (pages it hit twice lately,
   * served with no copy out of the segment). Default `maxBytes` / 64, at most 4 MiB; 0 keeps none.
   */
  hotBytes?: number;
}

/**
 * Which store holds a response cache's entries: 'memory' (this process's), 'redis',
 * 'shared-memory' (the segment, opened), 'shared-memory (opens at first use)' (nothing asked
 * yet), or `memory (fallback: <reason>)` when the segment could not be used and this process
 * keeps its own memory store: `refused: <what is there, its owner uid and mode>`,
 * `no room: <free and needed sizes>`, `cannot open: <the system's error>`.
 */
export type ResponseCacheStoreName = string;

export interface SharedMemoryStore {
  /** The segment's path (created at first use). */
  readonly file: string;
  /**
   * Which store is in use (see ResponseCacheStoreName), this process's shared* counters, and the
   * segment's entries, bytes, maxBytes, evictions and repairs (index repairs after a process died
   * holding the segment's lock).
   */
  stats(): { store: ResponseCacheStoreName } & Record<string, number | string>;
}

/**
 * A response store in shared memory for every process of this machine that opens the same name
 * (node:cluster, PM2 cluster mode): pass it as responseCache's `store`. Nothing is created until
 * the first look-up, store or purge (so a build that loads the server creates nothing). A
 * segment refused for its owner, mode or type, or a folder without room, gives one process
 * warning (code SSR_NATIVE_SHARED_CACHE_FALLBACK) and this process serves from its own memory.
 */
export function sharedMemoryStore(options: SharedMemoryStoreOptions): SharedMemoryStore;

declare const cache: { responseCache: typeof responseCache; sharedMemoryStore: typeof sharedMemoryStore };
export default cache;
