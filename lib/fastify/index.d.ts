// ssr-native/fastify: drop-ins for @fastify/static 10.1 and @fastify/etag 6.2 (Fastify 4 and 5).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { Stats } from 'fs';
import type { FileCache } from '../static/index';

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

export interface FastifyStaticOptions extends SendOptions {
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
  /** ssr-native: one FileCache shared with other mounts; or the bounds of this plugin's own. */
  cache?: FileCache;
  maxBytes?: number;
  maxFileSize?: number;
}

export interface FastifyEtagOptions {
  /** Accepted for compatibility; the tag is always the CRC-32 of the payload. */
  algorithm?: string;
  /** Accepted for compatibility; ignored (the native CRC-32 is used). */
  hashFn?: (payload: string | Buffer) => string;
  weak?: boolean;
  replyWith304?: boolean;
}

declare module 'fastify' {
  interface FastifyReply {
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

export declare const fastifyStatic: FastifyStaticPlugin;
export declare const fastifyEtag: FastifyEtagPlugin;
