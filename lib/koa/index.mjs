import koa from './index.js';

export const { etag, conditional, serve, send, cache } = koa;
export default koa;
