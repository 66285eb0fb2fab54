'use strict';
// Server CPU per request of the whole-body stack on one held response: compression + a response
// cache miss (stored) + criticalCss + writeResponse, on the Bootstrap page of the critical-CSS
// tests (50 rows, Bootstrap 5 + Material azure-blue), a distinct URL per request, over the same
// route with none of them; and each stage alone, so that the stack's cost can be set against
// the sum of its stages (the glue). Each variant runs in its own server process pinned to CPU 1
// (the load on CPU 0), the variants interleaved round by round; `--lib <dir>` measures another
// checkout's lib/ (main, before the change). `--adapters`: the same stages from Koa's, Fastify's
// and Hono's own hooks instead, each over its framework's bare route: criticalCss in each, and
// Hono's compress on a page it leaves uncompressed (the request sends no Accept-Encoding).
// `hono:stack` / `fastify:stack`: the framework's compress, etag and criticalCss in the documented
// order (pick variants with `--variants hono:none,hono:stack`).
// `--hits`: one URL for every request, so the cache answers hits: the stack in the documented
// order and in the reverse one (criticalCss, responseCache, compression), the cache alone.
// `--koa`: Koa's whole stack in the documented order (conditional, compress, cache, etag,
// criticalCss) over Koa's bare route; with `--hits`, on one URL.
//   node bench/http/micro/held-response.js [--adapters | --koa | --hits] [--variants a,b]
//     [--lib /work/main/lib] [--rounds 5] [--requests 3000] [--warm 500] [--node-flags '<flags>']
const { spawn } = require('child_process');
const fs = require('fs');
const http = require('http');
const path = require('path');
const { PerformanceObserver } = require('perf_hooks');

// A package entry of `lib` (ssr-native/cache, /compression, /critical-css): in lib/express since
// the entries moved there, in lib/<name>/index.js in the checkouts before (--lib).
function entry(lib, name) {
  const moved = path.join(lib, 'express', `${name}.js`);
  return fs.existsSync(moved) ? moved : path.join(lib, name);
}

// what Chrome and Firefox send (compression 1.8 picks br from it, as ours does)
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

const VARIANTS = ['none', 'compression', 'cache', 'criticalCss', 'writeResponse', 'stack'];
const HIT_VARIANTS = ['none', 'cache', 'stack', 'stack-reverse'];
const KOA_VARIANTS = ['koa:none', 'koa:stack'];
// <framework>:<stage>; `identity`: the load sends no Accept-Encoding
const ADAPTER_VARIANTS = [
  'koa:none',
  'koa:criticalCss',
  'fastify:none',
  'fastify:criticalCss',
  'hono:none',
  'hono:criticalCss',
  'hono:none:identity',
  'hono:compress:identity',
];

// The bare route of `framework` sending the page, with `stage` from lib's adapter in front.
function adapterServer(lib, framework, stage, page, dist) {
  const pack = require(path.join(lib, framework));
  if (framework === 'koa') {
    const Koa = require('koa');
    const app = new Koa();
    if (stage === 'criticalCss') app.use(pack.criticalCss({ browserDistFolder: dist.dir }));
    if (stage === 'stack') {
      app.use(pack.conditional());
      app.use(pack.compress());
      app.use(pack.cache({ maxEntries: 256 }));
      app.use(pack.etag());
      app.use(pack.criticalCss({ browserDistFolder: dist.dir }));
    }
    app.use((ctx) => {
      ctx.type = 'html';
      ctx.set('Cache-Control', 'public, s-maxage=60');
      ctx.body = page;
    });
    return http.createServer(app.callback());
  }
  if (framework === 'hono') {
    const { Hono } = require('hono');
    const { getRequestListener } = require('@hono/node-server');
    const app = new Hono();
    if (stage === 'compress' || stage === 'stack') app.use('*', pack.compress());
    if (stage === 'stack') app.use('*', pack.etag());
    if (stage === 'criticalCss' || stage === 'stack') app.use('*', pack.criticalCss({ browserDistFolder: dist.dir }));
    app.get('*', (c) => c.html(page));
    return http.createServer(getRequestListener(app.fetch));
  }
  const Fastify = require('fastify');
  let handler;
  const app = Fastify({
    serverFactory: (h) => {
      handler = h;
      return http.createServer((req, res) => handler(req, res));
    },
  });
  if (stage === 'criticalCss' || stage === 'stack') app.register(pack.criticalCss, { browserDistFolder: dist.dir });
  if (stage === 'stack') app.register(pack.fastifyEtag).register(pack.fastifyCompress);
  // declared once the plugins have loaded (fastifyCompress hooks the routes declared after it)
  app.after(() => app.get('/*', async (req, reply) => reply.type('text/html').send(page)));
  const srv = app.server;
  srv.whenReady = app.ready();
  return srv;
}

// node:http with the whole-body stack (or one stage of it) in front of the route.
function stackServer(lib, variant, page, dist) {
  const { criticalCss } = require(entry(lib, 'critical-css'));
  const { writeResponse } = require(path.join(lib, 'angular'));
  const compression = require(entry(lib, 'compression'));
  const { responseCache } = require(entry(lib, 'cache'));
  const layers = [];
  const has = (name) => variant === name || variant.startsWith('stack');
  if (has('compression')) layers.push(compression());
  if (has('cache')) layers.push(responseCache({ maxEntries: 256 }));
  if (has('criticalCss')) layers.push(criticalCss({ browserDistFolder: dist.dir }));
  if (variant === 'stack-reverse') layers.reverse();
  const headers = { 'content-type': 'text/html;charset=UTF-8', 'cache-control': 'public, s-maxage=60' };
  const route = has('writeResponse')
    ? (req, res) => writeResponse(new Response(page, { headers }), req, res)
    : (req, res) => {
        res.writeHead(200, headers);
        res.end(page);
      };
  const chain = layers.concat(route);
  return http.createServer((req, res) => {
    let at = 0;
    const next = () => chain[at++](req, res, next);
    next();
  });
}

function server(lib, variant) {
  const { makeDistFolder, bootstrapPage } = require('../../../test/js/helpers/critical-css-pages');
  const dist = makeDistFolder();
  const page = bootstrapPage('everyone', 50);
  const [framework, stage] = variant.split(':');
  const srv =
    stage === undefined ? stackServer(lib, variant, page, dist) : adapterServer(lib, framework, stage, page, dist);
  srv.keepAliveTimeout = 60000;
  // CPU, and what does not depend on the machine's load: page faults and garbage collections
  let start;
  let faults;
  let gcs = 0;
  const gcObserver = new PerformanceObserver((list) => {
    gcs += list.getEntries().length;
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  process.on('message', (m) => {
    if (m === 'start') {
      start = process.cpuUsage();
      faults = process.resourceUsage().minorPageFault;
      gcs = 0;
    } else if (m === 'stop') {
      const used = process.cpuUsage(start);
      gcs += gcObserver.takeRecords().length;
      const cost = { cpu: used.user + used.system, faults: process.resourceUsage().minorPageFault - faults, gcs };
      process.send({ cost });
    } else if (m === 'exit') {
      dist.remove();
      process.exit(0);
    }
  });
  // Fastify's server answers once its plugins are loaded
  Promise.resolve(srv.whenReady).then(() =>
    srv.listen(0, '127.0.0.1', () => process.send({ port: srv.address().port })),
  );
}

function load(port, requests, tag, identity, hits) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  let sent = 0;
  let done = 0;
  return new Promise((resolve, reject) => {
    const one = () => {
      if (sent >= requests) return;
      const n = sent++;
      http
        .get(
          {
            port,
            host: '127.0.0.1',
            path: hits ? '/p/hit' : `/p/${tag}-${n}`,
            agent,
            headers: identity ? {} : { 'accept-encoding': BROWSER_ACCEPT_ENCODING },
          },
          (res) => {
            res.resume();
            res.on('end', () => {
              if (++done === requests) {
                agent.destroy();
                resolve();
              } else one();
            });
          },
        )
        .on('error', reject);
    };
    for (let i = 0; i < 4; i++) one();
  });
}

function message(child, type) {
  return new Promise((resolve) => child.once('message', (m) => (type in m ? resolve(m[type]) : undefined)));
}

async function measure(lib, variant, requests, warm, round, hits, nodeFlags) {
  const child = spawn('taskset', ['-c', '1', process.execPath, ...nodeFlags, __filename, '--serve', lib, variant], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await message(child, 'port');
  const identity = variant.endsWith(':identity');
  await load(port, warm, `warm${round}`, identity, hits); // compiles, memo, JIT, the heap's sizes
  child.send('start');
  await load(port, requests, `r${round}`, identity, hits);
  const cost = message(child, 'cost');
  child.send('stop');
  const used = await cost;
  child.send('exit');
  return { cpu: used.cpu / requests, faults: used.faults / requests, gcs: (used.gcs * 1000) / requests };
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === '--serve') return server(args[1], args[2]);
  const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const libs = opt('--lib', null)
    ? [path.join(__dirname, '../../../lib'), opt('--lib')]
    : [path.join(__dirname, '../../../lib')];
  const koa = args.includes('--koa');
  const adapters = args.includes('--adapters') || koa;
  const hits = args.includes('--hits');
  const variants =
    opt('--variants', null)?.split(',') ??
    (koa ? KOA_VARIANTS : adapters ? ADAPTER_VARIANTS : hits ? HIT_VARIANTS : VARIANTS);
  const rounds = Number(opt('--rounds', 5));
  const requests = Number(opt('--requests', 3000));
  // requests before the measured ones: the default warms the JIT; the young generation's
  // survivors per scavenge can take some thousands of requests more to settle (--warm 6000)
  const warm = Number(opt('--warm', Math.min(500, requests)));
  // flags for the servers' node (V8's: --no-allocation-site-pretenuring), space-separated
  const nodeFlags = opt('--node-flags', '').split(' ').filter(Boolean);
  const samples = {};
  const costs = {};
  for (let round = 0; round < rounds; round++) {
    // which checkout goes first alternates by round: on a loaded machine the first of a round
    // can be measured differently from the second
    for (const lib of round % 2 === 0 ? libs : libs.slice().reverse()) {
      for (const variant of variants) {
        const key = `${lib === libs[0] ? 'this' : 'other'} ${variant}`;
        const cost = await measure(lib, variant, requests, warm, round, hits, nodeFlags);
        (samples[key] = samples[key] || []).push(cost.cpu);
        (costs[key] = costs[key] || []).push(cost);
      }
    }
  }
  const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
  for (const which of libs.map((lib) => (lib === libs[0] ? 'this' : 'other'))) {
    const m = {};
    for (const v of variants) m[v] = median(samples[`${which} ${v}`]);
    console.log(`${which === 'this' ? 'this checkout' : opt('--lib')}: CPU us/request (median of ${rounds})`);
    // the figures the machine's load does not move (medians)
    const of = (v, field) => median(costs[`${which} ${v}`].map((cost) => cost[field]));
    const memory = variants.map((v) => `${v} ${of(v, 'faults').toFixed(2)}, ${of(v, 'gcs').toFixed(1)}`);
    console.log(`  page faults/request, GCs/1,000 requests: ${memory.join('; ')}`);
    if (adapters || variants[0].includes(':')) {
      // each stage over its own framework's bare route (same Accept-Encoding)
      const bare = (v) => v.replace(/:[^:]+(:identity)?$/, ':none$1');
      for (const v of variants) {
        const over = v === bare(v) ? '' : `  (+${(m[v] - m[bare(v)]).toFixed(1)} over ${bare(v)})`;
        console.log(`  ${v.padEnd(24)} ${m[v].toFixed(1)}${over}`);
      }
      continue;
    }
    const over = (v) => m[v] - m.none;
    if (hits) {
      for (const v of variants) console.log(`  ${v.padEnd(14)} ${m[v].toFixed(1)}  (+${over(v).toFixed(1)} over none)`);
      continue;
    }
    const sum = over('compression') + over('cache') + over('criticalCss') + over('writeResponse');
    for (const v of variants) console.log(`  ${v.padEnd(14)} ${m[v].toFixed(1)}  (+${over(v).toFixed(1)} over none)`);
    console.log(
      `  stack over none ${over('stack').toFixed(1)}; sum of stages alone ${sum.toFixed(1)}; ratio ${(over('stack') / sum).toFixed(3)}`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
