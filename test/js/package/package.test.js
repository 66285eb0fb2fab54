'use strict';
// The package surface: CommonJS and ESM entry points export the same functions, and the
// TypeScript declarations compile against real usage.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { runtimeIndependentSkip } = require('../helpers/run-once.js');

const ROOT = path.join(__dirname, '..', '..', '..');

test('ESM wrappers re-export the CommonJS API', async () => {
  const cjs = require('ssr-native');
  const esm = await import('ssr-native');
  assert.equal(esm.etag, cjs.etag);
  assert.equal(esm.crc32, cjs.crc32);
  assert.equal(esm.default, cjs);
  const koaCjs = require('ssr-native/koa');
  const koaEsm = await import('ssr-native/koa');
  assert.equal(koaEsm.etag, koaCjs.etag);
  assert.equal(koaEsm.conditional, koaCjs.conditional);
  assert.equal(koaEsm.serve, koaCjs.serve);
  assert.equal(koaEsm.send, koaCjs.send);
  const fastifyCjs = require('ssr-native/fastify');
  const fastifyEsm = await import('ssr-native/fastify');
  for (const name of ['fastifyStatic', 'fastifyEtag', 'fastifyCompress'])
    assert.equal(fastifyEsm[name], fastifyCjs[name], name);
  const honoCjs = require('ssr-native/hono');
  const honoEsm = await import('ssr-native/hono');
  for (const name of ['serveStatic', 'etag', 'compress']) assert.equal(honoEsm[name], honoCjs[name], name);
  const v2Cjs = require('ssr-native/content-type/v2');
  const v2Esm = await import('ssr-native/content-type/v2');
  for (const name of ['parse', 'format', 'isTypeValid', 'isTokenValid', 'configure', 'cacheStats', 'clearCache']) {
    assert.equal(v2Esm[name], v2Cjs[name], name);
  }
});

// Every entry's ESM wrapper (except register's, which installs hooks) re-exports the CommonJS
// module: the same names, no more, no fewer, each the same value, and the module as default.
test('every ESM entry exports exactly the CommonJS module.exports names', async () => {
  const { exports } = require('../../../package.json');
  const entries = Object.entries(exports).filter(([key, e]) => e.import && key !== './register');
  assert.ok(entries.length >= 13, `${entries.length} entries`);
  for (const [key, entry] of entries) {
    const cjs = require(path.join(ROOT, entry.require));
    const esm = await import(path.join(ROOT, entry.import));
    // Node 23+ gives a CommonJS module's namespace a 'module.exports' name (the module itself),
    // and `export *` passes it on: the same value a direct import of the CommonJS file has.
    if ('module.exports' in esm) assert.equal(esm['module.exports'], cjs, `${key} module.exports`);
    const named = Object.keys(esm).filter((name) => name !== 'default' && name !== 'module.exports');
    // serve-static's module is the function itself, with a `default` property (ESM's default).
    const cjsNames = Object.keys(cjs).filter((name) => name !== 'default');
    assert.deepEqual(named.sort(), cjsNames.sort(), key);
    for (const name of named) assert.equal(esm[name], cjs[name], `${key} ${name}`);
    assert.equal(esm.default, cjs, key);
  }
});

// The pinned 5.9 and 7.0.2 (what `npm install typescript` gives today: the native compiler),
// each with Node's module resolution and with a bundler's (Angular CLI, Vite, esbuild users), and
// with Express's and Koa's own declarations (@types/express 5 / 4, @types/koa 3 / 2) receiving
// our middleware.
const COMPILERS = { 'typescript 5.9': 'typescript', 'typescript 7.0.2': 'typescript7' };
const PROJECTS = {
  'declarations compile for CommonJS and ESM users (node16 resolution)': 'tsconfig.json',
  'declarations compile for CommonJS and ESM users (nodenext resolution)': 'tsconfig.nodenext.json',
  'declarations compile for CommonJS and ESM users (bundler resolution)': 'tsconfig.bundler.json',
  'Express 5 and Koa 3 take our middleware and etag fn (@types/express 5.0.6, @types/koa 3.0.3)':
    'tsconfig.frameworks.json',
  'Express 4 and Koa 2 take our middleware and etag fn (@types/express 4.17.25, @types/koa 2.15.2)':
    'tsconfig.legacy.json',
  'Fastify 5 registers our plugins and Hono 4 takes our middleware (their own declarations)':
    'tsconfig.fastify-hono.json',
  "fastifyCompress's declarations load beside @fastify/compress's own (skipLibCheck off)":
    'tsconfig.fastify-compress-peer.json',
};
for (const [compiler, pkg] of Object.entries(COMPILERS)) {
  for (const [what, config] of Object.entries(PROJECTS)) {
    test(`TypeScript ${what}, ${compiler}`, (t) => {
      if (runtimeIndependentSkip()) return t.skip(runtimeIndependentSkip());
      const tsc = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', 'tsc');
      const project = path.join(ROOT, 'test', 'types', config);
      const result = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
      assert.equal(result.status, 0, result.stdout + result.stderr);
    });
  }
}
