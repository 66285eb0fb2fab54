'use strict';
// `dictionary: true` in the static adapters (Express's serveStatic, Koa's serve() and send(),
// fastifyStatic, Hono's serveStatic on @hono/node-server), each in a real app: a hashed file is
// offered as a dictionary for its own later versions (Use-As-Dictionary, Vary on
// Available-Dictionary), the next version asked for with the old file's SHA-256 comes as a dcz
// delta that decodes (the addon's decoder, Node's zstd where it takes a dictionary, the zstd
// command line where installed) to the new file; the delta has its own validator (a conditional
// request on it is a 304, the file's validator does not match it), HEAD announces its length; a
// Range request, an unknown or malformed hash, a client without dcz get the usual answer, identical
// (but for Vary and Use-As-Dictionary) to the same app without the option. Behind each framework's
// compression middleware (ours) the delta passes untouched and a client without dcz gets the file
// compressed as usual. Koa, Fastify (`http2: true`) and Hono also on node:http2's compatibility
// API, h2c and TLS: offer, delta, 304 and HEAD. Express's serveStatic also has its own suite
// (serve-static-dictionary.test.js).
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { execFileSync } = require('node:child_process');
const express = require('express');
const Koa = require('koa');
const Fastify = require('fastify');
const { Hono } = require('hono');
const { createAdaptorServer } = require('@hono/node-server');
const client = require('prom-client');
const { registerMetrics } = require('../../../lib/metrics');
const serveStatic = require('../../../lib/express/serve-static');
const compression = require('../../../lib/express/compression');
const koa = require('../../../lib/koa');
const { fastifyStatic, fastifyCompress } = require('../../../lib/fastify');
const hono = require('../../../lib/hono');
const { available, unavailableReason } = require('../../../lib/compression/dcz');
const native = require('../../../lib/native');
const { request } = require('../helpers/http');
const { listenOn, serverOptions, h2request } = require('../helpers/http2');
const { assetBundles } = require('../helpers/asset-bundles');

const skip = available ? false : `libzstd is not available: ${unavailableReason}`;
const ACCEPT = 'gzip, deflate, br, zstd, dcb, dcz';
const OLD = '/js/main-a1b2c3d4.js';
const NEW = '/js/main-e5f6a7b8.js';
const { v1, v2 } = assetBundles();

function sha256(bytes) {
  return crypto.createHash('sha256').update(bytes).digest();
}
const AVAILABLE = `:${sha256(v1).toString('base64')}:`;

function zstdCli() {
  try {
    execFileSync('zstd', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// Whether this runtime's zlib has zstd and honours a dictionary (checked, not assumed by version).
function nodeZstdTakesDictionary() {
  if (typeof zlib.zstdCompressSync !== 'function') return false;
  try {
    const dictionary = Buffer.from('a dictionary of words '.repeat(8));
    const frame = zlib.zstdCompressSync(Buffer.from('words'), { dictionary });
    return zlib.zstdDecompressSync(frame, { dictionary }).toString() === 'words';
  } catch {
    return false;
  }
}

// The dcz framing (RFC 9842): 8 magic bytes, the dictionary's SHA-256, a zstd frame.
function decodeDcz(dictionary, body, dir) {
  assert.deepEqual(body.subarray(0, 8), Buffer.from([0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00]));
  assert.deepEqual(body.subarray(8, 40), sha256(dictionary));
  const decoded = native.dczDecode(dictionary, sha256(dictionary), body, 1 << 24);
  if (nodeZstdTakesDictionary()) {
    // Node's own zstd (22.15+; a dictionary where its zlib takes one)
    assert.deepEqual(zlib.zstdDecompressSync(body.subarray(40), { dictionary }), decoded);
  }
  if (zstdCli()) {
    // an independent decoder: the zstd command line with the old file as its dictionary
    const dictFile = path.join(dir, 'dictionary.bin');
    fs.writeFileSync(dictFile, dictionary);
    assert.deepEqual(execFileSync('zstd', ['-d', '-q', '-c', '-D', dictFile], { input: body.subarray(40) }), decoded);
  }
  return decoded;
}

function makeRoot() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-delta-'));
  fs.mkdirSync(path.join(root, 'js'));
  fs.writeFileSync(path.join(root, OLD), v1);
  fs.writeFileSync(path.join(root, NEW), v2);
  fs.writeFileSync(path.join(root, 'app.js'), v1); // no hash in its name
  fs.writeFileSync(path.join(root, 'logo.0a1b2c3d.png'), v1); // hashed, but a type nobody compresses
  fs.writeFileSync(path.join(root, 'styles.3f2a9c1d.css'), 'body{margin:0}'.repeat(200));
  return root;
}

async function listenNode(server) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

// the `name` label each adapter gives its metrics (static_asset_dictionary)
const METRICS_NAMES = {
  express: 'serveStatic',
  koa: 'koa',
  'koa send()': 'koa',
  fastify: 'fastifyStatic',
  hono: 'hono',
};

// Each adapter as its users mount it, with `options` (dictionary or not), and with the
// framework's compression middleware in front when `compress`.
const adapters = {
  async express(root, options, compress) {
    const app = express();
    if (compress) app.use(compression());
    app.use(serveStatic(root, options));
    return listenNode(require('node:http').createServer(app));
  },
  async koa(root, options, compress) {
    const app = new Koa();
    if (compress) app.use(koa.compress());
    app.use(koa.conditional());
    app.use(koa.etag());
    app.use(koa.serve(root, { acceptRanges: true, ...options }));
    return listenNode(require('node:http').createServer(app.callback()));
  },
  async 'koa send()'(root, options, compress) {
    const app = new Koa();
    if (compress) app.use(koa.compress());
    app.use(koa.conditional());
    app.use(koa.etag());
    const sendOptions = { root, acceptRanges: true, ...options };
    app.use(async (ctx) => {
      await koa.send(ctx, ctx.path, sendOptions);
    });
    return listenNode(require('node:http').createServer(app.callback()));
  },
  async fastify(root, options, compress) {
    const app = Fastify();
    if (compress) await app.register(fastifyCompress);
    await app.register(fastifyStatic, { root, ...options });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { url: `http://127.0.0.1:${app.server.address().port}`, close: () => app.close() };
  },
  async hono(root, options, compress) {
    const app = new Hono();
    if (compress) app.use('*', hono.compress());
    app.use('*', hono.etag());
    app.use('*', hono.serveStatic({ root, ...options }));
    return listenNode(createAdaptorServer({ fetch: app.fetch }));
  },
};

// headers that may differ between the app with the option and without it
const OFFER_HEADERS = new Set(['date', 'vary', 'use-as-dictionary', 'connection', 'keep-alive']);
function usual(answer) {
  const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !OFFER_HEADERS.has(name)));
  return { status: answer.status, headers, body: answer.body };
}

function varies(answer) {
  const names = String(answer.headers.vary || '')
    .split(',')
    .map((name) => name.trim().toLowerCase());
  return names.includes('accept-encoding') && names.includes('available-dictionary');
}

for (const [name, start] of Object.entries(adapters)) {
  test(`${name} dictionary: hashed files offered, dcz deltas answered`, { skip }, async (t) => {
    const root = makeRoot();
    const on = await start(root, { dictionary: true });
    const off = await start(root, {});
    t.after(async () => {
      await on.close();
      await off.close();
      fs.rmSync(root, { recursive: true, force: true });
    });
    const get = (app, urlPath, headers = {}, method = 'GET') => request(app.url + urlPath, { method, headers });

    await t.test('a hashed file is offered, with Vary', async () => {
      const first = await get(on, OLD);
      assert.equal(first.status, 200);
      assert.equal(first.headers['use-as-dictionary'], 'match="/js/main-*.js", match-dest=("script")');
      assert.ok(varies(first), `Vary: ${first.headers.vary}`);
      assert.deepEqual(first.body, v1);
      const css = await get(on, '/styles.3f2a9c1d.css');
      assert.equal(css.headers['use-as-dictionary'], 'match="/styles.*.css", match-dest=("style")');
      // a query does not change what is offered
      assert.equal((await get(on, `${OLD}?v=2`)).headers['use-as-dictionary'], first.headers['use-as-dictionary']);
      for (const plain of ['/app.js', '/logo.0a1b2c3d.png']) {
        const answer = await get(on, plain);
        assert.equal(answer.headers['use-as-dictionary'], undefined, plain);
        assert.deepEqual(usual(answer), usual(await get(off, plain)), plain);
      }
    });

    let delta;
    await t.test('the next version named with the old one comes as a delta that decodes', async () => {
      delta = await get(on, NEW, { 'accept-encoding': ACCEPT, 'available-dictionary': AVAILABLE });
      assert.equal(delta.status, 200);
      assert.equal(delta.headers['content-encoding'], 'dcz');
      assert.equal(Number(delta.headers['content-length']), delta.body.length);
      assert.ok(varies(delta), `Vary: ${delta.headers.vary}`);
      assert.equal(delta.headers['use-as-dictionary'], 'match="/js/main-*.js", match-dest=("script")');
      assert.deepEqual(decodeDcz(v1, delta.body, root), v2);
      const brotli = zlib.brotliCompressSync(v2, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } });
      assert.ok(delta.body.length * 5 < brotli.length, `delta ${delta.body.length} vs br ${brotli.length}`);
      // another representation: another validator than the file's
      const file = await get(on, NEW);
      assert.ok(delta.headers.etag && file.headers.etag, 'both tagged');
      assert.notEqual(delta.headers.etag, file.headers.etag);
    });

    await t.test('conditional requests on the delta use its own validator', async () => {
      const dcz = { 'accept-encoding': ACCEPT, 'available-dictionary': AVAILABLE };
      const fresh = await get(on, NEW, { ...dcz, 'if-none-match': delta.headers.etag });
      assert.equal(fresh.status, 304);
      assert.equal(fresh.body.length, 0);
      const fileTag = (await get(on, NEW)).headers.etag;
      const stale = await get(on, NEW, { ...dcz, 'if-none-match': fileTag });
      assert.equal(stale.status, 200);
      assert.equal(stale.headers['content-encoding'], 'dcz');
      assert.deepEqual(stale.body, delta.body);
    });

    await t.test('HEAD announces the delta', async () => {
      const head = await get(on, NEW, { 'accept-encoding': ACCEPT, 'available-dictionary': AVAILABLE }, 'HEAD');
      assert.equal(head.status, 200);
      assert.equal(head.headers['content-encoding'], 'dcz');
      assert.equal(Number(head.headers['content-length']), delta.body.length);
      assert.ok(varies(head));
      assert.equal(head.body.length, 0);
    });

    await t.test('a Range request is answered from the file, as without the option', async () => {
      const headers = { 'accept-encoding': ACCEPT, 'available-dictionary': AVAILABLE, range: 'bytes=0-99' };
      const ranged = await get(on, NEW, headers);
      assert.equal(ranged.status, 206);
      assert.notEqual(ranged.headers['content-encoding'], 'dcz');
      assert.deepEqual(ranged.body, v2.subarray(0, 100));
      assert.ok(varies(ranged));
      assert.deepEqual(usual(ranged), usual(await get(off, NEW, headers)));
    });

    await t.test('no delta for an unknown or malformed hash, or a client without dcz', async () => {
      const cases = [
        [
          'unknown hash',
          {
            'accept-encoding': ACCEPT,
            'available-dictionary': `:${sha256(Buffer.from('never served')).toString('base64')}:`,
          },
        ],
        ['malformed', { 'accept-encoding': ACCEPT, 'available-dictionary': `${AVAILABLE}x` }],
        ['dcz not accepted', { 'accept-encoding': 'gzip, deflate, br, zstd', 'available-dictionary': AVAILABLE }],
        ['dcz;q=0', { 'accept-encoding': 'br, dcz;q=0', 'available-dictionary': AVAILABLE }],
        ['no headers', {}],
      ];
      for (const [label, headers] of cases) {
        const answer = await get(on, NEW, headers);
        assert.equal(answer.status, 200, label);
        assert.notEqual(answer.headers['content-encoding'], 'dcz', label);
        assert.ok(varies(answer), label);
        assert.deepEqual(usual(answer), usual(await get(off, NEW, headers)), label);
      }
    });

    await t.test('ssr-native/metrics counts the deltas sent (GET with a body: two above)', async () => {
      const registry = new client.Registry();
      registerMetrics(client, { registry });
      const scrape = await registry.metrics();
      const label = new RegExp(
        `^ssr_native_static_asset_dictionary_hits_total\\{name="${METRICS_NAMES[name]}(?:#\\d+)?"\\} 2$`,
        'm',
      );
      assert.match(scrape, label);
      assert.match(scrape, /^ssr_native_static_asset_dictionary_bytes_saved_total\{name="[^"]+"\} [1-9]/m);
    });
  });
}

for (const [name, start] of Object.entries(adapters)) {
  test(`${name} dictionary behind the compression middleware: the delta passes untouched`, { skip }, async (t) => {
    const root = makeRoot();
    const app = await start(root, { dictionary: true }, true);
    t.after(async () => {
      await app.close();
      fs.rmSync(root, { recursive: true, force: true });
    });
    await request(app.url + OLD);
    const delta = await request(app.url + NEW, {
      headers: { 'accept-encoding': ACCEPT, 'available-dictionary': AVAILABLE },
    });
    assert.equal(delta.status, 200);
    assert.equal(delta.headers['content-encoding'], 'dcz');
    assert.deepEqual(decodeDcz(v1, delta.body, root), v2);
    assert.ok(varies(delta), `Vary: ${delta.headers.vary}`);
    // a client without dcz: the file, compressed by the middleware, still varying on both
    const br = await request(app.url + NEW, {
      headers: { 'accept-encoding': 'gzip, br', 'available-dictionary': AVAILABLE },
    });
    // (hono/compress prefers gzip, the others br)
    const coding = br.headers['content-encoding'];
    assert.ok(coding === 'br' || coding === 'gzip', coding);
    assert.deepEqual(coding === 'br' ? zlib.brotliDecompressSync(br.body) : zlib.gunzipSync(br.body), v2);
    assert.ok(varies(br), `Vary: ${br.headers.vary}`);
  });
}

// The same adapters on node:http2's compatibility API, h2c and TLS.
const h2adapters = {
  async koa(root, secure) {
    const app = new Koa();
    app.use(koa.conditional());
    app.use(koa.serve(root, { dictionary: true }));
    const http2 = require('node:http2');
    const options = serverOptions(secure);
    const handler = app.callback();
    return listenOn(secure ? http2.createSecureServer(options, handler) : http2.createServer(options, handler), secure);
  },
  async fastify(root, secure) {
    const app = Fastify(secure ? { http2: true, https: serverOptions(true) } : { http2: true });
    await app.register(fastifyStatic, { root, dictionary: true });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `${secure ? 'https' : 'http'}://127.0.0.1:${app.server.address().port}`;
    return { url, close: () => app.close() };
  },
  async hono(root, secure) {
    const app = new Hono();
    app.use('*', hono.etag());
    app.use('*', hono.serveStatic({ root, dictionary: true }));
    const http2 = require('node:http2');
    const server = createAdaptorServer({
      fetch: app.fetch,
      createServer: secure ? http2.createSecureServer : http2.createServer,
      serverOptions: serverOptions(secure),
    });
    return listenOn(server, secure);
  },
};

for (const [name, start] of Object.entries(h2adapters)) {
  for (const secure of [false, true]) {
    test(`${name} dictionary over HTTP/2 (${secure ? 'TLS' : 'h2c'}): offer, delta, 304, HEAD`, { skip }, async (t) => {
      const root = makeRoot();
      const app = await start(root, secure);
      t.after(async () => {
        await app.close();
        fs.rmSync(root, { recursive: true, force: true });
      });
      const first = await h2request(app.url, OLD);
      assert.equal(first.headers['use-as-dictionary'], 'match="/js/main-*.js", match-dest=("script")');
      assert.deepEqual(first.body, v1);
      const dcz = { 'accept-encoding': ACCEPT, 'available-dictionary': AVAILABLE };
      const delta = await h2request(app.url, NEW, { headers: dcz });
      assert.equal(delta.status, 200);
      assert.equal(delta.headers['content-encoding'], 'dcz');
      assert.equal(Number(delta.headers['content-length']), delta.body.length);
      assert.ok(varies(delta), `Vary: ${delta.headers.vary}`);
      assert.deepEqual(decodeDcz(v1, delta.body, root), v2);
      const fresh = await h2request(app.url, NEW, { headers: { ...dcz, 'if-none-match': delta.headers.etag } });
      assert.equal(fresh.status, 304);
      const head = await h2request(app.url, NEW, { method: 'HEAD', headers: dcz });
      assert.equal(head.status, 200);
      assert.equal(Number(head.headers['content-length']), delta.body.length);
      assert.equal(head.body.length, 0);
    });
  }
}

test('static adapters: dictionary off by default, a bad option refused', () => {
  const root = os.tmpdir();
  assert.equal(koa.serve(root).dictionary, null);
  assert.ok(koa.serve(root, { dictionary: true }).dictionary !== undefined);
  assert.throws(() => koa.serve(root, { dictionary: 'yes' }), TypeError);
  assert.throws(() => hono.serveStatic({ root, dictionary: 'yes' }), TypeError);
});

test('fastifyStatic refuses a bad dictionary option', async () => {
  const app = Fastify();
  await assert.rejects(app.register(fastifyStatic, { root: os.tmpdir(), dictionary: 'yes' }).ready(), TypeError);
});
