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
  /** Total bytes of stored entries (bodies, keys, headers); least recently used evicted first. Default 64 MiB. */
  maxBytes?: number;
  /** Most entries kept, whatever their size (a flood of distinct URLs cannot grow past it). Default 10,000. */
  maxEntries?: number;
  /** Bodies larger than this pass through and are not stored. Default 1 MiB. */
  maxEntrySize?: number;
  /** Query string in the key: 'keep' (default), 'sort' the parameters, or 'ignore' it. */
  query?: 'keep' | 'sort' | 'ignore';
  /** Query parameters left out of the key (utm_source, fbclid, ...). */
  ignoreParams?: string[];
  /** The Host header is part of the key (default true). */
  host?: boolean;
  /** Requests with a Cookie header pass unless true, or unless this function says so for the request. Default false. */
  cookies?: boolean | ((req: CacheRequest) => boolean);
  /** Requests this returns true for pass the cache entirely. */
  bypass?: (req: CacheRequest) => boolean;
  /** Statuses stored when the response has a lifetime. Default 200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501. */
  statuses?: number[];
  /** Seconds of freshness for a storable response without s-maxage, max-age or Expires. Default 0: not stored. */
  defaultTtl?: number;
  /** Milliseconds a request waits for another one rendering the same key before rendering itself. Default 5000. */
  lockTimeout?: number;
  /** Seconds a URL found uncacheable passes straight through (0: off). Default 120. */
  hitForPass?: number;
  /** A client's Cache-Control: no-cache / Pragma: no-cache makes a render. Default false (as nginx). */
  honorRequestNoCache?: boolean;
  /** The response header listing an entry's tags (removed before the response is sent). Default 'cache-tag'. */
  tagHeader?: string;
  /** Give stored responses without an ETag the native CRC-32 weak ETag. Default true. */
  etag?: boolean;
  /** Refresh stale-while-revalidate entries in the background (through the server). Default true. */
  staleWhileRevalidate?: boolean;
  /** Milliseconds a background refresh may take. Default 30000. */
  refreshTimeout?: number;
  /** Background refreshes in flight at once. Default 16. */
  maxRefreshes?: number;
  /** A shared layer for a fleet: a connected ioredis / iovalkey client or node-redis client. */
  store?: object;
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

export interface ResponseCacheStats {
  hits: number;
  misses: number;
  staleServed: number;
  staleIfError: number;
  notModified: number;
  passes: number;
  hitForPassServed: number;
  coalesced: number;
  coalesceTimeouts: number;
  waitersGone: number;
  renders: number;
  stored: number;
  uncacheable: number;
  tooLarge: number;
  refreshes: number;
  refreshFailures: number;
  purged: number;
  invalidated: number;
  entries: number;
  bytes: number;
  maxBytes: number;
  maxEntries: number;
  evictions: number;
  pending: number;
  hitForPassKeys: number;
  refreshing: number;
  /** With a store: */
  sharedHits?: number;
  sharedMisses?: number;
  sharedWrites?: number;
  sharedErrors?: number;
  sharedTimeouts?: number;
  sharedLockWaits?: number;
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

declare const cache: { responseCache: typeof responseCache };
export default cache;
