/// <reference types="node" />

/** The Koa context, as far as these middleware use it (Koa 2 and 3). */
export interface KoaLikeContext {
  body: unknown;
  status: number;
  fresh: boolean;
  response: { get(field: string): string; etag: string };
}
export type KoaMiddleware = (ctx: KoaLikeContext, next: () => Promise<unknown>) => Promise<void>;

export interface KoaEtagOptions {
  /** Force weak (true) or strong (false) tags; by default bodies get strong tags, file streams weak ones. */
  weak?: boolean;
}

/** Drop-in for koa-etag 5, hashing with CRC-32. */
export function etag(options?: KoaEtagOptions): KoaMiddleware;

/** Drop-in for koa-conditional-get 3: answers 304 when the request is fresh. */
export function conditional(): KoaMiddleware;

declare const koa: { etag: typeof etag; conditional: typeof conditional };
export default koa;
