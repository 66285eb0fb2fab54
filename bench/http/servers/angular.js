'use strict';
// One of the Angular fixture's servers (test/fixtures/angular-app, built) for the `angular` and
// `ssr-cache` scenarios. ANGULAR_SERVER: app-engine | stock-app-engine | common-engine |
// stock-common-engine (see the fixture's src/server.ts and src/servers/*.ts); for the
// critical-css scenario: stock-common-engine-no-inline (render() with inlineCriticalCss: false),
// and stock-common-engine-critical-css / stock-app-engine-critical-css (inlining off, and
// ssr-native's criticalCss in front of the stock server, nothing else of ssr-native).
// ANGULAR_MIX_URLS=<n> adds, in front of the app:
//   /mix            90% one of n product pages (/products/0 .. n-1), 10% a product page never
//                   asked before (a miss), picked here from a seeded generator, since the load
//                   generator sends one fixed path
//   /__bench/stats  the response cache's stats() (null on the stock servers)
const http = require('http');
const { pathToFileURL } = require('url');
const { SERVER_BUNDLE } = require('../../../scripts/angular-fixture');
const { listen } = require('../lib/server');

const FACTORIES = {
  'app-engine': (bundle) => bundle.app,
  'stock-app-engine': (bundle) => bundle.stockAppEngineApp(),
  'common-engine': (bundle) => bundle.commonEngineApp(),
  'stock-common-engine': (bundle) => bundle.stockCommonEngineApp(),
  'stock-common-engine-no-inline': (bundle) => bundle.stockCommonEngineApp({ inlineCriticalCss: false }),
  'stock-common-engine-critical-css': (bundle) =>
    withCriticalCss(bundle.stockCommonEngineApp({ inlineCriticalCss: false })),
  'stock-app-engine-critical-css': (bundle) => withCriticalCss(bundle.stockAppEngineApp()),
};

// criticalCss in front of a stock app (what a user adds to the generated server.ts)
function withCriticalCss(app) {
  const { criticalCss } = require('../../../lib/express/critical-css');
  const { BROWSER } = require('../../../scripts/angular-fixture');
  const middleware = criticalCss({ browserDistFolder: BROWSER });
  const handler = (req, res) => middleware(req, res, () => app(req, res));
  handler.locals = app.locals;
  return handler;
}

// mulberry32: the same seeded sequence each run
function seeded(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function withMix(app, urls) {
  const random = seeded(42);
  let fresh = 0;
  return (req, res) => {
    if (req.url === '/mix') {
      req.url = random() < 0.9 ? `/products/${Math.floor(random() * urls)}` : `/products/new-${fresh++}`;
    } else if (req.url === '/__bench/stats') {
      const cache = app.locals.responseCache;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(cache ? cache.stats() : null));
      return;
    }
    app(req, res);
  };
}

async function main() {
  const factory = FACTORIES[process.env.ANGULAR_SERVER];
  if (!factory) throw new Error(`ANGULAR_SERVER must be one of ${Object.keys(FACTORIES).join(', ')}`);
  const bundle = await import(pathToFileURL(SERVER_BUNDLE).href);
  const app = factory(bundle);
  const mixUrls = Number(process.env.ANGULAR_MIX_URLS || 0);
  listen(http.createServer(mixUrls > 0 ? withMix(app, mixUrls) : app));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
