'use strict';
// One of the Angular fixture's servers (test/fixtures/angular-app, built) for the `angular`
// scenario. ANGULAR_SERVER: app-engine | stock-app-engine | common-engine | stock-common-engine
// (see the fixture's src/server.ts and src/servers/*.ts).
const http = require('http');
const { pathToFileURL } = require('url');
const { SERVER_BUNDLE } = require('../../../scripts/angular-fixture');
const { listen } = require('../lib/server');

const FACTORIES = {
  'app-engine': (bundle) => bundle.app,
  'stock-app-engine': (bundle) => bundle.stockAppEngineApp(),
  'common-engine': (bundle) => bundle.commonEngineApp(),
  'stock-common-engine': (bundle) => bundle.stockCommonEngineApp(),
};

async function main() {
  const factory = FACTORIES[process.env.ANGULAR_SERVER];
  if (!factory) throw new Error(`ANGULAR_SERVER must be one of ${Object.keys(FACTORIES).join(', ')}`);
  const bundle = await import(pathToFileURL(SERVER_BUNDLE).href);
  listen(http.createServer(factory(bundle)));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
