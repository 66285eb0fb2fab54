/// <reference types="node" />
import type { IncomingMessage, ServerResponse } from 'http';
import type { FileCache, FileCacheStats, StaticFileStats } from '../files/file-cache';
export type { FileCacheStats, FileCacheOptions, FileCacheResult, StaticFileStats } from '../files/file-cache';
export { FileCache } from '../files/file-cache';

export interface ServeStaticOptions<R extends ServerResponse = ServerResponse> {
  /** Send `Accept-Ranges` and honour Range requests. Default true. */
  acceptRanges?: boolean;
  /** Send `Cache-Control`. Default true. */
  cacheControl?: boolean;
  /** 'allow' | 'deny' (403) | 'ignore' (404, the default). */
  dotfiles?: 'allow' | 'deny' | 'ignore';
  /** Send an ETag (a CRC-32 of the content). Default true. */
  etag?: boolean;
  /** Extensions to try when a file is not found, e.g. ['html']. Default false. */
  extensions?: string[] | string | false;
  /** Let client errors (404, 400, ...) fall through to next(). Default true. */
  fallthrough?: boolean;
  /** Add `immutable` to Cache-Control. Default false. */
  immutable?: boolean;
  /** Index file(s) for a directory. Default 'index.html'. */
  index?: string[] | string | false;
  /** Send Last-Modified. Default true. */
  lastModified?: boolean;
  /** Cache-Control max-age in ms, or a `ms` string such as '1d'. Default 0. */
  maxAge?: number | string;
  maxage?: number | string;
  /** Redirect a directory to its trailing-slash URL. Default true. */
  redirect?: boolean;
  setHeaders?: (res: R, path: string, stat: StaticFileStats) => void;

  // Beyond serve-static:
  /** Precomputed gzip and brotli variants of compressible types, negotiated by Accept-Encoding. */
  compress?: boolean;
  /** Bound on cached bytes. Default 64 MiB. */
  maxBytes?: number;
  /** Files larger than this are streamed from disk. Default 4 MiB. */
  maxFileSize?: number;
  /** Load the whole tree at startup (up to maxBytes). */
  preload?: boolean;
  /** false: refuse (404) symlinks whose target leaves root. Default true, as serve-static. */
  allowSymlinksOutsideRoot?: boolean;
  /** Watch for changes with inotify (default true); false: a 250 ms stat sweep. */
  watch?: boolean;
  /** Share one FileCache between several middleware. */
  cache?: FileCache;
}

export interface ServeStaticMiddleware {
  (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void;
  readonly cache: FileCache;
  /** The cache's counters, plus how many URL paths this middleware has memoised: resolved to a
   *  file (`memoRoutes`) and known to fall through to next() (`memoFallthroughs`). */
  stats(): FileCacheStats & { memoRoutes: number; memoFallthroughs: number };
  /** Stops the watcher thread and drops the cache; requests in flight still get an answer (the
   *  file, when its load was already under way, else a 500 through next(err)). */
  close(): void;
}

/** Drop-in for serve-static 2.x (`express.static` in Express 5), serving from native memory. */
export function serveStatic(root: string, options?: ServeStaticOptions): ServeStaticMiddleware;

declare const _default: typeof serveStatic & {
  serveStatic: typeof serveStatic;
  FileCache: typeof FileCache;
  default: typeof serveStatic;
};
export default _default;
