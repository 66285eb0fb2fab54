import koa from './index.js';

export const { etag, conditional, serve, send } = koa;
export default koa;
