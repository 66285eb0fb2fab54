'use strict';
// The one sharing rule (lib/http/shareable.js) as both components that share see it, on real
// node:http servers: each row of ONE table (a request's headers and body, the response head the
// route sends) is asked of the response cache (does the next plain visitor get the stored copy?)
// and of the dictionary learner (is the page sampled?), and of compression's choice of dcz
// against a learned dictionary (may this response be compressed against it?). At their defaults
// all use the strictest policy, so a row is storable exactly when it is learnable (the learner
// also wants 200 HTML) and may be sent in dcz.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { listen } = require('../helpers/http');
const { responseCache } = require('../../../lib/express/cache');
const compression = require('../../../lib/express/compression');
const { available, unavailableReason } = require('../../../lib/compression/dcz');
const shareable = require('../../../lib/http/shareable');
const { DictionaryTransport } = require('../../../lib/compression/dictionary-transport');

const PAGE = `<!doctype html><html><body>${'<p>public layout text</p>'.repeat(40)}</body></html>`;
const PUBLIC = { 'cache-control': 'public, max-age=60' };

// [name, request { headers, body, chunked }, response headers (status 200 unless given), shared?]
const TABLE = [
  ['plain GET, public max-age', {}, PUBLIC, true],
  ['s-maxage only', {}, { 'cache-control': 's-maxage=30' }, true],
  ['max-age only', {}, { 'cache-control': 'max-age=30' }, true],
  ['Expires in the future', {}, { expires: new Date(Date.now() + 3600e3).toUTCString() }, true],
  ['Cookie on the request', { headers: { cookie: 'sid=victim' } }, PUBLIC, false],
  ['Authorization on the request', { headers: { authorization: 'Bearer t' } }, PUBLIC, false],
  ['GET with a Content-Length body', { body: 'q=<script>x</script>' }, PUBLIC, false],
  ['GET with a chunked body', { body: 'q=<script>', chunked: true }, PUBLIC, false],
  ['GET with Content-Length: 0', { headers: { 'content-length': '0' } }, PUBLIC, true],
  ['private', {}, { 'cache-control': 'private, max-age=60' }, false],
  ['no-store', {}, { 'cache-control': 'public, max-age=60, no-store' }, false],
  ['no-cache', {}, { 'cache-control': 'public, max-age=60, no-cache' }, false],
  ['must-revalidate with max-age=0', {}, { 'cache-control': 'public, max-age=0, must-revalidate' }, false],
  ['max-age=0', {}, { 'cache-control': 'public, max-age=0' }, false],
  ['no lifetime at all', {}, {}, false],
  ['Set-Cookie', {}, { ...PUBLIC, 'set-cookie': 'sid=new' }, false],
  ['Vary: *', {}, { ...PUBLIC, vary: '*' }, false],
  ['Expires in the past', {}, { expires: 'Thu, 01 Jan 1970 00:00:00 GMT' }, false],
];

function send(url, { headers = {}, body, chunked } = {}) {
  return new Promise((resolve, reject) => {
    const h = { ...headers };
    if (body !== undefined) {
      if (chunked) h['transfer-encoding'] = 'chunked';
      else h['content-length'] = String(Buffer.byteLength(body));
    }
    const req = http.request(url, { method: 'GET', headers: h, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

function route(responseHeaders) {
  return (req, res) => {
    req.resume(); // an app that reads its body
    req.on('end', () => {
      res.statusCode = 200;
      res.setHeader('content-type', 'text/html; charset=utf-8');
      for (const [k, v] of Object.entries(responseHeaders)) res.setHeader(k, v);
      res.end(PAGE);
    });
  };
}

function chain(middleware, handler) {
  return (req, res) => middleware(req, res, () => handler(req, res));
}

async function storedForTheNextVisitor(request, responseHeaders) {
  let renders = 0;
  const render = route(responseHeaders);
  const cache = responseCache();
  const { url, close } = await listen(
    chain(cache, (req, res) => {
      renders++;
      render(req, res);
    }),
  );
  try {
    await send(`${url}/p`, request);
    await send(`${url}/p`);
    return renders === 1;
  } finally {
    await close();
  }
}

async function learned(request, responseHeaders) {
  const middleware = compression({ dictionary: { minPages: 1000, maxSamples: 1000 } });
  const { url, close } = await listen(chain(middleware, route(responseHeaders)));
  try {
    await send(`${url}/p`, { ...request, headers: { ...request.headers, 'accept-encoding': 'identity' } });
    const stats = middleware.dictionary.stats();
    assert.equal(stats.sampled + stats.refused, 1, 'the page was offered to the learner');
    return stats.sampled === 1;
  } finally {
    await close();
  }
}

for (const [name, request, responseHeaders, shared] of TABLE) {
  test(`shareable: ${name} -> ${shared ? 'shared' : 'not shared'} (the rule itself)`, () => {
    const headers = { ...request.headers };
    if (request.body !== undefined)
      headers[request.chunked ? 'transfer-encoding' : 'content-length'] = request.chunked
        ? 'chunked'
        : String(request.body.length);
    assert.equal(shareable.mayShare({ method: 'GET', headers }, { status: 200, headers: responseHeaders }), shared);
    // and compression's choice of dcz against a learned dictionary (the oracle's door)
    const transport = DictionaryTransport.from(true);
    const response = { req: { method: 'GET', url: '/p', headers }, status: 200, getHeader: (n) => responseHeaders[n] };
    assert.equal(transport.whyNotLearnedDcz(response) === undefined, shared);
  });
  test(`shareable: ${name} -> the response cache ${shared ? 'stores' : 'does not store'} it`, async () => {
    assert.equal(await storedForTheNextVisitor(request, responseHeaders), shared);
  });
  test(
    `shareable: ${name} -> the dictionary ${shared ? 'learns' : 'does not learn'} it`,
    { skip: available ? false : `libzstd is not available: ${unavailableReason}` },
    async () => {
      assert.equal(await learned(request, responseHeaders), shared);
    },
  );
}

test('shareable: the cache opt-ins loosen the rule for the cache alone', () => {
  const policy = { cookies: true, authorization: () => true, defaultTtl: 60 };
  const req = { method: 'GET', headers: { cookie: 'a=b', authorization: 'Bearer t' } };
  assert.equal(shareable.whyRequestNotShareable(req), 'cookie');
  assert.equal(shareable.whyRequestNotShareable(req, policy), undefined);
  assert.equal(shareable.responseShareability(200, {}).why, 'no-lifetime');
  assert.equal(shareable.responseShareability(200, {}, { policy }).lifetime, 60);
  // a body is never loosened: it is not in any key
  assert.equal(shareable.whyRequestNotShareable({ method: 'GET', headers: { 'content-length': '5' } }, policy), 'body');
});
