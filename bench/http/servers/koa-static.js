'use strict';
// Static files over Koa 3.
//   KOA_STATIC_IMPL: koa-static (koa-static 5 + koa-etag 5 + koa-conditional-get 3: what a Koa
//                    app serving files with ETags and 304s runs today) |
//                    koa-static-cache (koa-static-cache 5 with buffer: true: its fastest setting,
//                    every file in the V8 heap; it makes its own MD5 ETags and 304s) |
//                    ssr-native (ssr-native/koa serve() + etag() + conditional()) |
//                    memory (a bare handler answering one preloaded Buffer: Koa's ceiling)
//   STATIC_ROOT:     directory to serve (required)
const fs = require('fs');
const http = require('http');
const path = require('path');
const Koa = require('koa');
const { listen } = require('../lib/server');

const impl = process.env.KOA_STATIC_IMPL || 'koa-static';
const root = process.env.STATIC_ROOT;
if (!root) throw new Error('STATIC_ROOT is required');

const app = new Koa();
app.silent = true;
if (impl === 'koa-static') {
  // koa-etag prints a deprecation notice each time etag() is called
  const warn = console.warn;
  console.warn = () => {};
  const koaEtagMiddleware = require('koa-etag').default();
  console.warn = warn;
  app.use(require('koa-conditional-get')());
  app.use(koaEtagMiddleware);
  app.use(require('koa-static')(root));
} else if (impl === 'koa-static-cache') {
  app.use(require('koa-static-cache')(root, { buffer: true }));
} else if (impl === 'ssr-native') {
  // STATIC_LIB: another checkout's lib/ (a before/after run), else this checkout's
  const { serve, etag, conditional } = require(
    path.join(process.env.STATIC_LIB || path.join(__dirname, '../../../lib'), 'koa'),
  );
  app.use(conditional());
  app.use(etag());
  app.use(serve(root));
} else if (impl === 'memory') {
  const files = new Map();
  for (const name of fs.readdirSync(root)) files.set('/' + name, fs.readFileSync(path.join(root, name)));
  app.use((ctx, next) => {
    const body = files.get(ctx.path);
    if (body === undefined) return next();
    ctx.type = 'js';
    ctx.body = body;
    return undefined;
  });
} else {
  throw new Error(`unknown KOA_STATIC_IMPL ${impl}`);
}
listen(http.createServer(app.callback()));
