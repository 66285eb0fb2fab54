/** content-type 2.x's parse result: lower-cased type and names, where the scan stopped. */
export interface ContentType {
  type: string;
  index: number;
  parameters: Record<string, string>;
}

export interface ParseOptions {
  /** false: stop after the type (parameters empty). Default true. */
  parameters?: boolean;
  /** true: stop at a comma (one entry of an Accept-style list). Default false. */
  comma?: boolean;
  /** Where to start. Default 0. */
  start?: number;
}

/** content-type 2.1.0's parse: never throws for a string header. */
export function parse(header: string, options?: ParseOptions): ContentType;

/** content-type 2.1.0's format: parameters in their own order; TypeError `Invalid type: ...` etc. */
export function format(obj: Partial<ContentType>): string;

/** content-type 3.x: whether type[start, end) is token "/" token. */
export function isTypeValid(type: string, start?: number, end?: number): boolean;

/** content-type 3.x: whether token[start, end) is a non-empty token. */
export function isTokenValid(token: string, start?: number, end?: number): boolean;

export interface ContentTypeV2Settings {
  /** Parse cache capacity in entries (0 disables it). Default 1024. */
  cacheSize: number;
}

/** Change the cache size (clears the caches); returns the settings in force. */
export function configure(options?: Partial<ContentTypeV2Settings>): ContentTypeV2Settings;

/** The same counters as the 1.x module's cache. */
export type ContentTypeV2CacheStats = import('./index').ContentTypeCacheStats;

export function cacheStats(): ContentTypeV2CacheStats;
export function clearCache(): void;
