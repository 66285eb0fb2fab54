'use strict';
// ssr-native/koa serve() beyond koa-static: tags from the cache (kept by koa-etag, revalidated
// by conditional()), change detection, compress, ranges, streaming over maxFileSize (and a file
// shrinking mid-stream), the memory bound, a cache shared with other mounts and serveStatic,
// option errors, and files rewritten while served (the churn harness of issue 14).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const zlib = require('node:zlib');
const Koa = require('koa');
const koaEtag = require('koa-etag').default;
const koaStatic = require('koa-static');
const { serve, send, etag, conditional } = require('../../../lib/koa');
const { FileCache, serveStatic } = require('../../..');
const { makeTree, rawRequest, listenOn, eventually, contentTag: crcTag } = require('../helpers/static-tree');
const { runChurn } = require('../helpers/static-churn');

const css = 'body { color: red; margin: 0 auto; }\n'.repeat(200);
const big = Buffer.alloc(3 * 1024 * 1024);
for (let i = 0; i < big.length; i++) big[i] = (i * 13 + (i >> 11)) & 0xff;

const FILES = {
  'a.txt': 'hello world\n',
  'style.css': css,
  'image.png': Buffer.alloc(4096, 7),
  'big.bin': big,
  'sub/page.html': '<p>sub page</p>',
};

function app(middlewares, App = Koa) {
  const koa = new App();
  koa.silent = true;
  for (const mw of middlewares) koa.use(mw);
  return koa.callback();
}

async function withServer(middlewares, fn, App) {
  const server = await listenOn(app(middlewares, App));
  try {
    return await fn(server.port);
  } finally {
    await server.close();
  }
}

// koa-etag prints a deprecation notice each time it is created
function quietly(fn) {
  const warn = console.warn;
  console.warn = () => {};
  try {
    return fn();
  } finally {
    console.warn = warn;
  }
}

let tree;
test.before(() => {
  tree = makeTree(FILES);
});
test.after(() => tree.remove());

test('the ETag is the CRC-32 tag the cache holds: koa-etag keeps it, conditional() answers 304 with it', async () => {
  const mw = serve(tree.root);
  try {
    // the real koa-etag in front: it sees the tag already set and hashes nothing
    await withServer([quietly(() => koaEtag()), conditional(), mw], async (port) => {
      for (const [p, body] of [
        ['/a.txt', FILES['a.txt']],
        ['/style.css', css],
        ['/sub/page.html', FILES['sub/page.html']],
      ]) {
        const r = await rawRequest(port, p);
        assert.equal(r.status, 200);
        assert.equal(r.headers.etag, crcTag(Buffer.from(body)), p);
        const again = await rawRequest(port, p, { headers: { 'if-none-match': r.headers.etag } });
        assert.equal(again.status, 304, p);
        assert.equal(again.body.length, 0);
      }
    });
    // the same tag from a second, independent cache (another machine of a fleet)
    const other = serve(tree.root);
    try {
      await withServer([etag(), conditional(), other], async (port) => {
        assert.equal((await rawRequest(port, '/a.txt')).headers.etag, crcTag(Buffer.from(FILES['a.txt'])));
      });
    } finally {
      other.close();
    }
  } finally {
    mw.close();
  }
});

test('etag: false leaves the tag to etag() (which then hashes the Buffer)', async () => {
  const mw = serve(tree.root, { etag: false });
  try {
    await withServer([mw], async (port) => {
      assert.equal((await rawRequest(port, '/a.txt')).headers.etag, undefined);
    });
    await withServer([etag(), mw], async (port) => {
      // etag() on a Buffer body: a strong tag, as koa-etag makes for Buffers
      assert.match((await rawRequest(port, '/a.txt')).headers.etag, /^"/);
    });
  } finally {
    mw.close();
  }
});

test('a changed file is served anew with a new tag; the old tag no longer matches', async () => {
  const t = makeTree({ 'x.txt': 'version one' });
  const mw = serve(t.root);
  try {
    await withServer([etag(), conditional(), mw], async (port) => {
      const first = await rawRequest(port, '/x.txt');
      assert.equal(first.body.toString(), 'version one');
      await rawRequest(port, '/x.txt'); // remembered route
      fs.writeFileSync(path.join(t.root, 'x.txt'), 'version two!');
      const changed = await eventually(async () => {
        const r = await rawRequest(port, '/x.txt', { headers: { 'if-none-match': first.headers.etag } });
        return r.status === 200 && r.body.toString() === 'version two!' ? r : null;
      }, 3000);
      assert.ok(changed, 'the new content was not served within 3 s');
      assert.equal(changed.headers.etag, crcTag(Buffer.from('version two!')));
      // a new sibling changes the answer for a client that accepts it
      fs.writeFileSync(path.join(t.root, 'x.txt.gz'), zlib.gzipSync('version two!'));
      const gz = await eventually(async () => {
        const r = await rawRequest(port, '/x.txt', { headers: { 'accept-encoding': 'gzip' } });
        return r.headers['content-encoding'] === 'gzip' ? r : null;
      }, 3000);
      assert.ok(gz, 'the new .gz sibling was not served within 3 s');
      assert.equal(zlib.gunzipSync(gz.body).toString(), 'version two!');
    });
  } finally {
    mw.close();
    t.remove();
  }
});

test('compress: in-memory gzip and br variants with Vary, their own tags and 304s', async () => {
  const mw = serve(tree.root, { compress: true });
  try {
    await withServer([etag(), conditional(), mw], async (port) => {
      const identity = await rawRequest(port, '/style.css', { headers: { 'accept-encoding': 'gzip, br' } });
      assert.equal(identity.headers.vary, 'Accept-Encoding');
      for (const [accept, encoding, decode] of [
        ['gzip, br', 'br', zlib.brotliDecompressSync],
        ['gzip', 'gzip', zlib.gunzipSync],
      ]) {
        const r = await eventually(async () => {
          const res = await rawRequest(port, '/style.css', { headers: { 'accept-encoding': accept } });
          return res.headers['content-encoding'] === encoding ? res : null;
        });
        assert.ok(r, `no ${encoding} variant`);
        assert.equal(r.headers.vary, 'Accept-Encoding');
        assert.equal(decode(r.body).toString(), css);
        assert.equal(Number(r.headers['content-length']), r.body.length);
        assert.ok(r.body.length < css.length / 4);
        assert.equal(r.headers.etag, crcTag(r.body));
        assert.notEqual(r.headers.etag, identity.headers.etag);
        const revalidated = await rawRequest(port, '/style.css', {
          headers: { 'accept-encoding': accept, 'if-none-match': r.headers.etag },
        });
        assert.equal(revalidated.status, 304);
      }
      const plain = await rawRequest(port, '/style.css');
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.body.toString(), css);
      assert.equal(plain.headers.vary, 'Accept-Encoding');
      // not compressible: no variant, no Vary
      const png = await rawRequest(port, '/image.png', { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(png.headers['content-encoding'], undefined);
      assert.equal(png.headers.vary, undefined);
    });
  } finally {
    mw.close();
  }
});

test('acceptRanges: 206 with Content-Range, 416, several ranges -> 200, If-Range; cached and streamed', async () => {
  for (const [file, body, options] of [
    ['/style.css', Buffer.from(css), {}],
    ['/big.bin', big, { maxFileSize: 1024 * 1024 }],
  ]) {
    const mw = serve(tree.root, { acceptRanges: true, ...options });
    try {
      await withServer([etag(), conditional(), mw], async (port) => {
        const full = await rawRequest(port, file);
        assert.equal(full.status, 200);
        assert.equal(full.headers['accept-ranges'], 'bytes');
        const r = await rawRequest(port, file, { headers: { range: 'bytes=10-99' } });
        assert.equal(r.status, 206, file);
        assert.equal(r.headers['content-range'], `bytes 10-99/${body.length}`);
        assert.equal(r.headers['content-length'], '90');
        assert.deepEqual(r.body, body.subarray(10, 100));
        const suffix = await rawRequest(port, file, { headers: { range: 'bytes=-5' } });
        assert.deepEqual(suffix.body, body.subarray(body.length - 5));
        const unsatisfiable = await rawRequest(port, file, { headers: { range: `bytes=${body.length + 10}-` } });
        assert.equal(unsatisfiable.status, 416);
        assert.equal(unsatisfiable.headers['content-range'], `bytes */${body.length}`);
        const several = await rawRequest(port, file, { headers: { range: 'bytes=0-1,50-60' } });
        assert.equal(several.status, 200);
        assert.equal(several.body.length, body.length);
        const stale = await rawRequest(port, file, { headers: { range: 'bytes=0-1', 'if-range': '"another"' } });
        assert.equal(stale.status, 200);
        const current = await rawRequest(port, file, {
          headers: { range: 'bytes=0-1', 'if-range': full.headers.etag },
        });
        assert.equal(current.status, 206);
        // a fresh conditional request is conditional()'s 304, not a 206 of the range
        const fresh = await rawRequest(port, file, {
          headers: { range: 'bytes=0-1', 'if-none-match': full.headers.etag },
        });
        assert.equal(fresh.status, 304, file);
      });
      // ... and without conditional() in front it is the whole body (no 206 for a 304-to-be)
      await withServer([mw], async (port) => {
        const full = await rawRequest(port, file);
        const fresh = await rawRequest(port, file, {
          headers: { range: 'bytes=0-1', 'if-none-match': full.headers.etag },
        });
        assert.equal(fresh.status, 200, file);
        assert.deepEqual(fresh.body, body, file);
      });
    } finally {
      mw.close();
    }
  }
  // off by default, as koa-static: the whole body and no Accept-Ranges
  const mw = serve(tree.root);
  try {
    await withServer([mw], async (port) => {
      const r = await rawRequest(port, '/style.css', { headers: { range: 'bytes=0-9' } });
      assert.equal(r.status, 200);
      assert.equal(r.headers['accept-ranges'], undefined);
    });
  } finally {
    mw.close();
  }
});

test('maxFileSize: larger files stream from disk with the headers and stat tag koa-static + koa-etag give', async () => {
  const mw = serve(tree.root, { maxFileSize: 1024 * 1024 });
  const peer = koaStatic(tree.root);
  try {
    const [mine, theirs] = await Promise.all([
      withServer([etag(), conditional(), mw], (port) => rawRequest(port, '/big.bin')),
      withServer([quietly(() => koaEtag()), conditional(), peer], (port) => rawRequest(port, '/big.bin')),
    ]);
    assert.equal(mine.status, 200);
    assert.deepEqual(mine.body, big);
    for (const h of ['content-length', 'content-type', 'last-modified', 'cache-control', 'etag']) {
      assert.equal(mine.headers[h], theirs.headers[h], h);
    }
    assert.equal(mw.stats().bytes < big.length, true, 'the big file was not cached');
  } finally {
    mw.close();
  }
});

for (const [label, App] of [
  ['koa 2', require('koa2')],
  ['koa 3', Koa],
]) {
  test(`${label}: a streamed file that shrinks mid-response closes the connection instead of hanging`, async () => {
    const t = makeTree({ 'shrink.bin': Buffer.alloc(16 * 1024 * 1024, 1) });
    const mw = serve(t.root, { maxFileSize: 64 * 1024 });
    try {
      await withServer(
        [mw],
        async (port) => {
          const outcome = await new Promise((resolve) => {
            const timer = setTimeout(() => resolve('hung'), 5000);
            const req = http.get({ host: '127.0.0.1', port, path: '/shrink.bin', agent: false }, (res) => {
              let received = 0;
              let truncated = false;
              res.on('data', (chunk) => {
                received += chunk.length;
                if (!truncated) {
                  truncated = true;
                  fs.truncateSync(path.join(t.root, 'shrink.bin'), 1000);
                }
              });
              res.on('end', () => {
                clearTimeout(timer);
                resolve(received === 16 * 1024 * 1024 ? 'whole' : 'short');
              });
              res.on('error', () => {
                clearTimeout(timer);
                resolve('closed');
              });
            });
            req.on('error', () => {
              clearTimeout(timer);
              resolve('closed');
            });
          });
          // 16 MB cannot all be in socket buffers when the first chunk arrives: the rest is gone
          assert.equal(outcome, 'closed');
        },
        App,
      );
    } finally {
      mw.close();
      t.remove();
    }
  });
}

test('maxBytes bounds the memory; a FileCache shared by two mounts and serveStatic is one budget', async () => {
  const files = {};
  for (let i = 0; i < 40; i++)
    files[`f${i}.txt`] = String(i)
      .padStart(4, '0')
      .repeat(16 * 1024); // 64 KB each
  const t = makeTree(files);
  try {
    const bounded = serve(t.root, { maxBytes: 512 * 1024 });
    try {
      await withServer([bounded], async (port) => {
        for (let i = 0; i < 40; i++) {
          const r = await rawRequest(port, `/f${i}.txt`);
          assert.equal(r.body.toString(), files[`f${i}.txt`]);
        }
      });
      assert.ok(bounded.stats().bytes <= 512 * 1024, `${bounded.stats().bytes} bytes cached`);
      assert.ok(bounded.stats().evictions > 0);
    } finally {
      bounded.close();
    }

    const cache = new FileCache({ maxBytes: 1024 * 1024 });
    const one = serve(t.root, { cache });
    const two = serve(path.join(t.root), { cache, maxage: 1000 });
    const express = serveStatic(t.root, { cache });
    assert.equal(one.cache, cache);
    assert.equal(two.cache, cache);
    try {
      await withServer([one], (port) => rawRequest(port, '/f1.txt'));
      await withServer([two], (port) => rawRequest(port, '/f2.txt'));
      const viaHttp = await listenOn((req, res) => express(req, res, () => res.end()));
      await rawRequest(viaHttp.port, '/f3.txt');
      await viaHttp.close();
      assert.equal(cache.stats().entries, 3);
      // a hit through one mount is a hit for the others
      const hitsBefore = cache.stats().hits;
      await withServer([two], (port) => rawRequest(port, '/f1.txt'));
      assert.ok(cache.stats().hits > hitsBefore);
    } finally {
      cache.close();
    }
  } finally {
    t.remove();
  }
});

test('hostile spellings: the remembered URL paths stay bounded (count and key length)', async () => {
  const mw = serve(tree.root);
  try {
    await withServer([mw], async (port) => {
      const paths = [];
      for (let i = 0; i < 8300; i++) paths.push(`/d${i % 97}/${'./'.repeat(Math.floor(i / 97))}../a.txt`);
      let next = 0;
      const worker = async () => {
        while (next < paths.length) {
          const r = await rawRequest(port, paths[next++]);
          assert.equal(r.status, 200);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      assert.ok(mw.stats().routes > 0);
      assert.ok(mw.stats().routes <= 8192, `${mw.stats().routes} routes remembered`);
      // a very long spelling is answered, not remembered
      const before = mw.stats().routes;
      const long = '/' + './'.repeat(600) + 'a.txt';
      assert.equal((await rawRequest(port, long)).status, 200);
      assert.equal(mw.stats().routes, before);
    });
  } finally {
    mw.close();
  }
});

test('one serve() in a Koa 2 and a Koa 3 app: each app types the file as it would (.js differs)', async () => {
  const t = makeTree({ 'app.js': 'console.log(1)\n', 'data.json': '{}' });
  const mw = serve(t.root);
  try {
    for (let round = 0; round < 2; round++) {
      for (const App of [require('koa2'), Koa]) {
        for (const file of ['/app.js', '/data.json']) {
          const [mine, theirs] = await Promise.all([
            withServer([mw], (port) => rawRequest(port, file), App),
            withServer([koaStatic(t.root)], (port) => rawRequest(port, file), App),
          ]);
          assert.equal(mine.headers['content-type'], theirs.headers['content-type'], `${file} round ${round}`);
        }
      }
    }
  } finally {
    mw.close();
    t.remove();
  }
});

test('send(ctx, path, opts): koa-send 5 API over the same cache', async () => {
  const opts = { root: tree.root, maxage: 60000 };
  await withServer(
    [
      async (ctx) => {
        const served = await send(ctx, ctx.path, opts);
        ctx.set('X-Served', path.basename(served || 'none'));
      },
    ],
    async (port) => {
      for (let i = 0; i < 2; i++) {
        const r = await rawRequest(port, '/sub/page.html');
        assert.equal(r.status, 200);
        assert.equal(r.body.toString(), FILES['sub/page.html']);
        assert.equal(r.headers['cache-control'], 'max-age=60');
        assert.equal(r.headers['x-served'], 'page.html');
      }
      assert.equal((await rawRequest(port, '/nope')).status, 404);
    },
  );
});

test('option errors: the same as koa-static, and typed errors for ours', () => {
  assert.throws(() => serve(), { name: 'AssertionError', message: 'root directory is required to serve files' });
  assert.throws(() => serve(''), { name: 'AssertionError' });
  assert.throws(() => serve('.', { maxBytes: 'lots' }), TypeError);
  assert.throws(() => serve('.', { maxFileSize: -1 }), RangeError);
  assert.throws(() => serve('.', { cache: {} }), TypeError);
});

test(
  'churn: files rewritten while served through Koa (cached, streamed, ranges): no hung, garbled or mistagged answer',
  {
    skip: process.versions.bun
      ? "Bun's node:http does not abort a response destroyed after its headers (the client sees an empty body instead of a reset): the churn guarantee holds on Node only; see README"
      : false,
  },
  async (t) => {
    const handlerFor = (root) => {
      const mw = serve(root, { maxFileSize: 64 * 1024, acceptRanges: true });
      const handler = app([etag(), conditional(), mw]);
      handler.close = () => mw.close();
      return handler;
    };
    // 2.5 s of churn, longer (at most 10 s) until 150 whole answers and 150 writes were seen
    const { counts, failures, seed } = await runChurn(handlerFor, {
      ms: 2500,
      maxMs: 10000,
      minAnswers: 150,
      clients: 8,
      seed: 3,
    });
    t.diagnostic(`seed ${seed}: ${JSON.stringify(counts)}`);
    assert.deepEqual(failures, [], `seed ${seed}: ${JSON.stringify(counts)}`);
    assert.equal(counts.hangs, 0);
    assert.equal(counts.parseErrors, 0);
    assert.ok(counts.writes >= 50, `only ${counts.writes} writes`);
    assert.ok(counts.ok >= 50, `only ${counts.ok} whole answers`);
  },
);
