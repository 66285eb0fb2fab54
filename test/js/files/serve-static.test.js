'use strict';
// serveStatic beyond the differential test: change detection, the memory bound, hostile paths,
// plain node:http, Express 4, compression, preload and counters.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { spawnSync } = require('node:child_process');
const express = require('express');
const express4 = require('express4');
const serveStatic = require('../../../lib/express/serve-static');
const { serveStatic: fromIndex, FileCache } = require('../../..');
const { makeTree, rawRequest, listenOn, eventually, contentTag } = require('../helpers/static-tree');

async function withServer(handler, fn) {
  const server = await listenOn(handler);
  try {
    return await fn(server.port);
  } finally {
    await server.close();
  }
}

function expressWith(mw, app = express()) {
  app.use(mw);
  app.use((req, res) => res.status(404).send('fell through'));
  return app;
}

test('exports: ssr-native, ssr-native/serve-static, ESM', async () => {
  assert.equal(fromIndex, serveStatic);
  assert.equal(require('ssr-native/serve-static'), serveStatic);
  assert.equal(typeof FileCache, 'function');
  const esm = await import('ssr-native/serve-static');
  assert.equal(esm.default, serveStatic);
  assert.equal(esm.serveStatic, serveStatic);
});

test('edits, additions, deletions and rename-replacements are served within 1 s', async () => {
  const tree = makeTree({ 'a.txt': 'one', 'b.txt': 'bee', 'sub/c.txt': 'sea' });
  const mw = serveStatic(tree.root, { extensions: ['txt'] });
  try {
    await withServer(expressWith(mw), async (port) => {
      const body = async (p) => {
        const r = await rawRequest(port, p);
        return r.status === 200 ? r.body.toString() : r.status;
      };
      assert.equal(await body('/a.txt'), 'one');
      assert.equal(await body('/a.txt'), 'one');
      const tagBefore = (await rawRequest(port, '/a.txt')).headers.etag;

      assert.equal(tagBefore, contentTag(Buffer.from('one')));
      fs.writeFileSync(path.join(tree.root, 'a.txt'), 'two');
      assert.equal(await eventually(async () => (await body('/a.txt')) === 'two'), true, 'edit');
      assert.equal((await rawRequest(port, '/a.txt')).headers.etag, contentTag(Buffer.from('two')));

      assert.equal(await body('/new.txt'), 404);
      assert.equal(await body('/new'), 404);
      fs.writeFileSync(path.join(tree.root, 'new.txt'), 'fresh');
      assert.equal(await eventually(async () => (await body('/new.txt')) === 'fresh'), true, 'add');
      assert.equal(await body('/new'), 'fresh'); // extensions

      // "/b" resolves to b.txt by extension; a new file named "b" must win from now on
      assert.equal(await body('/b'), 'bee');
      fs.writeFileSync(path.join(tree.root, 'b'), 'exact');
      assert.equal(await eventually(async () => (await body('/b')) === 'exact'), true, 'add shadowing');

      fs.writeFileSync(path.join(tree.root, 'sub', 'c.tmp'), 'replaced');
      assert.equal(await body('/sub/c.txt'), 'sea');
      fs.renameSync(path.join(tree.root, 'sub', 'c.tmp'), path.join(tree.root, 'sub', 'c.txt'));
      assert.equal(await eventually(async () => (await body('/sub/c.txt')) === 'replaced'), true, 'rename');

      fs.unlinkSync(path.join(tree.root, 'a.txt'));
      assert.equal(await eventually(async () => (await body('/a.txt')) === 404), true, 'delete');

      fs.rmSync(path.join(tree.root, 'sub'), { recursive: true });
      assert.equal(await eventually(async () => (await body('/sub/c.txt')) === 404), true, 'rmdir');
    });
  } finally {
    mw.close();
    tree.remove();
  }
});

test('without inotify (stat sweep) changes are still seen within 1 s', async () => {
  const tree = makeTree({ 'a.txt': 'one' });
  const mw = serveStatic(tree.root, { watch: false });
  try {
    assert.equal(mw.stats().inotify, false);
    await withServer(expressWith(mw), async (port) => {
      assert.equal((await rawRequest(port, '/a.txt')).body.toString(), 'one');
      fs.writeFileSync(path.join(tree.root, 'a.txt'), 'changed');
      const seen = await eventually(async () => (await rawRequest(port, '/a.txt')).body.toString() === 'changed');
      assert.equal(seen, true);
      fs.writeFileSync(path.join(tree.root, 'b.txt'), 'added');
      assert.equal((await rawRequest(port, '/b.txt')).body.toString(), 'added');
    });
  } finally {
    mw.close();
    tree.remove();
  }
});

test('the cache stays within maxBytes, evicting least recently used files', async () => {
  const files = {};
  for (let i = 0; i < 40; i++) files[`f${i}.bin`] = Buffer.alloc(8192, i);
  const tree = makeTree(files);
  const mw = serveStatic(tree.root, { maxBytes: 64 * 1024 });
  try {
    await withServer(expressWith(mw), async (port) => {
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 40; i++) {
          const r = await rawRequest(port, `/f${i}.bin`);
          assert.equal(r.status, 200);
          assert.deepEqual(r.body, files[`f${i}.bin`]);
          assert.ok(mw.stats().bytes <= 64 * 1024);
        }
      }
      const stats = mw.stats();
      assert.ok(stats.evictions > 0);
      assert.ok(stats.entries <= 8);
    });
  } finally {
    mw.close();
    tree.remove();
  }
});

test('memory bound: the cache accounting stays within maxBytes at every request; RSS agrees', (t) => {
  // In a child with --expose-gc: 128 x 1 MiB files, maxBytes 12 MiB, every file served twice.
  // After every response the cache's counters are read: bytes <= maxBytes, bytes = entries x 1 MiB
  // (no variants here), and at the end every file loaded and not still cached was evicted.
  // Resident memory is only a coarse second signal: it swings by up to ~50 MB here under load.
  const code = `
    const fs = require('fs'), os = require('os'), path = require('path'), http = require('http');
    const serveStatic = require(${JSON.stringify(path.join(__dirname, '../../../lib/express/serve-static'))});
    const FILES = 128, MB = 1 << 20, maxBytes = Number(process.env.MAX_BYTES);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-rss-'));
    for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(root, 'f' + i), Buffer.alloc(MB, i));
    const mw = serveStatic(root, { maxBytes, maxFileSize: 2 * MB });
    const server = http.createServer((req, res) => mw(req, res, () => { res.statusCode = 404; res.end(); }));
    server.listen(0, '127.0.0.1', async () => {
      const port = server.address().port;
      const get = (p) => new Promise((ok, ko) => http.get({ port, host: '127.0.0.1', path: p }, (r) => { let n = 0; r.on('data', (c) => n += c.length); r.on('end', () => ok(n)); }).on('error', ko));
      const violations = [];
      let peak = 0;
      global.gc(); const before = process.memoryUsage().rss;
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < FILES; i++) {
          if (await get('/f' + i) !== MB) throw new Error('short');
          const s = mw.stats();
          peak = Math.max(peak, s.bytes);
          if (maxBytes > 0 && s.bytes > maxBytes) violations.push('round ' + round + ' file ' + i + ': bytes ' + s.bytes + ' > maxBytes');
          if (s.bytes !== s.entries * MB) violations.push('round ' + round + ' file ' + i + ': bytes ' + s.bytes + ' for ' + s.entries + ' entries');
        }
      }
      for (let i = 0; i < 5; i++) { global.gc(); await new Promise((r) => setTimeout(r, 20)); }
      const after = process.memoryUsage().rss;
      console.log(JSON.stringify({ grew: after - before, stats: mw.stats(), violations, peak }));
      mw.close(); server.close(); fs.rmSync(root, { recursive: true });
    });`;
  const run = (maxBytes) => {
    const out = spawnSync(process.execPath, ['--expose-gc', '-e', code], {
      encoding: 'utf8',
      env: { ...process.env, MAX_BYTES: String(maxBytes) },
    });
    assert.equal(out.status, 0, out.stderr);
    return JSON.parse(out.stdout.trim().split('\n').pop());
  };
  const maxBytes = 12 << 20;
  const { grew, stats, violations, peak } = run(maxBytes);
  assert.deepEqual(violations, []);
  assert.ok(peak <= maxBytes && peak >= maxBytes - (1 << 20), `peak cached bytes ${peak}`);
  assert.equal(stats.entries, 12);
  // 256 requests, every one a miss (each file is evicted before its turn comes again): every
  // file loaded and kept is either still cached or was evicted, one eviction per load once full.
  assert.equal(stats.misses, 256);
  assert.equal(stats.evictions, stats.misses - stats.entries);
  // The same traffic with nothing cached (every file streamed from disk) is the baseline for RSS.
  const control = run(0);
  assert.equal(control.stats.entries, 0);
  // A control whose RSS fell (the allocator handing pages back mid-run) says nothing about the cache:
  // measured from zero then (Node 24 once: control -16 MB, cached +60 MB).
  const extra = grew - Math.max(0, control.grew);
  t.diagnostic(
    `rss grew ${(grew / 1048576).toFixed(1)} MB, ${(extra / 1048576).toFixed(1)} MB over streaming everything; maxBytes 12 MB, tree 128 MB`,
  );
  // Coarse: without the bound the cache would hold the whole 128 MB tree, 116 MB more.
  assert.ok(extra < maxBytes + (64 << 20), `rss grew ${extra} bytes more than the control`);
});

test('hostile paths: never a byte from outside root, serve-static statuses', async () => {
  const outside = makeTree({ 'secret.txt': 'TOP SECRET' });
  const tree = makeTree({ 'pub/a.txt': 'public', 'pub/.env': 'dot' });
  const root = path.join(tree.root, 'pub');
  // a sibling directory whose name starts like root: "pub-secret" must not be reachable either
  fs.mkdirSync(path.join(tree.root, 'pub-secret'));
  fs.writeFileSync(path.join(tree.root, 'pub-secret', 'x.txt'), 'TOP SECRET sibling');
  fs.symlinkSync(path.join(outside.root, 'secret.txt'), path.join(root, 'link.txt'));
  const corpus = [
    '/../secret.txt',
    '/..%2fsecret.txt',
    '/%2e%2e/%2e%2e/secret.txt',
    '/%2e%2e%2f%2e%2e%2fsecret.txt',
    '/..%5c..%5csecret.txt',
    '/%252e%252e/secret.txt',
    '/..%c0%afsecret.txt',
    '/%c0%ae%c0%ae/secret.txt',
    '/..\\..\\secret.txt'.replace(/\\/g, '%5C'),
    '/../pub-secret/x.txt',
    '/%2e%2e/pub-secret/x.txt',
    '/a.txt%00',
    '/%00../secret.txt',
    '/a.txt%2500',
    '/%',
    '/%%32%65',
    '/%ff%fe',
    '/.env',
    '/.%65nv',
    '/' + '..%2f'.repeat(50) + 'etc/passwd',
    '/' + 'x'.repeat(5000),
    '/' + '%2e%2e/'.repeat(200) + 'etc/passwd',
    '/a.txt/..',
    '/a.txt/../../secret.txt',
    '/./../secret.txt',
    '/%2F..%2F..%2Fsecret.txt',
    '//../secret.txt',
    '/' + outside.root.slice(1) + '/secret.txt',
  ];
  const strict = serveStatic(root, { fallthrough: false, allowSymlinksOutsideRoot: false });
  const lenient = serveStatic(root, { fallthrough: false });
  const handler = (mw) => (req, res) =>
    mw(req, res, (err) => {
      res.statusCode = err ? err.status : 404;
      res.end(err ? `error ${err.status}` : 'next');
    });
  try {
    await withServer(handler(strict), async (port) => {
      for (const p of corpus) {
        const r = await rawRequest(port, p);
        assert.ok(!r.body.toString().includes('SECRET'), p);
        assert.ok([400, 403, 404, 301].includes(r.status), `${p} -> ${r.status}`);
      }
      assert.equal((await rawRequest(port, '/link.txt')).status, 404); // symlink leaving root refused
      assert.equal((await rawRequest(port, '/a.txt')).body.toString(), 'public');
      assert.equal((await rawRequest(port, '/%2e%2e/secret.txt')).status, 403);
      assert.equal((await rawRequest(port, '/a.txt%00')).status, 400);
      assert.equal((await rawRequest(port, '/%')).status, 400);
      assert.equal((await rawRequest(port, '/' + 'x'.repeat(5000))).status, 404);
    });
    await withServer(handler(lenient), async (port) => {
      // serve-static follows symlinks: so does the default
      assert.equal((await rawRequest(port, '/link.txt')).body.toString(), 'TOP SECRET');
    });
    // A flood of distinct missing paths: all 404, nothing remembered.
    await withServer(handler(lenient), async (port) => {
      for (let i = 0; i < 3000; i++) assert.equal((await rawRequest(port, `/missing-${i}.js`)).status, 404);
      assert.equal(lenient.stats().entries, 1);
    });
  } finally {
    strict.close();
    lenient.close();
    tree.remove();
    outside.remove();
  }
});

test('plain node:http: with a next callback, and without one (send-style error pages)', async () => {
  const tree = makeTree({ 'a.txt': 'plain', 'd/index.html': 'idx' });
  const mw = serveStatic(tree.root);
  try {
    await withServer(
      (req, res) => mw(req, res),
      async (port) => {
        const ok = await rawRequest(port, '/a.txt');
        assert.equal(ok.status, 200);
        assert.equal(ok.body.toString(), 'plain');
        assert.equal(ok.headers.etag, contentTag(ok.body)); // weak, length and CRC-32 of the bytes
        assert.equal(ok.headers['content-type'], 'text/plain; charset=utf-8');
        const missing = await rawRequest(port, '/nope');
        assert.equal(missing.status, 404);
        assert.match(missing.body.toString(), /<pre>Not Found<\/pre>/);
        const redirect = await rawRequest(port, '/d?x=1');
        assert.equal(redirect.status, 301);
        assert.equal(redirect.headers.location, '/d/?x=1');
        assert.equal((await rawRequest(port, '/d/')).body.toString(), 'idx');
        const range = await rawRequest(port, '/a.txt', { headers: { range: 'bytes=99-' } });
        assert.equal(range.status, 416);
        assert.equal(range.headers['content-range'], 'bytes */5');
      },
    );
    await withServer(
      (req, res) =>
        mw(req, res, () => {
          res.statusCode = 418;
          res.end('next');
        }),
      async (port) => {
        assert.equal((await rawRequest(port, '/nope')).status, 418);
        assert.equal((await rawRequest(port, '/a.txt', { method: 'POST' })).status, 418);
      },
    );
  } finally {
    mw.close();
    tree.remove();
  }
});

test('Express 4 mounts it like express.static', async () => {
  const tree = makeTree({ 'a.txt': 'four', 'd/index.html': 'idx4' });
  const mw = serveStatic(tree.root, { maxAge: '1h' });
  try {
    const app = express4();
    app.use('/s', mw);
    await withServer(app, async (port) => {
      const r = await rawRequest(port, '/s/a.txt');
      assert.equal(r.body.toString(), 'four');
      assert.equal(r.headers['cache-control'], 'public, max-age=3600');
      assert.equal(r.headers.etag, contentTag(Buffer.from('four')));
      assert.equal((await rawRequest(port, '/s/d')).headers.location, '/s/d/');
      const etag = r.headers.etag;
      assert.equal((await rawRequest(port, '/s/a.txt', { headers: { 'if-none-match': etag } })).status, 304);
    });
  } finally {
    mw.close();
    tree.remove();
  }
});

test('compress: precomputed gzip and brotli, q-values, Vary, one ETag per encoding', async () => {
  const css = 'body { color: red; margin: 0 }\n'.repeat(200);
  const tree = makeTree({ 'site.css': css, 'img.png': Buffer.alloc(4000, 1), 'tiny.txt': 'x' });
  const mw = serveStatic(tree.root, { compress: true });
  try {
    await withServer(expressWith(mw), async (port) => {
      const get = (p, ae, extra = {}) => rawRequest(port, p, { headers: { 'accept-encoding': ae, ...extra } });
      // every answer for a compressible file depends on Accept-Encoding, whichever encoding it
      // carries, 304s and 206s included (RFC 9110 15.4.5: a 304 sends the Vary a 200 would)
      const site = async (ae, extra) => {
        const r = await get('/site.css', ae, extra);
        assert.equal(
          r.headers.vary,
          'Accept-Encoding',
          `Vary on the ${r.status} ${r.headers['content-encoding'] || 'identity'} answer to ${ae}`,
        );
        return r;
      };
      const first = await site('br, gzip');
      assert.equal(first.headers['content-encoding'], undefined); // variants are being made
      const br = await eventually(async () => {
        const r = await site('gzip, br');
        return r.headers['content-encoding'] === 'br' && r;
      });
      assert.ok(br, 'brotli variant served');
      assert.equal(zlib.brotliDecompressSync(br.body).toString(), css);
      assert.equal(Number(br.headers['content-length']), br.body.length);
      assert.ok(br.body.length < css.length / 5);
      const gz = await site('gzip;q=1, br;q=0.5');
      assert.equal(gz.headers['content-encoding'], 'gzip');
      assert.equal(zlib.gunzipSync(gz.body).toString(), css);
      const identity = await site('identity');
      assert.equal(identity.headers['content-encoding'], undefined);
      assert.equal(identity.body.toString(), css);
      assert.equal((await site('br;q=0, gzip;q=0')).headers['content-encoding'], undefined);
      assert.equal((await site('*')).headers['content-encoding'], 'br');
      assert.equal((await site('gzip, identity;q=0.5, *;q=0')).headers['content-encoding'], 'gzip');
      assert.equal((await site('br;q=0.1, identity')).headers['content-encoding'], undefined);
      // three encodings, three tags; each revalidates on its own
      const tags = new Set([br.headers.etag, gz.headers.etag, identity.headers.etag]);
      assert.equal(tags.size, 3);
      // each the tag of the bytes it is sent with
      assert.equal(br.headers.etag, contentTag(br.body));
      assert.equal(gz.headers.etag, contentTag(gz.body));
      assert.equal(identity.headers.etag, contentTag(Buffer.from(css)));
      assert.equal((await site('br', { 'if-none-match': br.headers.etag })).status, 304);
      assert.equal((await site('gzip', { 'if-none-match': gz.headers.etag })).status, 304);
      assert.equal((await site('gzip', { 'if-none-match': br.headers.etag })).status, 200);
      const part = await site('gzip', { range: 'bytes=0-9' });
      assert.equal(part.status, 206);
      assert.equal(part.headers['content-encoding'], 'gzip');
      assert.deepEqual(part.body, gz.body.subarray(0, 10));
      // not compressible, or not worth it: identity, and png gets no Vary
      const png = await get('/img.png', 'br, gzip');
      assert.equal(png.headers['content-encoding'], undefined);
      assert.equal(png.headers.vary, undefined);
      await get('/tiny.txt', 'gzip');
      await new Promise((r) => setTimeout(r, 100));
      assert.equal((await get('/tiny.txt', 'gzip')).body.toString(), 'x');
    });
  } finally {
    mw.close();
    tree.remove();
  }
});

test('preload loads the tree up front; stats count hits and misses', async () => {
  const tree = makeTree({ 'a.txt': 'a', 'b/c.txt': 'c', '.hidden': 'h' });
  const mw = serveStatic(tree.root, { preload: true });
  try {
    await mw.cache.ready;
    assert.equal(mw.stats().entries, 2);
    const missesAfterPreload = mw.stats().misses;
    await withServer(expressWith(mw), async (port) => {
      for (let i = 0; i < 5; i++) assert.equal((await rawRequest(port, '/b/c.txt')).body.toString(), 'c');
    });
    const stats = mw.stats();
    assert.equal(stats.misses, missesAfterPreload); // every request was a hit
    assert.ok(stats.hits >= 5);
    assert.equal(typeof stats.evictions, 'number');
  } finally {
    mw.close();
    tree.remove();
  }
});

test('a Buffer handed to a response stays valid after its entry is evicted', async () => {
  const tree = makeTree({ 'a.bin': Buffer.alloc(6000, 0x61), 'b.bin': Buffer.alloc(6000, 0x62) });
  const cache = new FileCache({ root: tree.root, maxBytes: 10000 });
  try {
    const a = await cache.get(path.join(tree.root, 'a.bin'));
    assert.equal(a.status, 'loaded');
    const b = await cache.get(path.join(tree.root, 'b.bin'));
    assert.equal(b.status, 'loaded');
    assert.equal(cache.lookup(path.join(tree.root, 'a.bin')).status, 'miss');
    assert.equal(cache.stats().evictions, 1);
    assert.deepEqual(a.body, Buffer.alloc(6000, 0x61)); // still readable: the Buffer holds a reference
    cache.close();
    assert.deepEqual(b.body, Buffer.alloc(6000, 0x62));
    assert.equal(cache.lookup('/x').status, 'miss'); // closed: answers, never throws (static-close.test.js)
  } finally {
    tree.remove();
  }
});

test('invalid cache options are TypeErrors/RangeErrors with the usual message', () => {
  assert.throws(() => serveStatic('.', { maxBytes: 'big' }), {
    name: 'TypeError',
    message: /options\.maxBytes must be a number/,
  });
  assert.throws(() => serveStatic('.', { maxFileSize: -1 }), {
    name: 'RangeError',
    message: /options\.maxFileSize must be >= 0/,
  });
});

test('worker threads: FileCache loads in flight while the worker is terminated', async () => {
  const { Worker } = require('node:worker_threads');
  const files = {};
  for (let i = 0; i < 30; i++) files[`f${i}.txt`] = `file ${i}`.repeat(500);
  const tree = makeTree(files);
  const source = `
    const { parentPort, workerData } = require('worker_threads');
    const { serveStatic, FileCache } = require(workerData.root);
    const cache = new FileCache({ root: workerData.dir, maxBytes: 40000 });
    const mw = serveStatic(workerData.dir, { maxBytes: 40000 });
    let n = 0;
    const spin = () => {
      for (let i = 0; i < 30; i++) cache.load(workerData.dir + '/f' + i + '.txt', () => { if (++n === 30) parentPort.postMessage('loaded'); });
      setImmediate(spin);
    };
    spin();
  `;
  try {
    for (let round = 0; round < 5; round++) {
      const workers = Array.from(
        { length: 3 },
        () => new Worker(source, { eval: true, workerData: { root: require.resolve('../../..'), dir: tree.root } }),
      );
      await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve))));
      await Promise.all(workers.map((w) => w.terminate()));
    }
    // the main thread's own cache is unaffected
    const cache = new FileCache({ root: tree.root });
    assert.equal((await cache.get(path.join(tree.root, 'f1.txt'))).body.toString(), files['f1.txt']);
    cache.close();
  } finally {
    tree.remove();
  }
});

test('preload with compress makes the variants before the first request', async () => {
  const css = 'a { color: blue }\n'.repeat(300);
  const tree = makeTree({ 'a.css': css, 'b.png': Buffer.alloc(3000, 2) });
  const mw = serveStatic(tree.root, { preload: true, compress: true });
  try {
    await mw.cache.ready;
    assert.ok(await eventually(() => mw.stats().bytes > css.length + 3000, 2000), 'variants made before any request');
    await withServer(expressWith(mw), async (port) => {
      const r = await rawRequest(port, '/a.css', { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(r.headers['content-encoding'], 'gzip');
      assert.equal(zlib.gunzipSync(r.body).toString(), css);
    });
  } finally {
    mw.close();
    tree.remove();
  }
});

test('close() while compression or preload is under way does not throw later', async () => {
  const files = {};
  for (let i = 0; i < 20; i++) files[`f${i}.css`] = `.c${i} { margin: ${i}px }\n`.repeat(2000);
  const tree = makeTree(files);
  const mw = serveStatic(tree.root, { preload: true, compress: true });
  const thrown = [];
  const onThrow = (err) => thrown.push(err);
  process.on('uncaughtException', onThrow);
  process.on('unhandledRejection', onThrow);
  try {
    mw.close();
    await mw.cache.ready;
    await new Promise((r) => setTimeout(r, 300)); // zlib callbacks land on a closed cache
    assert.deepEqual(thrown, []);
  } finally {
    process.off('uncaughtException', onThrow);
    process.off('unhandledRejection', onThrow);
    tree.remove();
  }
});
