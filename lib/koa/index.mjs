import koa from './koa.js';

export const { etag, conditional } = koa;
export default koa;
