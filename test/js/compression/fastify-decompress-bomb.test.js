'use strict';
// A decompression bomb sent to a Fastify route through fastifyCompress's request decompression:
// Fastify answers 413 once the decoded bytes pass bodyLimit, and the inflater must stop there
// instead of decoding the bomb to its end (Fastify only stops listening). Real Fastify 5 and 4.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const zlib = require('node:zlib');
const { fastifyCompress } = require('../../../lib/fastify');

const Fastify5 = require('fastify');
const Fastify4 = require('fastify4');

const BODY_LIMIT = 64 * 1024;
const BOMB_BYTES = 64 * 1024 * 1024; // decodes to 64 MiB

function post(port, body, encoding) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        port,
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding, 'content-length': body.length },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const bombs = {
  gzip: zlib.gzipSync(Buffer.alloc(BOMB_BYTES, 0x20), { level: 9 }),
  deflate: zlib.deflateSync(Buffer.alloc(BOMB_BYTES, 0x20), { level: 9 }),
  br: zlib.brotliCompressSync(Buffer.alloc(BOMB_BYTES, 0x20)),
};

for (const [name, Fastify] of [
  ['Fastify 5', Fastify5],
  ['Fastify 4', Fastify4],
]) {
  test(`${name}: a bomb is a 413 and stops inflating at bodyLimit plus one chunk`, async (t) => {
    const app = Fastify({ bodyLimit: BODY_LIMIT });
    const inflaters = [];
    await app.register(fastifyCompress, {
      zlib: {
        createGunzip: (o) => track(zlib.createGunzip(o)),
        createInflate: (o) => track(zlib.createInflate(o)),
        createBrotliDecompress: (o) => track(zlib.createBrotliDecompress(o)),
      },
    });
    function track(inflater) {
      const seen = { inflater, bytes: 0 };
      // counts what the inflater produced, by wrapping push (a 'data' listener would change its flow)
      const push = inflater.push.bind(inflater);
      inflater.push = (chunk) => {
        if (chunk) seen.bytes += chunk.length;
        return push(chunk);
      };
      inflaters.push(seen);
      return inflater;
    }
    app.post('/', async (req) => ({ got: typeof req.body }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    t.after(() => app.close());
    const { port } = app.server.address();
    for (const [encoding, bomb] of Object.entries(bombs)) {
      for (let i = 0; i < 8; i++) {
        const res = await post(port, bomb, encoding);
        assert.equal(res.status, 413, `${encoding}: ${res.body}`);
        assert.match(res.body, /FST_ERR_CTP_BODY_TOO_LARGE/);
      }
      // every inflater is stopped: destroyed, and its output bounded by the limit plus one
      // chunk (zlib's 16 KiB; Brotli's 64 KiB), not the bomb's 64 MiB
      await new Promise((r) => setTimeout(r, 50));
      for (const seen of inflaters.splice(0)) {
        assert.ok(seen.inflater.destroyed, `${encoding}: the inflater is destroyed`);
        assert.ok(seen.bytes <= BODY_LIMIT + 64 * 1024, `${encoding}: inflated ${seen.bytes} bytes`);
      }
    }
    // an ordinary compressed body still parses
    const ok = await post(port, zlib.gzipSync('{"a":1}'), 'gzip');
    assert.equal(ok.status, 200);
    assert.equal(ok.body, '{"got":"object"}');
  });
}
