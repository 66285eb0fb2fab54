/// <reference types="node" />
import type { IncomingHttpHeaders, ServerResponse } from 'http';
import type { FileCache, FileCacheStats, StaticFileStats } from '../files/file-cache';
import type { ResponseCacheOptions, ResponseCacheControls } from '../cache';
import type { ContentCacheAndDictionaryOptions } from '../compression';

/** The Koa context, as far as these middleware use it (Koa 2 and 3). */
export interface KoaLikeContext {
  body: unknown;
  status: number;
  fresh: boolean;
  response: { get(field: string): string; etag: string };
}
export type KoaMiddleware = (ctx: KoaLikeContext, next: () => Promise<unknown>) => Promise<void>;

export interface KoaEtagOptions {
  /** Force weak (true) or strong (false) tags; by default bodies get strong tags, file streams weak ones. */
  weak?: boolean;
}

/** Drop-in for koa-etag 5 and @koa/etag 5, hashing with CRC-32. */
export function etag(options?: KoaEtagOptions): KoaMiddleware;

/** Drop-in for koa-conditional-get 3: answers 304 when the request is fresh. */
export function conditional(): KoaMiddleware;

/** The Koa context, as far as serve() and send() use it (Koa 2 and 3). */
export interface KoaStaticContext extends KoaLikeContext {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  res: ServerResponse;
  type: string;
  set(field: string, value: string): void;
  acceptsEncodings(...encodings: string[]): string | false;
  throw(...args: any[]): never;
}

/** koa-send 5's options (serve() reads them once, at creation). */
export interface KoaSendOptions {
  /** Directory the path is resolved in (send() only; serve() takes it as its first argument). */
  root?: string;
  /** Index file of a directory. serve(): default 'index.html'; false: none. */
  index?: string | false;
  /** Cache-Control max-age in milliseconds. Default 0. */
  maxage?: number;
  maxAge?: number;
  /** Add `immutable` to Cache-Control. */
  immutable?: boolean;
  /** Serve dotfiles and files in dot directories. Default false (passed on: 404). */
  hidden?: boolean;
  /** A directory without a trailing slash gets its index too. Default true. */
  format?: boolean;
  /** Extensions to try when the path has none, e.g. ['html']. Default false. */
  extensions?: string[] | false;
  /** Serve a `.br` sibling to clients that accept br. Default true. */
  brotli?: boolean;
  /** Serve a `.gz` sibling to clients that accept gzip. Default true. */
  gzip?: boolean;
  setHeaders?: (res: ServerResponse, path: string, stats: StaticFileStats) => void;

  // Beyond koa-send:
  /** Set the ETag the cache holds (W/"<size hex>-<crc32 hex>" of the content). Default true. */
  etag?: boolean;
  /** Precomputed gzip and brotli variants of compressible types, with Vary: Accept-Encoding. */
  compress?: boolean;
  /** Send Accept-Ranges and honour Range requests (206/416). Default false, as koa-send. */
  acceptRanges?: boolean;
  /** Bound on cached bytes. Default 64 MiB. */
  maxBytes?: number;
  /** Files larger than this are streamed from disk. Default 4 MiB. */
  maxFileSize?: number;
  /** Watch for changes with inotify (default true); false: a 250 ms stat sweep. */
  watch?: boolean;
  /** Share one FileCache between several serve() mounts and serveStatic: one memory budget. */
  cache?: FileCache;
  /** Hashed files (main-81bd0e.js) offered as dictionaries for their next versions, answered with dcz deltas (RFC 9842); default false. */
  dictionary?: boolean | { maxEntries?: number; maxBytes?: number; level?: number };
}

/** koa-static 5's options: koa-send's plus `defer`. */
export interface KoaServeOptions extends KoaSendOptions {
  /** Let downstream middleware answer first; serve only what is still a 404 without a body. */
  defer?: boolean;
}

export interface AssetDictionaryStats {
  offered: number;
  hits: number;
  bytesSaved: number;
  entries: number;
  bytes: number;
}

export interface KoaServeMiddleware {
  (ctx: KoaStaticContext, next: () => Promise<unknown>): Promise<void> | undefined;
  readonly cache: FileCache;
  /** The cache's counters, and `routes`: URL paths remembered (at most 8192). */
  stats(): FileCacheStats & { routes: number };
  /** With `dictionary`: its counters (offered, hits, bytesSaved, entries, bytes); else null. */
  readonly dictionary: { stats(): AssetDictionaryStats } | null;
  /** Releases the cache (unless it was passed in as `cache`, which its owner closes). */
  close(): void;
}

/** Drop-in for koa-static 5 (koa-send 5) serving files from the native FileCache. */
export function serve(root: string, options?: KoaServeOptions): KoaServeMiddleware;

/**
 * Drop-in for koa-send 5's (and @koa/send 6's) send(ctx, path, opts): resolves with the file's
 * path, or undefined.
 * Files come from one FileCache shared by every send() call (default bounds; maxBytes,
 * maxFileSize and watch are not read here) unless `opts.cache` names one. Reuse one options
 * object to have resolutions remembered; it is read once, at its first use.
 */
export function send(ctx: KoaStaticContext, path: string, opts?: KoaSendOptions): Promise<string | undefined>;

/** The shared response cache (ssr-native/cache) as Koa 2/3 middleware, mounted before the routes it caches. */
export function cache(
  options?: ResponseCacheOptions,
): ((ctx: unknown, next: () => Promise<unknown>) => Promise<void>) & ResponseCacheControls;

/** Per-coding options of compress(): zlib options, false/null to turn the coding off, or a function of the response. */
export type KoaCompressCodingOption =
  | Record<string, unknown>
  | boolean
  | null
  | ((type: string, size: number | undefined, ctx: KoaLikeContext) => KoaCompressCodingOption);

/** koa-compress's options, with ssr-native's content cache and dictionary. */
export interface KoaCompressOptions extends ContentCacheAndDictionaryOptions {
  /** Whether a Content-Type is compressed; default: mime-db's compressible. */
  filter?: (type: string) => boolean | undefined;
  /** Minimum size (bytes, '1kb', or a function of type, size, ctx); default 1024. */
  threshold?: number | string | ((type: string, size: number | undefined, ctx: KoaLikeContext) => number | string);
  /** The coding when the request has no Accept-Encoding; default 'identity' ('*' = wildcardAcceptEncoding). */
  defaultEncoding?: string;
  /** The coding for `Accept-Encoding: *`; default 'gzip'. */
  wildcardAcceptEncoding?: string;
  /** The server's preference; default ['zstd', 'br', 'gzip', 'deflate', 'identity']. */
  encodingPreference?: string[];
  gzip?: KoaCompressCodingOption;
  deflate?: KoaCompressCodingOption;
  br?: KoaCompressCodingOption;
  zstd?: KoaCompressCodingOption;
}

/** A drop-in for koa-compress 5.2; `ctx.compress = true | false | options` overrides per response. */
export function compress(options?: KoaCompressOptions): KoaMiddleware;

/**
 * Inlines critical CSS (Angular's InlineCriticalCssProcessor output) into string and Buffer HTML
 * bodies; mount after compress(), etag() and cache(), before the routes.
 */
export function criticalCss(
  options: import('../critical-css').CriticalCssOptions | import('../critical-css').CriticalCss,
): KoaMiddleware & import('../critical-css').CriticalCssControls;

declare const koa: {
  etag: typeof etag;
  conditional: typeof conditional;
  serve: typeof serve;
  send: typeof send;
  compress: typeof compress;
  cache: typeof cache;
  criticalCss: typeof criticalCss;
};
export default koa;
