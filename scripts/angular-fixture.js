'use strict';
// Prepares a fixture app the way a user's project gets ssr-native: `npm ci` of the app's own lock
// file, then the packed ssr-native tarball installed like any package (its install script uses
// the prebuild, or builds the addon), then `ng build` (which prerenders in worker threads that
// load the server bundle, and so the addon). Two apps:
//   - test/fixtures/angular-app: Angular 21, on the Node running this script (module.exports);
//   - test/fixtures/angular22-app: Angular 22 as `ng new --ssr` makes it, its server.ts the
//     README's, installed, built and served with Node 24 from scripts/runtimes.js, as Angular 22
//     refuses Node 20 (module.exports.angular22).
// Used by scripts/test-angular.js, scripts/test-angular22.js and the angular benchmarks.
const { execFileSync, spawn } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const { freshBinary } = require('./prebuild');

const ROOT = path.resolve(__dirname, '..');
const APP = path.join(ROOT, 'test', 'fixtures', 'angular-app');
const DIST = path.join(APP, 'dist', 'angular-app');
const BROWSER = path.join(DIST, 'browser');
const SERVER_BUNDLE = path.join(DIST, 'server', 'server.mjs');
const SERVERS = ['app-engine', 'common-engine', 'stock-app-engine', 'stock-common-engine'];

function log(message) {
  console.log(`angular: ${message}`);
}

// The environment for a fixture's npm and ng under `nodeBin` (undefined: this Node): its folder
// first on PATH, so npm's and ng's `#!/usr/bin/env node` run that Node.
function envFor(nodeBin, extra = {}) {
  const env = { ...process.env, ...extra };
  if (nodeBin) env.PATH = `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH}`;
  return env;
}

function npm(args, cwd, nodeBin) {
  execFileSync('npm', args, {
    cwd,
    stdio: 'inherit',
    env: envFor(nodeBin, { npm_config_audit: 'false', npm_config_fund: 'false' }),
  });
}

function timed(label, fn) {
  const start = process.hrtime.bigint();
  const result = fn();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  log(`${label}: ${seconds.toFixed(1)} s`);
  return { result, seconds };
}

// The fixture runs on this machine only, so its tarball needs this machine's prebuild alone:
// `npm pack` would also rebuild it from scratch and cross-compile linux-arm64 (prepack), which
// doubles the fixture's first build. An addon built after the last source change is reused.
function packForThisMachine(packDir) {
  const built = freshBinary(path.join(ROOT, 'build', 'Release', 'ssr_native.node'));
  const prebuild = [path.join(__dirname, 'prebuild.js')];
  if (built) prebuild.push('--binary', built);
  execFileSync(process.execPath, prebuild, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return execFileSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', packDir], {
    cwd: ROOT,
    encoding: 'utf8',
  });
}

// One tarball per process: both fixtures install the same package (removed at exit).
let packed;
function tarballOnce() {
  if (packed) return { path: packed, seconds: 0 };
  const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-pack-'));
  process.once('exit', () => fs.rmSync(packDir, { recursive: true, force: true }));
  const pack = timed('npm pack', () => packForThisMachine(packDir));
  packed = path.join(packDir, pack.result.trim().split('\n').pop());
  return { path: packed, seconds: pack.seconds };
}

/** npm ci + the packed ssr-native in `app` (with `nodeBin`); returns the seconds spent. */
function install({ app = APP, nodeBin } = {}) {
  const label = path.basename(app);
  const tarball = tarballOnce();
  const ci = timed(`npm ci (${label})`, () => npm(['ci', '--no-audit', '--no-fund'], app, nodeBin));
  const add = timed(`npm install ssr-native tarball (${label})`, () =>
    npm(['install', '--no-save', '--no-audit', '--no-fund', tarball.path], app, nodeBin),
  );
  return tarball.seconds + ci.seconds + add.seconds;
}

/**
 * ng build of `app` (with `nodeBin`, and `args` after `build`); returns { seconds, output }. Throws
 * when the build fails.
 */
function build({ app = APP, nodeBin, args = [] } = {}) {
  const ng = path.join(app, 'node_modules', '.bin', 'ng');
  let output = '';
  const { seconds } = timed(`ng build (${path.basename(app)})`, () => {
    output = execFileSync(ng, ['build', ...args], {
      cwd: app,
      encoding: 'utf8',
      env: envFor(nodeBin, { NG_CLI_ANALYTICS: 'false', CI: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  });
  process.stdout.write(output);
  return { seconds, output };
}

function isInstalled(app = APP) {
  return (
    fs.existsSync(path.join(app, 'node_modules', '@angular', 'build')) &&
    fs.existsSync(path.join(app, 'node_modules', 'ssr-native', 'package.json'))
  );
}

function isBuilt(dist = DIST) {
  return (
    fs.existsSync(path.join(dist, 'server', 'server.mjs')) &&
    fs.existsSync(path.join(dist, 'browser', 'about', 'index.html'))
  );
}

/** Whether the built app has the cacheable routes (products/:id, news/:id): a dist built before them has not. */
function hasCacheRoutes() {
  if (!isBuilt()) return false;
  const dir = path.dirname(SERVER_BUNDLE);
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.mjs'))
    .some((f) => fs.readFileSync(path.join(dir, f), 'utf8').includes('products/:id'));
}

/**
 * Starts one of the fixture's servers (serve.mjs) on a free loopback port.
 * Resolves to { port, child, stats(), cache(op, arg) } once it listens.
 */
function startServer(name, { cpu } = {}) {
  const args = [path.join(APP, 'serve.mjs'), name, '0'];
  const command = cpu === undefined ? process.execPath : 'taskset';
  const argv = cpu === undefined ? args : ['-c', String(cpu), process.execPath, ...args];
  const child = spawn(command, argv, { cwd: APP, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const onExit = (code) => reject(new Error(`${name} server exited (${code}) before listening: ${out}`));
    child.once('exit', onExit);
    child.stdout.on('data', (data) => {
      out += data;
      const match = /listening (\d+)/.exec(out);
      if (match) {
        child.off('exit', onExit);
        child.stdout.resume();
        resolve({
          name,
          child,
          port: Number(match[1]),
          pid: child.pid,
          stats: () =>
            new Promise((done) => {
              child.once('message', (msg) => done(msg.stats));
              child.send('stats');
            }),
          // the criticalCss middleware's stats() (null for a server without it)
          criticalCss: () =>
            new Promise((done) => {
              child.once('message', (msg) => done(msg.criticalCss));
              child.send('criticalCss');
            }),
          // the response cache: cache('stats'), cache('purge', url), cache('purgeTag', tag)
          cache: (op, arg) =>
            new Promise((done) => {
              child.once('message', (msg) => done(msg.cache));
              child.send({ cache: op, arg });
            }),
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill();
            }),
        });
      }
    });
  });
}

// A loopback port nobody listens on now (for a server that takes its port from PORT).
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

const APP22 = path.join(ROOT, 'test', 'fixtures', 'angular22-app');
const DIST22 = path.join(APP22, 'dist', 'angular22-app');
// The same app with `ng new`'s stock server.ts and Angular's own critical CSS (angular.json's
// `stock` configuration): the angular22 benchmark's baseline.
const STOCK22 = path.join(APP22, 'dist', 'angular22-stock');

// Angular 22 needs Node ^22.22.3 || ^24.15.0 || >=26: the fixture runs on scripts/runtimes.js's
// Node 24 (installed into its cache folder on first use).
let node24;
function node24Bin() {
  if (!node24) node24 = require('./runtimes').ensureRuntime('node24');
  return node24;
}

/**
 * Starts the Angular 22 fixture's server as its users do, `node dist/<app>/server/server.mjs`
 * with PORT (the README's server.ts listens on every interface), under Node 24.
 * Resolves to { port, child, stop() } once it listens.
 */
async function startServer22() {
  const port = await freePort();
  const child = spawn(node24Bin(), [path.join(DIST22, 'server', 'server.mjs')], {
    cwd: APP22,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const onExit = (code) => reject(new Error(`the Angular 22 server exited (${code}) before listening: ${out}`));
    child.once('exit', onExit);
    child.stdout.on('data', (data) => {
      out += data;
      if (!/listening on/.test(out)) return;
      child.off('exit', onExit);
      child.stdout.resume();
      resolve({
        port,
        child,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill();
          }),
      });
    });
  });
}

const angular22 = {
  APP: APP22,
  DIST: DIST22,
  BROWSER: path.join(DIST22, 'browser'),
  SERVER_BUNDLE: path.join(DIST22, 'server', 'server.mjs'),
  nodeBin: node24Bin,
  install: () => install({ app: APP22, nodeBin: node24Bin() }),
  build: () => build({ app: APP22, nodeBin: node24Bin() }),
  STOCK_DIST: STOCK22,
  buildStock: () => build({ app: APP22, nodeBin: node24Bin(), args: ['--configuration', 'production,stock'] }),
  isInstalled: () => isInstalled(APP22),
  isBuilt: () => isBuilt(DIST22),
  isStockBuilt: () => isBuilt(STOCK22),
  startServer: startServer22,
};

module.exports = {
  angular22,
  ROOT,
  APP,
  DIST,
  BROWSER,
  SERVER_BUNDLE,
  SERVERS,
  install,
  build,
  isInstalled,
  isBuilt,
  hasCacheRoutes,
  startServer,
  log,
};
