import koa from './index.js';

export const { etag, conditional, serve } = koa;
export default koa;
