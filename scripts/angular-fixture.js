'use strict';
// Prepares test/fixtures/angular-app the way a user's project gets ssr-native: `npm ci` of the
// app's own lock file, then the packed ssr-native tarball installed like any package (its install
// script builds the addon), then `ng build` (which prerenders in worker threads that load the
// server bundle, and so the addon). Used by scripts/test-angular.js and the `angular` benchmark.
const { execFileSync, spawn } = require('child_process');
const fs = require('fs');
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

function npm(args, cwd) {
  execFileSync('npm', args, {
    cwd,
    stdio: 'inherit',
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' },
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

/** npm ci + the packed ssr-native; returns the seconds spent. */
function install() {
  const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-pack-'));
  try {
    const pack = timed('npm pack', () => packForThisMachine(packDir));
    const tarball = path.join(packDir, pack.result.trim().split('\n').pop());
    const ci = timed('npm ci (fixture)', () => npm(['ci', '--no-audit', '--no-fund'], APP));
    const add = timed('npm install ssr-native tarball', () =>
      npm(['install', '--no-save', '--no-audit', '--no-fund', tarball], APP),
    );
    return pack.seconds + ci.seconds + add.seconds;
  } finally {
    fs.rmSync(packDir, { recursive: true, force: true });
  }
}

/** ng build; returns { seconds, output }. Throws when the build fails. */
function build() {
  const ng = path.join(APP, 'node_modules', '.bin', 'ng');
  let output = '';
  const { seconds } = timed('ng build', () => {
    output = execFileSync(ng, ['build'], {
      cwd: APP,
      encoding: 'utf8',
      env: { ...process.env, NG_CLI_ANALYTICS: 'false', CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  });
  process.stdout.write(output);
  return { seconds, output };
}

function isInstalled() {
  return (
    fs.existsSync(path.join(APP, 'node_modules', '@angular', 'build')) &&
    fs.existsSync(path.join(APP, 'node_modules', 'ssr-native', 'package.json'))
  );
}

function isBuilt() {
  return fs.existsSync(SERVER_BUNDLE) && fs.existsSync(path.join(BROWSER, 'about', 'index.html'));
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

module.exports = {
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
