'use strict';
// serve(root, options): a drop-in for koa-static 5 on Koa 2 and 3. koa-static's own part
// (options, GET/HEAD only, defer, 404s passed on to next()) around a FileSender, which is
// koa-send 5 over the native FileCache (lib/koa/send.js).
const assert = require('assert');
const { resolve } = require('path');
const { FileSender, cacheFor, SEND_OPTIONS } = require('./send');
const { peerOptions } = require('../options');

// koa-static 5's own option, then koa-send's it passes on (with ssr-native's); koa-static ignores
// other names, so they draw one warning (lib/options.js)
const SERVE_OPTIONS = ['defer', ...SEND_OPTIONS];

function serve(root, options) {
  peerOptions(options, SERVE_OPTIONS, 'serve(root, options)');
  const opts = Object.assign({}, options);
  assert(root, 'root directory is required to serve files');
  opts.root = resolve(root);
  if (opts.index !== false) opts.index = opts.index || 'index.html';
  const sender = new FileSender(opts, cacheFor(opts, opts.root));

  // koa-static: send(), and next() unless it answered; a 404 from send() is not an error
  async function sendOrNext(ctx, next, urlPath, bits) {
    let done;
    try {
      done = await sender.send(ctx, urlPath, bits);
    } catch (err) {
      if (err.status !== 404) throw err;
    }
    if (!done) await next();
  }

  const middleware = opts.defer
    ? async function serve(ctx, next) {
        await next();
        if (ctx.method !== 'HEAD' && ctx.method !== 'GET') return;
        // response is already handled
        if (ctx.body != null || ctx.status !== 404) return;
        const bits = sender.encodingBits(ctx);
        const urlPath = ctx.path;
        const sent = sender.sendRemembered(ctx, urlPath, bits);
        if (sent) return sent === true ? undefined : sent;
        try {
          await sender.send(ctx, urlPath, bits);
        } catch (err) {
          if (err.status !== 404) throw err;
        }
      }
    : function serve(ctx, next) {
        const method = ctx.method;
        if (method !== 'HEAD' && method !== 'GET') return next();
        const bits = sender.encodingBits(ctx);
        const urlPath = ctx.path;
        // a remembered file is answered synchronously: no promise, no system call
        const sent = sender.sendRemembered(ctx, urlPath, bits);
        if (sent) return sent === true ? undefined : sent;
        return sendOrNext(ctx, next, urlPath, bits);
      };

  middleware.cache = sender.cache;
  middleware.dictionary = sender.assets;
  // the cache's counters, and how many URL paths are remembered (bounded: MAX_ROUTES)
  middleware.stats = () => ({ ...sender.cache.stats(), routes: sender.routes.size });
  middleware.close = () => sender.cache.close();
  return middleware;
}

module.exports = { serve };
