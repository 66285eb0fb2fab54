// Compile-only: ssr-native handed to Express and Koa as their own type declarations see them
// (@types/express 5 / @types/koa 3 by tsconfig.frameworks.json, Express 4 / Koa 2 by
// tsconfig.legacy.json). The other usage files check our declarations alone; this checks that a
// TypeScript app can pass each middleware and the etag fn where the framework expects them.
import express = require('express');
import Koa = require('koa');
import { etag, serveStatic, FileCache } from 'ssr-native';
import koa = require('ssr-native/koa');
import argon2 = require('ssr-native/argon2');
import { writeResponse } from 'ssr-native/angular';
import { responseCache } from 'ssr-native/cache';

const cache = new FileCache({ maxBytes: 64 * 1024 * 1024 });
const app = express();
app.set('etag', etag);
app.use(responseCache({ maxEntries: 1000 }));
app.use(serveStatic('public', { maxAge: '1d', cache }));
app.use('/assets', serveStatic('assets', { fallthrough: false, setHeaders: (res) => res.setHeader('X-Static', '1') }));
app.post('/register', async (req, res) => {
  res.json({ hash: await argon2.hash(String(req.body)) });
});
app.get('/page', async (req, res) => {
  await writeResponse(new Response('<p>page</p>', { headers: { 'content-type': 'text/html' } }), req, res);
});
app.use(argon2.expressErrorHandler());

const server = new Koa();
server.use(koa.cache({ maxEntries: 1000 }));
server.use(koa.conditional());
server.use(koa.etag({ weak: true }));
const assets = koa.serve('public', { maxage: 60000, cache, dictionary: true });
server.use(assets);
const assetHits: number | undefined = assets.dictionary?.stats().hits;
server.use(async (ctx, next) => {
  const sent = await koa.send(ctx, ctx.path, { root: 'public', index: 'index.html', dictionary: { level: 6 } });
  if (sent === undefined) await next();
});
server.use(argon2.koaMiddleware());

// @ts-expect-error serveStatic is connect-style (req, res, next), not Koa middleware
server.use(serveStatic('public'));

export { app, server };
