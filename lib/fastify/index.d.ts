// ssr-native/fastify: drop-ins for @fastify/static 10.1, @fastify/etag 6.2 and @fastify/compress 9.2
// (Fastify 4 and 5).
import type {
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  RawServerBase,
  RawServerDefault,
  RouteShorthandOptions,
} from 'fastify';
import type { Stats } from 'fs';
import type { Stream } from 'stream';
import type { BrotliOptions, ZlibOptions } from 'zlib';
import type { StaticMountOptions } from '../files/file-cache';
import type { ContentCacheAndDictionaryOptions } from '../compression';

export interface SetHeadersResponse {
  getHeader: FastifyReply['getHeader'];
  setHeader: (name: string, value: string | number | readonly string[]) => unknown;
  readonly filename: string;
  statusCode: number;
}

export interface SendOptions {
  acceptRanges?: boolean;
  contentType?: boolean;
  cacheControl?: boolean;
  dotfiles?: 'allow' | 'deny' | 'ignore';
  etag?: boolean;
  extensions?: string[];
  immutable?: boolean;
  index?: string[] | string | false;
  lastModified?: boolean;
  maxAge?: string | number;
}

export interface FastifyStaticOptions extends SendOptions, StaticMountOptions {
  /** Absolute directory (or several, tried in order). */
  root: string | string[] | URL | URL[];
  prefix?: string;
  prefixAvoidTrailingSlash?: boolean;
  serve?: boolean;
  decorateReply?: boolean;
  schemaHide?: boolean;
  /** Called with the reply (it has setHeader/getHeader), the file's path and its stats. */
  setHeaders?: (res: FastifyReply | SetHeadersResponse, path: string, stat: Stats) => void;
  redirect?: boolean;
  wildcard?: boolean;
  /** Directory listings are not supported: any value but false/undefined is refused. */
  list?: false;
  allowedPath?: (pathName: string, root: string, request: FastifyRequest) => boolean;
  preCompressed?: boolean;
  serveDotFiles?: boolean;
  suppressWarning?: boolean;
  constraints?: RouteShorthandOptions['constraints'];
  logLevel?: RouteShorthandOptions['logLevel'];
  onFile?: (path: string, stat: Stats | undefined) => unknown;
}

export interface FastifyEtagOptions {
  /** Accepted for compatibility; the tag is always the CRC-32 of the payload. */
  algorithm?: string;
  /** Accepted for compatibility; ignored (the native CRC-32 is used). */
  hashFn?: (payload: string | Buffer) => string;
  weak?: boolean;
  replyWith304?: boolean;
}

export type CompressEncoding = 'zstd' | 'br' | 'deflate' | 'gzip' | 'identity';

/** @fastify/compress's options, with ssr-native's content cache and dictionary. */
export interface FastifyCompressOptions extends ContentCacheAndDictionaryOptions {
  brotliOptions?: BrotliOptions;
  /** Types compressed besides mime-db's compressible ones; default: text (not event streams), JSON, XML, octet-stream. */
  customTypes?: RegExp | ((contentType: string) => boolean);
  /** The codings offered, in order of preference; default zstd (where the runtime has it), br, gzip, deflate, identity. */
  encodings?: CompressEncoding[];
  forceRequestEncoding?: CompressEncoding;
  global?: boolean;
  globalCompression?: boolean;
  globalDecompression?: boolean;
  inflateIfDeflated?: boolean;
  onInvalidRequestPayload?: (encoding: string, request: FastifyRequest, error: Error) => Error | undefined | null;
  onUnsupportedEncoding?: (encoding: string, request: FastifyRequest, reply: FastifyReply) => string | Buffer | Stream;
  onUnsupportedRequestEncoding?: (
    encoding: string,
    request: FastifyRequest,
    reply: FastifyReply,
  ) => Error | undefined | null;
  removeContentLengthHeader?: boolean;
  requestEncodings?: CompressEncoding[];
  /** Bodies up to this size not seen before are compressed at once; default as the peer's (by CPUs, 4-64 KiB). */
  syncThreshold?: number;
  /** Minimum size in bytes; default 1024. */
  threshold?: number;
  zlib?: unknown;
  zlibOptions?: ZlibOptions;
}

export type RouteCompressOptions = Pick<
  FastifyCompressOptions,
  | 'brotliOptions'
  | 'customTypes'
  | 'encodings'
  | 'inflateIfDeflated'
  | 'onUnsupportedEncoding'
  | 'removeContentLengthHeader'
  | 'syncThreshold'
  | 'threshold'
  | 'zlib'
  | 'zlibOptions'
>;

export type RouteDecompressOptions = Pick<
  FastifyCompressOptions,
  'forceRequestEncoding' | 'onInvalidRequestPayload' | 'onUnsupportedRequestEncoding' | 'requestEncodings' | 'zlib'
>;

type CompressInput =
  Buffer | NodeJS.TypedArray | ArrayBuffer | string | Iterable<Buffer | string> | AsyncIterable<Buffer | string>;

declare module 'fastify' {
  // Also declared by @fastify/compress's own types: the route option types here are member for
  // member the same as its own, so that a program may load both (a route inherits the plugin's
  // `cache`: that one is not a route option).
  interface RouteShorthandOptions<
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    RawServer extends RawServerBase = RawServerDefault,
  > {
    compress?: RouteCompressOptions | false;
    decompress?: RouteDecompressOptions | false;
  }

  interface FastifyReply {
    compress(input: Stream | CompressInput | Response | ReadableStream): void;
    sendFile(filename: string, rootPath?: string): FastifyReply;
    sendFile(filename: string, options?: SendOptions): FastifyReply;
    sendFile(filename: string, rootPath?: string, options?: SendOptions): FastifyReply;
    download(filepath: string, options?: SendOptions): FastifyReply;
    download(filepath: string, filename?: string): FastifyReply;
    download(filepath: string, filename?: string, options?: SendOptions): FastifyReply;
  }
}

type FastifyStaticPlugin = FastifyPluginAsync<NonNullable<FastifyStaticOptions>> & {
  default: FastifyStaticPlugin;
  fastifyStatic: FastifyStaticPlugin;
};
type FastifyEtagPlugin = FastifyPluginAsync<NonNullable<FastifyEtagOptions>> & {
  default: FastifyEtagPlugin;
  fastifyEtag: FastifyEtagPlugin;
};

type FastifyCompressPlugin = FastifyPluginAsync<NonNullable<FastifyCompressOptions>> & {
  default: FastifyCompressPlugin;
  fastifyCompress: FastifyCompressPlugin;
};

type FastifyCriticalCssOptions = import('../critical-css').CriticalCssOptions & {
  /** A CriticalCss to share (its options then apply). */
  criticalCss?: import('../critical-css').CriticalCss;
};
type FastifyCriticalCssPlugin = FastifyPluginAsync<FastifyCriticalCssOptions> & {
  default: FastifyCriticalCssPlugin;
  fastifyCriticalCss: FastifyCriticalCssPlugin;
};

export declare const fastifyStatic: FastifyStaticPlugin;
/** Inlines critical CSS into string and Buffer text/html payloads; register before fastifyCompress and fastifyEtag. */
export declare const fastifyCriticalCss: FastifyCriticalCssPlugin;
export declare const criticalCss: FastifyCriticalCssPlugin;
export declare const fastifyEtag: FastifyEtagPlugin;
export declare const fastifyCompress: FastifyCompressPlugin;
