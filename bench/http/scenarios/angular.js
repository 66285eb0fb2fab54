'use strict';
// Angular SSR (the Angular 21 app in test/fixtures/angular-app): the stock servers against the
// same servers wired to ssr-native, for a CommonEngine server (prerendered route, server-rendered
// route, static asset) and an AngularNodeAppEngine server (server-rendered route, static asset).
//
// The servers run the built app. `cases` is a getter so that only running this scenario prepares
// the fixture: when it is not built, it is installed (npm ci + the packed ssr-native) and built
// here (a few minutes); when that fails, the scenario is skipped with a line saying how to build.
const fs = require('fs');
const path = require('path');
const fixture = require('../../../scripts/angular-fixture');

const zlib = require('zlib');

const script = path.join(__dirname, '..', 'servers', 'angular.js');
const staticScript = path.join(__dirname, '..', 'servers', 'static.js');
const writerScript = path.join(__dirname, '..', 'servers', 'angular-writer.js');
// Rendering takes milliseconds of CPU per page: few connections keep latency sane.
const RENDER_CONNECTIONS = 4;
const server = (name, label, extra = {}) => ({ name: label, script, env: { ANGULAR_SERVER: name }, ...extra });
// The same file from the same folder with the same options, on a plain Express 5 app (the static
// middleware, then one JSON route): the gain serveStatic shows there is the static target, and
// measuring it in the same interleaved rounds makes the two gains comparable.
const PLAIN_STOCK = 'plain Express + express.static';
const plainExpress = (impl, label) => ({
  name: label,
  script: staticScript,
  env: { STATIC_FRAMEWORK: 'express', STATIC_IMPL: impl, STATIC_ROOT: fixture.BROWSER, STATIC_API: '1' },
});
const plainPair = [
  plainExpress('serve-static', PLAIN_STOCK),
  plainExpress('ssr-native', 'plain Express + serveStatic'),
];
const PLAIN_NOTE = `express.static vs serveStatic. The plain Express rows serve the same file (same options) from an app with nothing else in it; the "vs ${PLAIN_STOCK}" column of "plain Express + serveStatic" is the gain on plain Express, measured in the same rounds.`;

// null when the fixture is built (building it here if needed), else why it could not be.
let whyNot;
function prepare() {
  if (whyNot !== undefined) return whyNot;
  whyNot = null;
  if (fixture.isBuilt()) return whyNot;
  try {
    fixture.log('the fixture app is not built: installing and building it (npm run test:angular does the same)');
    if (!fixture.isInstalled()) fixture.install();
    fixture.build();
  } catch (err) {
    whyNot =
      `could not build test/fixtures/angular-app (${err.message.split('\n')[0]}); ` +
      'build it with `npm run test:angular` (or `npm ci && npm i --no-save <ssr-native tarball> && npx ng build` there)';
  }
  return whyNot;
}

function cases() {
  if (prepare()) return [];
  const asset = '/favicon.ico';
  const assetKb = Math.round(fs.statSync(path.join(fixture.BROWSER, 'favicon.ico')).size / 1024);
  const page = fs.readFileSync(path.join(fixture.BROWSER, 'index.html'));
  const pageTag = `W/"${page.length.toString(16)}-${zlib.crc32(page).toString(16).padStart(8, '0')}"`;
  const common = [
    server('stock-common-engine', 'CommonEngine (stock)', { baseline: true }),
    server('common-engine', 'CommonEngine + ssr-native'),
  ];
  const appEngine = [
    server('stock-app-engine', 'AppEngine + writeResponseToNodeResponse (stock)', { baseline: true }),
    server('app-engine', 'AppEngine + ssr-native writeResponse'),
  ];
  return [
    {
      name: 'CommonEngine, prerendered route GET /about (21 KB)',
      request: { path: '/about' },
      variants: common,
      notes: [
        'stock: fs.promises.readFile of browser/about/index.html per request; ssr-native: cacheCommonEngine (from memory), CRC-32 ETag.',
      ],
    },
    {
      name: 'CommonEngine, server-rendered route GET /live',
      request: { path: '/live' },
      connections: RENDER_CONNECTIONS,
      variants: common,
      notes: ['Rendering is untouched; the difference is the ETag function (SHA-1 vs CRC-32) and the SSG lookup.'],
    },
    {
      name: `CommonEngine, static asset GET ${asset} (${assetKb} KB)`,
      request: { path: asset },
      variants: [...common, ...plainPair],
      reference: PLAIN_STOCK,
      notes: [PLAIN_NOTE],
    },
    {
      name: 'AppEngine, server-rendered route GET /live',
      request: { path: '/live' },
      connections: RENDER_CONNECTIONS,
      variants: appEngine,
      notes: [
        'ssr-native adds a CRC-32 ETag (and 304s) to server-rendered HTML; target: at most 5% more server CPU per request.',
      ],
    },
    {
      name: `AppEngine response writer alone: a ${Math.round(page.length / 1024)} KB server-rendered page, no rendering`,
      request: { path: '/' },
      variants: [
        {
          name: 'writeResponseToNodeResponse (stock)',
          script: writerScript,
          env: { ANGULAR_WRITER: 'stock' },
          baseline: true,
        },
        { name: 'ssr-native writeResponse', script: writerScript, env: { ANGULAR_WRITER: 'ssr-native' } },
        {
          name: 'ssr-native writeResponse, If-None-Match -> 304',
          script: writerScript,
          env: { ANGULAR_WRITER: 'ssr-native' },
          request: { path: '/', headers: { 'if-none-match': pageTag } },
          expectNon2xx: true,
        },
      ],
      notes: [
        'The AppEngine Response of a server-rendered page, written by each function: the CPU difference per request is what the ETag costs, to set against the CPU of rendering the page (the case above).',
      ],
    },
    {
      name: `AppEngine, static asset GET ${asset} (${assetKb} KB)`,
      request: { path: asset },
      variants: [...appEngine, ...plainPair],
      reference: PLAIN_STOCK,
      notes: [PLAIN_NOTE],
    },
  ];
}

let memo;
module.exports = {
  name: 'angular',
  order: 2,
  headline: 'CommonEngine, server-rendered route GET /live',
  question:
    'Angular 21 SSR: requests/s of the stock CommonEngine and AppEngine servers vs the same wired to ssr-native.',
  rounds: 6,
  seconds: 3,
  skip: prepare,
  get cases() {
    if (memo === undefined) memo = cases();
    return memo;
  },
};
