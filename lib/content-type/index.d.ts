/** A parsed Content-Type: lower-cased type and parameter names, unquoted values. */
export interface ContentType {
  type: string;
  parameters: Record<string, string>;
}

/** Something with a Content-Type header: a request (`headers`) or a response (`getHeader`). */
export type HasContentType =
  | { headers: Record<string, string | string[] | undefined> }
  | { getHeader(name: string): number | string | string[] | undefined };

/** content-type 1.0.5's parse: throws a TypeError with the package's messages. */
export function parse(string: string | HasContentType): ContentType;

/** content-type 1.0.5's format: parameter names sorted, non-token values quoted. */
export function format(obj: { type: string; parameters?: Record<string, unknown> }): string;

export interface ContentTypeSettings {
  /** Cache capacity in entries (0 disables the cache). Default 1024. */
  cacheSize: number;
  /**
   * Scanner used on a cache miss. Default 'auto': JavaScript for headers up to 256 characters
   * (measured faster there), the C++ scanner for longer ones.
   */
  scanner: 'auto' | 'js' | 'native';
}

/** Change the cache size (clears the cache) and/or the scanner; returns the settings in force. */
export function configure(options?: Partial<ContentTypeSettings>): ContentTypeSettings;

export interface ContentTypeCacheStats {
  size: number;
  capacity: number;
  hits: number;
  /** every parse the cache did not answer (hits / (hits + misses) is its hit ratio) */
  misses: number;
  /** headers cached (on their second sighting) */
  stores: number;
  bypasses: number;
}

export function cacheStats(): ContentTypeCacheStats;
export function clearCache(): void;
