/// <reference types="node" />
import type { IncomingMessage, ServerResponse } from 'http';
import type { FileCache, FileCacheStats } from '../files/file-cache';

export interface CacheCommonEngineOptions {
  /** Bound on the cached page bytes (native memory, and again for the page strings). Default 64 MiB. */
  maxBytes?: number;
  /** Pages larger than this are read from disk on every request, as CommonEngine does. Default 4 MiB. */
  maxFileSize?: number;
  /** Bound on the remembered URL paths (prerendered or not), LRU. Default 10000. */
  maxPages?: number;
  /** A FileCache to share, e.g. `serveStatic(browserDistFolder).cache`. */
  cache?: FileCache;
}

export interface SsgPageCacheStats {
  /** Prerendered pages answered from memory. */
  hits: number;
  /** Prerendered pages read from disk (once per file version). */
  reads: number;
  /** Requests answered by a read already in flight for the same page. */
  shared: number;
  /** Lookups answered "not prerendered" (the engine rendered them). */
  notPrerendered: number;
  /** URL paths remembered. */
  pages: number;
  /** Characters of page text held. */
  pageBytes: number;
  cache: FileCacheStats;
}

export interface SsgPageCache {
  readonly cache: FileCache;
  stats(): SsgPageCacheStats;
  /** Forgets every page. */
  clear(): void;
  /** Gives the engine its own retrieveSSGPage back and frees the cache it created. */
  close(): void;
}

/** The CommonEngine members ssr-native relies on (private in Angular's typings). */
type CommonEngineLike = object & { render(options: any): Promise<string> };

/**
 * Returns `engine` (a CommonEngine from @angular/ssr 17-18 or @angular/ssr/node 19-21) with its
 * prerendered pages served from memory. Throws a TypeError for an engine of unknown shape.
 */
export function cacheCommonEngine<E extends CommonEngineLike>(engine: E, options?: CacheCommonEngineOptions): E;

/** The cache behind an engine passed to cacheCommonEngine, or undefined. */
export function ssgCacheOf(engine: object): SsgPageCache | undefined;

export interface WriteResponseOptions {
  /** HTML bodies up to this size get an ETag; larger ones are streamed as is. Default 8 MiB. */
  maxBuffer?: number;
}

/**
 * In place of writeResponseToNodeResponse(response, res): HTML responses get a weak CRC-32 ETag
 * and a 304 when If-None-Match matches; other responses are written unchanged.
 */
export function writeResponse(
  response: Response,
  req: IncomingMessage,
  res: ServerResponse,
  options?: WriteResponseOptions,
): Promise<void>;

/**
 * Express/node:http middleware inlining critical CSS into every text/html answer after it, as
 * Angular's `optimization.styles.inlineCritical` does (turn that off in angular.json). Mount it
 * before serveStatic and the Angular handler, after compression and a response cache.
 */
export { criticalCss } from '../express/critical-css';
import type { criticalCss as criticalCssFn } from '../express/critical-css';

declare const angular: {
  cacheCommonEngine: typeof cacheCommonEngine;
  ssgCacheOf: typeof ssgCacheOf;
  writeResponse: typeof writeResponse;
  criticalCss: typeof criticalCssFn;
};
export default angular;
