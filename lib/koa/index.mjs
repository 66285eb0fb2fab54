import koa from './index.js';

export const { etag, conditional, serve, send, compress, cache, criticalCss } = koa;
export default koa;
