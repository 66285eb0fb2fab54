'use strict';
// One option reader (lib/options.js): an unknown name in ssr-native's own options is a TypeError
// listing the valid ones, with the likely intended name; in a drop-in's peer-compatible options
// (which the peer ignores) it is one process warning per name, and the app still starts.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { closest } = require('../../../lib/options');
const compression = require('../../../lib/express/compression');
const serveStatic = require('../../../lib/express/serve-static');
const { responseCache } = require('../../../lib/express/cache');
const { criticalCss } = require('../../../lib/express/critical-css');
const koa = require('../../../lib/koa');
const hono = require('../../../lib/hono');
const Fastify = require('fastify');
const { fastifyStatic } = require('../../../lib/fastify');
const { FileCache } = serveStatic;

function refuses(make, name, near) {
  assert.throws(make, (err) => {
    assert.ok(err instanceof TypeError, `${name}: ${err}`);
    assert.equal(err.code, 'ERR_SSR_NATIVE_UNKNOWN_OPTION');
    assert.match(err.message, new RegExp(`"${name}"`));
    if (near) assert.match(err.message, new RegExp(`did you mean "${near}"`));
    assert.match(err.message, /valid options: .*,/);
    return true;
  });
}

// Captures the warnings emitted while make() runs (process 'warning' events are asynchronous).
async function warningsOf(make) {
  const seen = [];
  const listener = (w) => {
    if (w.code === 'SSR_NATIVE_UNKNOWN_OPTION') seen.push(w.message);
  };
  process.on('warning', listener);
  try {
    await make();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

test('own options: an unknown name is a TypeError naming the valid ones', () => {
  refuses(() => responseCache({ maxbytes: 1 << 20 }), 'maxbytes', 'maxBytes');
  refuses(() => compression({ dictionary: { minPage: 4 } }), 'minPage', 'minPages');
  refuses(() => koa.compress({ dictionary: { sorce: 'x' } }), 'sorce', 'source');
  refuses(() => new FileCache({ maxFileSzie: 10 }), 'maxFileSzie', 'maxFileSize');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-options-'));
  try {
    refuses(
      () => criticalCss({ browserDistFolder: dir, warm: false, inlinefonts: true }),
      'inlinefonts',
      'inlineFonts',
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const { cacheCommonEngine } = require('../../../lib/angular');
  refuses(() => cacheCommonEngine({}, { maxPage: 10 }), 'maxPage', 'maxPages');
  const { registerMetrics } = require('../../../lib/metrics');
  refuses(() => registerMetrics(require('prom-client'), { prefx: 'x_' }), 'prefx', 'prefix');
  const dir2 = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-options-'));
  try {
    refuses(() => serveStatic(dir2, { dictionary: { maxEntires: 8 } }), 'maxEntires', 'maxEntries');
  } finally {
    fs.rmSync(dir2, { recursive: true, force: true });
  }
  const { sharedMemoryStore } = require('../../../lib/express/cache');
  refuses(() => sharedMemoryStore({ name: 'options-test', maxEntrys: 8 }), 'maxEntrys', 'maxEntries');
  // a name nowhere near any valid one: no hint, still refused
  refuses(() => responseCache({ zzzzzzzz: 1 }), 'zzzzzzzz');
  // every valid name is accepted
  assert.doesNotThrow(() => responseCache({ maxBytes: 1 << 20, maxEntries: 10, statuses: [200] }));
});

test('peer-compatible options: one warning per unknown name, the middleware still works', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-options-'));
  try {
    const first = await warningsOf(() => {
      assert.equal(typeof compression({ dictonary: true, level: 6 }), 'function');
      assert.equal(typeof serveStatic(dir, { indx: false }), 'function');
      assert.equal(typeof koa.compress({ treshold: 10 }), 'function');
    });
    assert.equal(first.length, 3, first.join('\n'));
    assert.match(
      first[0],
      /compression\(options\) ignores the unknown option "dictonary" \(did you mean "dictionary"\?\)/,
    );
    assert.match(first[1], /serveStatic\(root, options\) ignores the unknown option "indx" \(did you mean "index"\?\)/);
    assert.match(first[2], /compress\(options\) ignores the unknown option "treshold" \(did you mean "threshold"\?\)/);
    // once per name: the same mistake again says nothing more
    const again = await warningsOf(() => compression({ dictonary: true }));
    assert.deepEqual(again, []);
    // the peer's own names (zlib's included) draw no warning
    const valid = await warningsOf(() => {
      compression({ level: 6, memLevel: 8, windowBits: 15, threshold: '1kb', brotli: {}, zstd: false, cache: false });
      serveStatic(dir, { index: false, maxAge: 1000, dotfiles: 'ignore', fallthrough: true });
    });
    assert.deepEqual(valid, []);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('static drop-ins of Koa, Fastify and Hono warn once per unknown name and still serve', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-options-'));
  try {
    const seen = await warningsOf(() => {
      assert.equal(typeof koa.serve(dir, { defr: true }), 'function');
      assert.equal(typeof hono.serveStatic({ root: dir, rewriteRequestPth: (p) => p }), 'function');
    });
    const late = await warningsOf(async () => {
      const app = Fastify();
      app.register(fastifyStatic, { root: dir, wildcrd: false });
      await app.ready();
      await app.close();
    });
    const all = [...seen, ...late];
    assert.match(all.join('\n'), /serve\(root, options\) ignores the unknown option "defr" \(did you mean "defer"\?\)/);
    assert.match(all.join('\n'), /serveStatic\(options\) ignores the unknown option "rewriteRequestPth"/);
    assert.match(
      all.join('\n'),
      /fastifyStatic options ignores the unknown option "wildcrd" \(did you mean "wildcard"\?\)/,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the hint is the nearest name, and only a near one', () => {
  assert.equal(closest('dictonary', ['dictionary', 'cache']), 'dictionary');
  assert.equal(closest('maxbytes', ['maxBytes', 'maxEntries']), 'maxBytes');
  assert.equal(closest('indx', ['index', 'etag']), 'index');
  assert.equal(closest('xyz', ['index', 'etag']), null);
});
