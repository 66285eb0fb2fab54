'use strict';
// Differential test: compress() from ssr-native/koa against koa-compress 5.2.2 on Koa 2 and
// Koa 3. Seeded cases vary the body (string, Buffer, JSON, a stream; 0 bytes to 300 KB), the
// type, status, method, Accept-Encoding (browsers' headers, q-values, `*`, identity, malformed),
// ctx.compress (unset, true, false), Cache-Control no-transform and an existing
// Content-Encoding. Each case is asked of ours twice (a miss, then a content-cache hit) and must
// give koa-compress's status and headers and a decoded body byte-identical to its decoded body.
// The intended differences: where no coding is acceptable (`identity;q=0` alone) koa-compress
// answers 500 and ours the body unencoded; and a string, Buffer or JSON body compressed goes out with the
// Content-Length of its compressed bytes where koa-compress streams it chunked.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { Readable } = require('node:stream');
const peerCompress = require('koa-compress');
const { compress } = require('../../../lib/koa');
const { ContentCache } = require('../../../lib/compression/content-cache');
const { mulberry32 } = require('../helpers/seeded-random');
const { pick, makeText, decode, comparable } = require('../helpers/compression-diff');

const SEED = Number(process.env.COMPRESSION_DIFF_SEED || 0x522);
const CASES = Number(process.env.COMPRESSION_DIFF_CASES || 160);

const ACCEPT_ENCODINGS = [
  undefined,
  '',
  'gzip, deflate, br, zstd',
  'gzip, deflate, br',
  'gzip, deflate',
  'gzip',
  'br',
  'deflate',
  'identity',
  'identity;q=0',
  '*',
  '*;q=0',
  'gzip;q=0, *',
  'br;q=0, gzip;q=0',
  'gzip;q=0.5, deflate;q=0.5',
  'deflate, gzip',
  'BR',
  'x-gzip',
  'gzip;q=abc',
  'br;q=',
  ' , ,',
  ';q=1',
  'zstd',
  'gzip;q="0.5", br;q=0.4',
  'br;x="a,b", gzip',
  'gzip, deflate, br, zstd, ' + 'x, '.repeat(200),
  'identity, *;q=0',
  'gzip ; q=0.8 , br ; q=0.9',
];
const TYPES = [
  'text/html; charset=utf-8',
  'application/json',
  'text/plain',
  'image/png',
  'application/octet-stream',
  'image/svg+xml',
  'x-unknown/thing',
];
const SIZES = [0, 5, 1023, 1024, 1025, 4096, 4097, 20000, 75000, 300000];
const STATUSES = [200, 200, 200, 201, 204, 304, 404];
const METHODS = ['GET', 'GET', 'GET', 'HEAD', 'POST'];
const KINDS = ['string', 'string', 'buffer', 'json', 'stream'];

// The vocabulary of this suite's bodies (a number drawn from the body's generator among them).
const TEXT_WORDS = (random) => ['<li>', 'koa', 'compress', '</li>', '\n', 'é', String(random())];
function bodyText(random, size) {
  return makeText(random, size, { words: TEXT_WORDS }).toString('latin1');
}

const random = mulberry32(SEED);
const cases = Array.from({ length: CASES }, (_, id) => ({
  id,
  text: bodyText(random, pick(random, SIZES)),
  kind: pick(random, KINDS),
  type: pick(random, TYPES),
  status: pick(random, STATUSES),
  method: pick(random, METHODS),
  acceptEncoding: pick(random, ACCEPT_ENCODINGS),
  override: pick(random, [undefined, undefined, undefined, true, false]),
  noTransform: random() < 0.08,
  contentEncoding: random() < 0.05 ? 'x-custom' : undefined,
}));

function route(ctx) {
  const c = cases[Number(/^\/case\/(\d+)$/.exec(ctx.path)[1])];
  if (c.noTransform) ctx.set('Cache-Control', 'no-transform');
  if (c.contentEncoding) ctx.set('Content-Encoding', c.contentEncoding);
  if (c.override !== undefined) ctx.compress = c.override;
  const bytes = Buffer.from(c.text, 'latin1');
  if (c.kind === 'json') ctx.body = { text: c.text };
  else if (c.kind === 'buffer') ctx.body = bytes;
  else if (c.kind === 'stream') ctx.body = Readable.from([bytes.subarray(0, 100), bytes.subarray(100)]);
  else ctx.body = c.text;
  if (c.kind !== 'json') ctx.type = c.type;
  ctx.status = c.status;
}

function fetchRaw(port, c) {
  return new Promise((resolve, reject) => {
    const headers = {};
    if (c.acceptEncoding !== undefined) headers['accept-encoding'] = c.acceptEncoding;
    const req = http.request(
      { host: '127.0.0.1', port, path: `/case/${c.id}`, method: c.method, headers, agent: false },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error(`no answer in 5 s: case ${c.id}`)));
    req.end();
  });
}

function listen(app) {
  const server = http.createServer(app.callback());
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

for (const koaName of ['koa2', 'koa']) {
  test(`same responses as koa-compress 5.2.2 on ${koaName === 'koa' ? 'Koa 3' : 'Koa 2'} (seed ${SEED}, ${CASES} cases)`, async () => {
    const Koa = require(koaName);
    const cache = new ContentCache();
    const ours = new Koa();
    ours.use(compress({ cache }));
    ours.use(route);
    const theirs = new Koa();
    theirs.use(peerCompress());
    theirs.use(route);
    const [ourServer, theirServer] = await Promise.all([listen(ours), listen(theirs)]);
    try {
      for (const c of cases) {
        const expected = await fetchRaw(theirServer.address().port, c);
        for (const round of ['miss', 'hit']) {
          const got = await fetchRaw(ourServer.address().port, c);
          const where = `case ${JSON.stringify({ ...c, text: `<${c.text.length} bytes>` })} (${round}, seed ${SEED})`;
          if (expected.status === 500 && got.status !== 500) {
            // koa-compress fails with a 500 when no coding at all is acceptable (identity;q=0 and
            // nothing else): it sets Content-Encoding to undefined. Ours sends the body as is.
            assert.equal(got.status, c.status, where);
            assert.equal(got.headers['content-encoding'], c.contentEncoding, where);
            continue;
          }
          assert.equal(got.status, expected.status, where);
          assert.deepEqual(comparable(got.headers), comparable(expected.headers), where);
          assert.ok(
            decode(got.headers['content-encoding'], got.body).equals(
              decode(expected.headers['content-encoding'], expected.body),
            ),
            `decoded bodies differ: ${where}`,
          );
          const bodiless = c.method === 'HEAD' || got.status === 204 || got.status === 304;
          if (got.headers['content-length'] !== undefined && !bodiless)
            assert.equal(Number(got.headers['content-length']), got.body.length, where);
          if (expected.headers['content-length'] !== undefined)
            assert.equal(got.headers['content-length'], expected.headers['content-length'], where);
          const encoding = got.headers['content-encoding'];
          if (encoding !== undefined && encoding !== 'x-custom') {
            assert.ok(
              got.body.length <= expected.body.length * 1.02 + 16,
              `ours ${got.body.length} B, peer ${expected.body.length} B: ${where}`,
            );
          }
        }
      }
      const stats = cache.stats();
      assert.ok(stats.hits > 0 && stats.misses > 0, JSON.stringify(stats));
    } finally {
      await Promise.all([new Promise((r) => ourServer.close(r)), new Promise((r) => theirServer.close(r))]);
    }
  });
}
