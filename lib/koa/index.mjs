import koa from './index.js';

export const { etag, conditional, serve, send, compress, cache } = koa;
export default koa;
