// ssr-native/compression: a drop-in for the `compression` 1.8 middleware with a content cache.
import type { IncomingMessage, ServerResponse } from 'http';
import type { BrotliOptions, ZlibOptions } from 'zlib';

declare namespace compression {
  interface ContentCacheOptions {
    /** Bytes held (original and compressed bodies together); default 32 MiB. */
    maxBytes?: number;
    /** Entries held; default 4096. */
    maxEntries?: number;
    /** Largest original + compressed size one entry may take; default maxBytes / 8. */
    maxEntryBytes?: number;
    /**
     * Sightings a body needs before storing it may evict others: 2 (default: while the cache
     * has room every body is stored; once full, a body seen for the first time is not), or 1.
     */
    minUses?: 1 | 2;
    /** The `name` label of this cache's metrics in ssr-native/metrics; default 'compression'. */
    name?: string;
  }

  interface ContentCacheStats {
    hits: number;
    misses: number;
    /** Bodies that arrived while the same body was compressing and waited for it. */
    coalesced: number;
    compressions: number;
    evictions: number;
    errors: number;
    /** Compressed bodies too large to keep. */
    uncached: number;
    /** Bodies not stored because the cache was full and they were new (minUses 2). */
    notAdmitted: number;
    bytes: number;
    entries: number;
    inFlight: number;
    maxBytes: number;
    maxEntries: number;
    minUses: number;
  }

  /** Compressed forms of bodies by content (length + CRC-32, bytes compared on every hit). */
  class ContentCache {
    constructor(options?: ContentCacheOptions);
    readonly maxBytes: number;
    readonly maxEntries: number;
    clear(): void;
    stats(): ContentCacheStats;
  }

  interface CompressionFilter {
    (req: IncomingMessage, res: ServerResponse): boolean;
  }

  /** What ssr-native adds to every compressing middleware's options (compression, Koa, Fastify, Hono). */
  interface ContentCacheAndDictionaryOptions {
    /** The content cache: the process-wide one (default, true), none (false), or another. */
    cache?: boolean | ContentCache | ContentCacheOptions;
    /**
     * Compression Dictionary Transport (RFC 9842, `dcz`): true learns a dictionary from the
     * site's shareable HTML; a Buffer or a file path supplies one; default off.
     */
    dictionary?: boolean | string | Uint8Array | DictionaryOptions;
  }

  interface CompressionOptions extends Omit<ZlibOptions, 'dictionary'>, ContentCacheAndDictionaryOptions {
    /** Decides whether a response is compressed; default: compression.filter (compressible types). */
    filter?: CompressionFilter;
    /** Minimum body size in bytes, or a string such as '1kb'; default 1024. */
    threshold?: number | string;
    /** Options for the Brotli encoder; quality 4 unless params say otherwise. */
    brotli?: BrotliOptions;
    /** The coding used when the request has no Accept-Encoding; default 'identity'. */
    enforceEncoding?: string;
    /** Offer Zstandard (first in preference) where the runtime's zlib has it; default off. */
    zstd?: boolean | ({ params?: Record<number, number> } & ZlibOptions);
  }

  interface DictionaryOptions {
    /** The dictionary to use instead of learning one: bytes or a file path read once. */
    source?: string | Uint8Array;
    /** Use-As-Dictionary's match pattern (URL path); default '/*'. */
    match?: string;
    /** The path the dictionary is served under; default '/_ssr-native/dictionary/'. */
    prefix?: string;
    /** Most bytes of a learned dictionary; default 128 KiB. */
    maxBytes?: number;
    /** Distinct shareable paths (query not counted) sampled before the first dictionary is built; 32 to 1000, default 32. */
    minPages?: number;
    /** Pages kept as samples (one per path), and their bytes at most; default 48 (at least minPages), 4 MiB. */
    maxSamples?: number;
    maxSampleBytes?: number;
    /** Once a dictionary exists, one shareable page in this many is sampled; default 16. */
    sampleEvery?: number;
    /** New samples before the dictionary is rebuilt (kept unless 10% better); default 32. */
    rebuildAfter?: number;
    /** Milliseconds at least between two rebuilds; default 60000. */
    rebuildInterval?: number;
    /** zstd level of dcz answers, 1-19; default 3. */
    level?: number;
    /** false: never learn (only a supplied source is used). */
    learn?: boolean;
    /**
     * dcz against a learned dictionary also for responses that may not be shared (private,
     * no-store, Set-Cookie, a request with Cookie or Authorization): true, or per route a function
     * of Node's request. Default false: they get Brotli/zstd without a dictionary. The risk:
     * docs/compression.md, "What an attacker controls, and why the dictionary oracle is closed".
     */
    privateResponses?: boolean | ((req: IncomingMessage) => boolean);
  }

  interface DictionaryStats {
    available: boolean;
    hits: number;
    bytesIn: number;
    bytesOut: number;
    bytesSaved: number;
    unknownDictionary: number;
    served: number;
    /** Responses the sharing rule refused, sent without the learned dictionary. */
    privateRefused: number;
    /** dcz answers against the learned dictionary whose head as sent was not shareable. */
    lateMarks: number;
    /** A late mark turned learned-dictionary dcz off until restart. */
    dczOff: boolean;
    sampled: number;
    /** Responses not learned from, and by reason ('cookie', 'no-lifetime', 'private', ...). */
    refused: number;
    refusedBy: Record<string, number>;
    builds: number;
    dictionaryBytes: number;
  }

  interface DictionaryTransport {
    stats(): DictionaryStats;
  }

  interface CompressionMiddleware {
    (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): void;
    /** The content cache this middleware uses, or null. */
    readonly cache: ContentCache | null;
    /** The dictionary transport (option `dictionary`), or null. */
    readonly dictionary: DictionaryTransport | null;
  }

  /** The default filter: whether the response's Content-Type is compressible (mime-db). */
  const filter: CompressionFilter;
  /** The process-wide content cache. */
  function sharedCache(): ContentCache;
  /** Compressions of whole bodies on libuv's pool now, waiting for it, and the limit (one per CPU). */
  function poolStats(): { active: number; waiting: number; maxActive: number };
}

declare function compression(options?: compression.CompressionOptions): compression.CompressionMiddleware;
declare module 'http' {
  interface ServerResponse {
    /** Flushes what the compressing stream holds (streamed responses). */
    flush(): void;
  }
}

export = compression;
