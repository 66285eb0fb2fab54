'use strict';
// Differential test of compress()'s options against koa-compress 5.2.2 on Koa 2 and 3: the
// threshold (unset, a number, a string of bytes, 0, null, functions, a function returning
// undefined), per-coding options (false, null, functions returning options or false, a function
// returning a function), encodingPreference, defaultEncoding, wildcardAcceptEncoding and filter,
// each with `ctx.compress` unset, true, false or an object of options for the response. Seeded
// cases (body size, type, Accept-Encoding, override) per option set; ours is asked twice (a miss,
// then a content-cache hit). Same status, same headers but the framing (a compressed whole body
// goes out with a Content-Length where koa-compress streams it), decoded bodies byte-identical.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const peerCompress = require('koa-compress');
const { compress } = require('../../../lib/koa');
const { ContentCache } = require('../../../lib/compression/content-cache');
const { mulberry32 } = require('../helpers/seeded-random');
const { pick, decode, comparable } = require('../helpers/compression-diff');

const SEED = Number(process.env.COMPRESSION_DIFF_SEED || 0x0973);
const CASES_PER_SET = 24;

// Each entry: a label and a function making the options (the peer and ours each get their own).
const OPTION_SETS = [
  ['defaults', () => ({})],
  ['threshold 2048', () => ({ threshold: 2048 })],
  ["threshold '2kb'", () => ({ threshold: '2kb' })],
  ['threshold 0', () => ({ threshold: 0 })],
  ['threshold null', () => ({ threshold: null })],
  ['threshold by type', () => ({ threshold: (type) => (type === 'text/html' ? 100 : 5000) })],
  ['threshold function answering undefined', () => ({ threshold: () => undefined })],
  ['br false', () => ({ br: false })],
  ['gzip null, br false', () => ({ gzip: null, br: false })],
  ['br by size', () => ({ br: (type, size) => (size > 3000 ? {} : false) })],
  ['zstd false, br a function of a function', () => ({ zstd: false, br: () => () => false })],
  ['encodingPreference gzip first', () => ({ encodingPreference: ['gzip', 'br', 'identity'] })],
  ["defaultEncoding '*'", () => ({ defaultEncoding: '*' })],
  ["wildcardAcceptEncoding 'br'", () => ({ wildcardAcceptEncoding: 'br' })],
  ['filter text/plain only', () => ({ filter: (type) => type === 'text/plain' })],
];
const SIZES = [50, 1500, 2500, 6000];
const TYPES = ['text/html', 'text/plain', 'image/png'];
const ACCEPT_ENCODINGS = ['gzip, deflate, br, zstd', 'gzip', 'br;q=0.5, gzip', '*', undefined];
const OVERRIDES = [undefined, undefined, true, false, { threshold: 10 }, { br: false }, { threshold: '1mb' }];

function makeCases(random) {
  return Array.from({ length: CASES_PER_SET }, (_, id) => ({
    id,
    size: pick(random, SIZES),
    type: pick(random, TYPES),
    acceptEncoding: pick(random, ACCEPT_ENCODINGS),
    override: pick(random, OVERRIDES),
  }));
}

function route(cases) {
  return (ctx) => {
    const c = cases[Number(/^\/case\/(\d+)$/.exec(ctx.path)[1])];
    if (c.override !== undefined) ctx.compress = c.override;
    ctx.type = c.type;
    ctx.body = `<p>${'compress me '.repeat(Math.ceil(c.size / 12))}</p>`.slice(0, c.size);
  };
}

function fetchRaw(port, c) {
  return new Promise((resolve, reject) => {
    const headers = c.acceptEncoding === undefined ? {} : { 'accept-encoding': c.acceptEncoding };
    const req = http.request({ host: '127.0.0.1', port, path: `/case/${c.id}`, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function listen(app) {
  const server = http.createServer(app.callback());
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

for (const koaName of ['koa', 'koa2']) {
  test(`compress() options answer as koa-compress 5.2.2's on ${koaName === 'koa' ? 'Koa 3' : 'Koa 2'} (seed ${SEED})`, async () => {
    const Koa = require(koaName);
    const random = mulberry32(SEED);
    for (const [label, makeOptions] of OPTION_SETS) {
      const cases = makeCases(random);
      const ours = new Koa();
      ours.use(compress({ ...makeOptions(), cache: new ContentCache() }));
      ours.use(route(cases));
      const theirs = new Koa();
      theirs.use(peerCompress(makeOptions()));
      theirs.use(route(cases));
      const [ourServer, theirServer] = await Promise.all([listen(ours), listen(theirs)]);
      try {
        for (const c of cases) {
          const expected = await fetchRaw(theirServer.address().port, c);
          for (const round of ['miss', 'hit']) {
            const got = await fetchRaw(ourServer.address().port, c);
            const where = `${label}: case ${JSON.stringify(c)} (${round}, seed ${SEED})`;
            assert.equal(got.status, expected.status, where);
            assert.deepEqual(comparable(got.headers), comparable(expected.headers), where);
            assert.ok(
              decode(got.headers['content-encoding'], got.body).equals(
                decode(expected.headers['content-encoding'], expected.body),
              ),
              `decoded bodies differ: ${where}`,
            );
          }
        }
      } finally {
        ourServer.close();
        theirServer.close();
      }
    }
  });
}
