'use strict';
// One build of the Angular 22 fixture (test/fixtures/angular22-app) for the angular22 scenario,
// run under Node 24 (Angular 22 refuses Node 20). ANGULAR22_DIST is the build's folder:
//   dist/angular22-app     the README's server.ts (ssr-native), built with inlineCritical off
//   dist/angular22-stock   `ng new`'s server.ts (express.static, writeResponseToNodeResponse),
//                          built with inlineCritical on: AppEngine inlines critical CSS itself
// Both bundles export `reqHandler` (createNodeRequestHandler(app)) and listen only when run as
// the main module, so importing one gives the app without its listener.
// ANGULAR22_NO_CRITICAL_CSS=1 (stock build only) empties the build's criticalCssPlans before the
// app loads: AppEngine then skips its runtime (`if (!criticalCssPlans?.length) return html`),
// which leaves the same server without critical CSS, to measure that step's share.
const http = require('http');
const path = require('path');
const { pathToFileURL } = require('url');
const { listen } = require('../lib/server');

async function main() {
  const dist = process.env.ANGULAR22_DIST;
  if (!dist) throw new Error('ANGULAR22_DIST must name a build of test/fixtures/angular22-app');
  const server = path.join(dist, 'server');
  if (process.env.ANGULAR22_NO_CRITICAL_CSS === '1') {
    const manifest = (await import(pathToFileURL(path.join(server, 'angular-app-manifest.mjs')).href)).default;
    if (!Array.isArray(manifest.criticalCssPlans) || manifest.criticalCssPlans.length === 0)
      throw new Error(`${dist} has no criticalCssPlans: not a build with inlineCritical on`);
    manifest.criticalCssPlans.splice(0);
  }
  const { reqHandler } = await import(pathToFileURL(path.join(server, 'server.mjs')).href);
  listen(http.createServer(reqHandler));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
