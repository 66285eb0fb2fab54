import koa from './index.js';

export const { etag, conditional, serve, send, compress } = koa;
export default koa;
