'use strict';
// criticalCss(options) for Koa 2/3: an HTML body held whole (a string or a Buffer: ctx.body =
// html, serve() from memory) goes through the critical-CSS stage (the same as Express's,
// lib/critical-css/stage.js): its critical CSS inlined, and a new ETag when it had one. It is the
// first stage of the Koa pipeline (pipeline.js): etag(), cache() and compress() see the inlined
// page wherever they are mounted; a cache hit is not inlined again. A stream body goes out as it is.
const { CriticalCss } = require('../critical-css/critical-css');
const { wantsInlining, inlineWhole, passedThrough, exposeEngine } = require('../critical-css/stage');
const { aroundNext } = require('./pipeline');

function criticalCss(options) {
  const engine = CriticalCss.of(options);
  const stage = {
    place: 'critical-css',
    run(ctx) {
      const body = ctx.body;
      const res = ctx.res; // Koa 2's response.get() copies every header on each call
      if (
        (typeof body !== 'string' && !Buffer.isBuffer(body)) ||
        !wantsInlining(undefined, ctx.status, res.getHeader('Content-Type'), res.getHeader('Content-Encoding'))
      ) {
        passedThrough(engine);
        return undefined;
      }
      // A HEAD whose route gave the page (Koa sends no body) is inlined as its GET: the same ETag
      // and Content-Length. Koa keeps the headers on ctx.res: the stage reads and sets them there.
      return inlineWhole(engine, res, ctx.method, body).then((inlined) => {
        if (inlined !== null) ctx.body = inlined;
      });
    },
  };
  function criticalCssMiddleware(ctx, next) {
    return aroundNext(ctx, next, stage);
  }
  return exposeEngine(criticalCssMiddleware, engine);
}

module.exports = { criticalCss };
