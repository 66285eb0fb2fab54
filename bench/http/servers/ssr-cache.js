'use strict';
// Express 5 with a synthetic server-rendered route (about 10 ms of CPU to render a 20 KB page,
// the order of an Angular SSR render measured on this machine), with or without a response cache.
// CACHE_MODE: none (stock), ssr-native (responseCache), map (a plain JS Map<url, string> in
// front, the naive cache the heap test compares against), empty (a middleware that only calls
// next(): what any middleware at the cache's place costs). REDIS_PORT (ssr-native only): one
// process of a fleet, with an ioredis client to that Redis as the shared store (CACHE_PREFIX
// its keys' prefix) and the Host left out of keys, as every process of a fleet serves one site.
// Routes:
//   /page/<id>     cacheable (public, s-maxage=600), rendered at a cost
//   /mix/<n>       90% one of MIX_URLS (1,000) warm /page URLs, 10% a URL never seen (a miss): picked here
//                  from a seeded generator, since the load generator sends one fixed path
//   /uncacheable   a cheap private page (what the middleware costs a route it must pass)
//   /asset.html    a 20 KB file from express.static; /native/asset.html from ssr-native serveStatic
//   /heap/<id>/<n> one of HEAP_PAGES pre-stored pages (n modulo that; autocannon's [<id>] is
//                  "<hyperid base>/<counter>")
//   /purge?url=    the cache's purge(url), answered once the shared store is told
//   /stats         renders, cache stats, memory (after a full GC)
const fs = require('fs');
const os = require('os');
const path = require('path');
const express = require('express');
const { responseCache } = require('../../../lib/express/cache');
const { serveStatic } = require('../../..');
const { listen } = require('../lib/server');
const { redisClient } = require('../lib/redis');
const { renderPage } = require('../lib/page');

const mode = process.env.CACHE_MODE || 'none';
const RENDER_MS = Number(process.env.RENDER_MS || 10);
const PAGE_BYTES = 20 * 1024;
const HEAP_PAGES = Number(process.env.HEAP_PAGES || 0);
const MIX_URLS = Number(process.env.MIX_URLS || 1000);
const REDIS_PORT = process.env.REDIS_PORT ? Number(process.env.REDIS_PORT) : undefined;
const page = renderPage(PAGE_BYTES);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-cache-bench-'));
fs.writeFileSync(path.join(dir, 'asset.html'), page);
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));

let renders = 0;
// CPU time, not wall time: on a shared machine a render costs the same CPU however long it takes
function burn(ms) {
  const start = process.cpuUsage();
  let x = 0;
  for (;;) {
    for (let i = 0; i < 20000; i++) x = (x * 31 + i) | 0;
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) return x;
  }
}

// mulberry32: the same seeded sequence each run
let seed = 42;
function random() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
let fresh = 0;

const app = express();
app.set('etag', false);
app.use('/mix', (req, res, next) => {
  req.url = random() < 0.9 ? `/page/${Math.floor(random() * MIX_URLS)}` : `/page/new-${process.pid}-${fresh++}`; // a miss in the fleet too
  req.originalUrl = req.url;
  app.handle(req, res, next);
});
app.use('/heap', (req, res, next) => {
  const n = Number(req.url.slice(req.url.lastIndexOf('/') + 1)) || 0;
  req.url = req.originalUrl = `/page/${n % Math.max(1, HEAP_PAGES)}`;
  app.handle(req, res, next);
});
// A full GC before memory is read, without a command-line flag (the runner starts plain node).
// Bun (JavaScriptCore) has no V8 flags: its own Bun.gc(true) is a synchronous full collection.
function fullGcFunction() {
  if (typeof Bun !== 'undefined') return () => globalThis.Bun.gc(true);
  require('v8').setFlagsFromString('--expose-gc');
  return require('vm').runInNewContext('gc');
}
const fullGc = fullGcFunction();
app.get('/stats', (req, res) => {
  fullGc();
  res.json({
    renders,
    cache: cache ? cache.stats() : null,
    memory: process.memoryUsage(),
    mapEntries: map ? map.size : 0,
  });
});
app.get('/purge', async (req, res) => res.json({ dropped: await cache.purge(String(req.query.url)) }));
app.use(express.static(dir));
app.use('/native', serveStatic(dir));

let cache;
let map;
const cacheOptions = { maxBytes: 2 * 1024 * 1024 * 1024, maxEntries: 200_000 };
if (mode === 'ssr-native' && REDIS_PORT !== undefined) {
  // mounted here, made once the client is connected (below), before the server listens
  app.use((req, res, next) => cache(req, res, next));
} else if (mode === 'ssr-native') {
  // the heap test stores its pages before the port (part of the key by default) is known
  cache = responseCache({
    ...cacheOptions,
    // one site on loopback: any Host (the port, which allowedHosts entries must spell, is not known yet)
    ...(HEAP_PAGES === 0 ? {} : { host: false, allowedHosts: ['*'] }),
  });
  app.use(cache);
} else if (mode === 'empty') {
  app.use((req, res, next) => next()); // what any middleware at the cache's place costs Express
} else if (mode === 'map') {
  map = new Map();
  app.use((req, res, next) => {
    const hit = map.get(req.url);
    if (hit !== undefined) return res.set('Cache-Control', 'public, s-maxage=600').type('html').send(hit);
    const send = res.send;
    res.send = function (body) {
      if (typeof body === 'string' && res.statusCode === 200) map.set(req.url, body);
      return send.call(this, body);
    };
    next();
  });
}

app.get('/page/:id', (req, res) => {
  renders++;
  burn(RENDER_MS);
  res.set('Cache-Control', 'public, s-maxage=600, stale-while-revalidate=600');
  res.type('html').send(`${page.slice(0, -20)}<!--${req.params.id}-->${page.slice(-20)}`);
});
app.get('/uncacheable', (req, res) => {
  res.set('Cache-Control', 'private, no-store');
  res.type('html').send(page);
});

// The heap test's pages, stored before the server listens: through the same engine calls a
// miss makes (ssr-native) or straight into the Map, as each would hold them.
if (HEAP_PAGES > 0) {
  const headers = { 'cache-control': 'public, s-maxage=600', 'content-type': 'text/html; charset=utf-8' };
  for (let i = 0; i < HEAP_PAGES; i++) {
    // a distinct string per page, as renders produce
    const html = Buffer.from(`${page.slice(0, -20)}<!--${i}-->${page.slice(-20)}`).toString(); // flat, not a rope over `page`
    if (cache) {
      const d = cache.engine.begin({ method: 'GET', url: `/page/${i}`, headers: { host: 'localhost' } });
      if (d.action === 'fill')
        cache.engine.store(d.fill, cache.engine.admit(d.fill, 200, headers), headers, Buffer.from(html));
    } else if (map) {
      map.set(`/page/${i}`, html);
    }
  }
}

if (REDIS_PORT === undefined) listen(require('http').createServer(app));
else
  redisClient('ioredis', REDIS_PORT).then((store) => {
    cache = responseCache({
      ...cacheOptions,
      host: false, // the two processes listen on different ports: one site
      // each on an ephemeral port, which allowedHosts entries must spell: any Host, on loopback
      allowedHosts: ['*'],
      store,
      storeOptions: { prefix: process.env.CACHE_PREFIX },
    });
    listen(require('http').createServer(app));
  });
