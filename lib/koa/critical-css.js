'use strict';
// criticalCss(options) for Koa 2/3: after the routes below it, an HTML body held whole (a string
// or a Buffer: ctx.body = html, serve() from memory) gets its critical CSS inlined, and a new
// ETag when it had one. Mount it after compress(), etag() and cache() (they then see the inlined
// page) and before the routes. A stream body goes out as it is.
const { CriticalCss } = require('../critical-css/critical-css');
const { headFrom, wantsInlining, inlineWhole, exposeEngine } = require('../critical-css/whole-body');

function criticalCss(options) {
  const engine = CriticalCss.of(options);
  async function criticalCssMiddleware(ctx, next) {
    await next();
    const body = ctx.body;
    if (typeof body !== 'string' && !Buffer.isBuffer(body)) return;
    const response = ctx.response;
    const head = headFrom(ctx.method, ctx.status, (name) => response.get(name));
    if (!wantsInlining(head)) return;
    const done = await inlineWhole(engine, body, head);
    if (done === null) return;
    ctx.body = done.body;
    if (done.tag !== undefined) response.set('ETag', done.tag);
  }
  return exposeEngine(criticalCssMiddleware, engine);
}

module.exports = { criticalCss };
