/// <reference types="node" />
import type { BigIntStats, Stats } from 'fs';

export interface EtagOptions {
  /** Weak (`W/"..."`, the default) or strong (`"..."`) tag. */
  weak?: boolean;
  /** Encoding of a string body; UTF-8 by default. */
  encoding?: BufferEncoding;
}

/** Anything shaped like fs.Stats: the tag is then `W/"<size hex>-<mtime ms hex>"`. */
export type StatsLike = Stats | BigIntStats | { ctime: Date; mtime: Date; ino: number | bigint; size: number | bigint };

export type EtagEntity = string | NodeJS.ArrayBufferView | StatsLike;

/**
 * Entity tag from the body's byte length and CRC-32: `W/"<len hex>-<crc32 hex>"`.
 * Use as Express's etag function: `app.set('etag', etag)`.
 * @throws TypeError for any other kind of entity or a bad option.
 */
export function etag(entity: EtagEntity, encodingOrOptions?: BufferEncoding | EtagOptions): string;

/** CRC-32 of `data` continuing from `value` (0 by default), identical to zlib.crc32. */
export function crc32(data: string | NodeJS.ArrayBufferView, value?: number): number;

export { serveStatic, FileCache } from './express/serve-static';
export type {
  ServeStaticOptions,
  ServeStaticMiddleware,
  FileCacheOptions,
  FileCacheStats,
} from './express/serve-static';
import type { serveStatic as ServeStaticFn, FileCache as FileCacheClass } from './express/serve-static';
/** The content-type 1.0.5 drop-in (also `ssr-native/content-type`). */
export * as contentType from './content-type';
import * as contentTypeModule from './content-type';

declare const ssrNative: {
  etag: typeof etag;
  crc32: typeof crc32;
  serveStatic: typeof ServeStaticFn;
  FileCache: typeof FileCacheClass;
  contentType: typeof contentTypeModule;
};
export default ssrNative;
