/// <reference types="node" />
// The FileCache (lib/files/file-cache.js): the native in-memory file store every static adapter,
// Angular's cacheCommonEngine and the critical-CSS engine read files through.

/** fs.Stats-shaped (same fields and is*() methods) as passed to setHeaders. */
export interface StaticFileStats {
  size: number;
  dev: number;
  ino: number;
  mode: number;
  nlink: number;
  uid: number;
  gid: number;
  rdev: number;
  blksize: number;
  blocks: number;
  atimeMs: number;
  mtimeMs: number;
  ctimeMs: number;
  birthtimeMs: number;
  readonly atime: Date;
  readonly mtime: Date;
  readonly ctime: Date;
  readonly birthtime: Date;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isBlockDevice(): boolean;
  isCharacterDevice(): boolean;
}

export interface FileCacheStats {
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
  evictions: number;
  invalidations: number;
  watchedDirectories: number;
  /** Readings of a file repeated because it changed while it was being read. */
  rereads: number;
  /** Loads served once, uncached, because the file changed during every reading. */
  unstableLoads: number;
  /** Files read from disk into the cache. */
  loads: number;
  /** Directories inotify could not watch (its limit reached): their entries are swept by stat. */
  watchFallbacks: number;
  /** Change detection by inotify (false: stat sweep only). */
  inotify: boolean;
}

export interface FileCacheOptions {
  /** Its `name` label in ssr-native/metrics (made unique: "x#2"). Default: root, else "file-cache". */
  name?: string;
  /** Directories from each cached file up to here are watched. */
  root?: string;
  /** Bound on cached bytes (bodies and compressed variants), LRU eviction. Default 64 MiB. */
  maxBytes?: number;
  /** Larger files are not cached (serveStatic streams them from disk). Default 4 MiB. */
  maxFileSize?: number;
  /** inotify (Linux) when true (default); a stat sweep covers what it cannot. */
  watch?: boolean;
  /** Period of the stat sweep for files without a watch. Default 250 ms. */
  sweepIntervalMs?: number;
  /** false: a file whose real path leaves root is reported as `outsideRoot`. Default true. */
  allowOutsideRoot?: boolean;
}

/** ssr-native's options of a static mount (Fastify's and Hono's static middlewares). */
export interface StaticMountOptions {
  /** One FileCache shared with other mounts; or the bounds of this mount's own. */
  cache?: FileCache;
  maxBytes?: number;
  maxFileSize?: number;
  /** Hashed files (main-81bd0e.js) offered as dictionaries for their next versions, answered with dcz deltas (RFC 9842); default false. */
  dictionary?: boolean | { maxEntries?: number; maxBytes?: number; level?: number };
}

export interface FileCacheResult {
  status: 'hit' | 'loaded' | 'miss' | 'directory' | 'tooLarge' | 'notRegular' | 'outsideRoot' | 'error';
  id?: number;
  /** The file's bytes: a Buffer over native memory, valid as long as it is referenced. */
  body?: Buffer;
  /** W/"<size hex>-<crc32 hex>" of the content. */
  etag?: string;
  cached?: boolean;
  stat?: Omit<StaticFileStats, 'atime' | 'mtime' | 'ctime' | 'birthtime' | 'birthtimeMs' | `is${string}`>;
  code?: string;
  errno?: number;
  message?: string;
}

export class FileCache {
  constructor(options?: FileCacheOptions);
  readonly maxBytes: number;
  readonly maxFileSize: number;
  /** Its `name` label in ssr-native/metrics. */
  readonly name: string;
  /** Set by preload(): resolves when the tree is loaded. */
  ready?: Promise<void>;
  /** Memory only, never a system call. */
  lookup(path: string): FileCacheResult;
  /**
   * Reads on the libuv pool when not cached. `top`: the directory `path` was resolved under (a
   * static mount's root), from which a miss is watched so it can be reported `settled`.
   */
  load(path: string, callback: (result: FileCacheResult) => void, top?: string): void;
  get(path: string, top?: string): Promise<FileCacheResult>;
  generation(): number;
  touch(id: number): number;
  invalidate(path: string): void;
  clear(): void;
  preload(dir: string, options?: { dotfiles?: boolean }): Promise<void>;
  stats(): FileCacheStats;
  /** Stops the watcher thread and frees the entries (bodies handed out stay valid). Afterwards
   *  nothing throws, so requests in flight still get an answer: loads already under way complete,
   *  lookups miss, new loads call back with status 'error' and code 'ERR_FILE_CACHE_CLOSED'
   *  (a 500 from the middleware), generation() has moved, stats() keeps its counters. */
  close(): void;
}
