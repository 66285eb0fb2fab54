// ssr-native/hono: drop-ins for @hono/node-server/serve-static 2.1, hono/etag and hono/compress.
import type { Context, Env, MiddlewareHandler } from 'hono';
import type { StaticMountOptions } from '../files/file-cache';
import type { ContentCacheAndDictionaryOptions } from '../compression';

export interface ServeStaticOptions<E extends Env = Env> extends StaticMountOptions {
  /** Directory the request path is joined to (relative to the working directory, or absolute). */
  root?: string;
  /** Serve this one file for every request. */
  path?: string;
  index?: string;
  precompressed?: boolean;
  /** Extension -> Content-Type entries consulted before hono's own table. */
  mimes?: Record<string, string>;
  rewriteRequestPath?: (path: string, c: Context<E>) => string;
  onFound?: (path: string, c: Context<E>) => void | Promise<void>;
  onNotFound?: (path: string, c: Context<E>) => void | Promise<void>;
  allowPercentInPath?: boolean;
}

export interface ETagOptions {
  retainedHeaders?: string[];
  weak?: boolean;
  /** Accepted for compatibility; ignored: the tag is the CRC-32 of the body. */
  generateDigest?: (body: Uint8Array) => ArrayBuffer | Promise<ArrayBuffer>;
}

/** hono/compress's options, with ssr-native's content cache and dictionary. */
export interface CompressionOptions extends ContentCacheAndDictionaryOptions {
  /** The one coding allowed; default: gzip or deflate, as the client prefers (gzip on a tie). */
  encoding?: 'gzip' | 'deflate';
  /** Responses whose Content-Length is below this are left alone; default 1024. */
  threshold?: number;
  /** Which Content-Types are compressed; default: hono's COMPRESSIBLE_CONTENT_TYPE_REGEX. */
  contentTypeFilter?: RegExp | ((contentType: string) => boolean);
}

export declare const RETAINED_304_HEADERS: string[];
export declare function serveStatic<E extends Env = Env>(options?: ServeStaticOptions<E>): MiddlewareHandler<E>;
export declare function etag(options?: ETagOptions): MiddlewareHandler;
/** A drop-in for hono/compress; `.cache` is the content cache it uses (or null). */
export declare function compress(
  options?: CompressionOptions,
): MiddlewareHandler & { readonly cache: import('../compression').ContentCache | null };
/** Inlines critical CSS into text/html responses; mount after compress() and etag(). */
export declare function criticalCss(
  options: import('../critical-css').CriticalCssOptions | import('../critical-css').CriticalCss,
): MiddlewareHandler & import('../critical-css').CriticalCssControls;
