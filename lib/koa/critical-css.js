'use strict';
// criticalCss(options) for Koa 2/3: after the routes below it, an HTML body held whole (a string
// or a Buffer: ctx.body = html, serve() from memory) goes through the critical-CSS stage (the
// same as Express's, lib/critical-css/stage.js): its critical CSS inlined, and a new ETag when
// it had one. Mount it after compress(), etag() and cache() (they then see the inlined page) and
// before the routes. A stream body goes out as it is.
const { CriticalCss } = require('../critical-css/critical-css');
const { wantsInlining, inlineWhole, passedThrough, exposeEngine } = require('../critical-css/stage');

function criticalCss(options) {
  const engine = CriticalCss.of(options);
  async function criticalCssMiddleware(ctx, next) {
    await next();
    const body = ctx.body;
    const res = ctx.res; // Koa 2's response.get() copies every header on each call
    if (
      (typeof body !== 'string' && !Buffer.isBuffer(body)) ||
      !wantsInlining(ctx.method, ctx.status, res.getHeader('Content-Type'), res.getHeader('Content-Encoding'))
    ) {
      passedThrough(engine);
      return;
    }
    // Koa keeps the headers on ctx.res: the stage reads and sets them there
    const inlined = await inlineWhole(engine, res, ctx.method, body);
    if (inlined !== null) ctx.body = inlined;
  }
  return exposeEngine(criticalCssMiddleware, engine);
}

module.exports = { criticalCss };
