'use strict';
// The one 304 decision (lib/http/conditional.js isNotModified), asked by each of its callers: the
// held response's etag stage, Angular's writeResponse without a held response, and the response
// cache's hit (CacheEngine#isNotModified). The same (method, status, request validators, response
// validators) cases, drawn by a seeded generator from the full matrix, go to each; every caller
// must give its reading's answer, written out again here: 'express' as the `fresh` package reads
// validators (Express's res.send, which the held response and writeResponse stand in for),
// 'shared-cache' from RFC 9110 13.1.2, 13.1.3 and 13.2.2 (the response cache, as nginx answers),
// 'koa' as Koa's ctx.fresh reads them (its own fresh 0.5.2, koa-conditional-get's answer).
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { isNotModified } = require('../../../lib/http/conditional');
const { HeldResponse } = require('../../../lib/http/held-response');
const { writeResponse } = require('../../../lib/angular/write-response');
const { CacheEngine } = require('../../../lib/cache/engine');
const { listen } = require('../helpers/http');
const { mulberry32 } = require('../helpers/seeded-random');

// the fresh Koa itself loads (0.5.2), for Koa's reading
const koaFresh = require(require.resolve('fresh', { paths: [require('node:path').dirname(require.resolve('koa'))] }));

const SEED = Number(process.env.NOT_MODIFIED_SEED || 0x304);
const CASE_COUNT = 400;

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const day = 86400000;
const httpDate = (ms) => new Date(ms).toUTCString();

const METHODS = ['GET', 'HEAD', 'POST'];
const STATUSES = [200, 203, 304, 404];
const ETAGS = ['"a"', 'W/"a"'];
const LAST_MODIFIED = [undefined, httpDate(T0)];
const IF_NONE_MATCH = [undefined, '"a"', 'W/"a"', '"b"', '"b", W/"a"', '*', ''];
const IF_MODIFIED_SINCE = [undefined, httpDate(T0 - day), httpDate(T0), httpDate(T0 + day), 'yesterday'];
const CACHE_CONTROL = [undefined, 'no-cache'];

const opaque = (tag) => tag.trim().replace(/^W\//, '');

/**
 * Express's reading (fresh 2, Express 5's): a validator needed, no-cache stale, a non-empty
 * If-None-Match decides alone (`*` or a listed tag), else If-Modified-Since against a Last-Modified.
 */
function expectedExpress({ method, status, inm, ims, cacheControl, etag, lastModified }) {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (status < 200 || status > 299) return false;
  if (!inm && !ims) return false;
  if (cacheControl !== undefined && /(?:^|,)\s*no-cache\s*(?:,|$)/.test(cacheControl)) return false;
  if (inm) return inm === '*' || inm.split(',').some((t) => t.trim() !== '' && opaque(t) === opaque(etag));
  return lastModified !== undefined && Date.parse(lastModified) <= Date.parse(ims);
}

/** Koa's reading: ctx.fresh (GET/HEAD, fresh 0.5.2 on the response's validators) for a 2xx. */
function expectedKoa(c) {
  if (c.method !== 'GET' && c.method !== 'HEAD') return false;
  if (c.status < 200 || c.status > 299) return false;
  return koaFresh(requestHeaders(c), { etag: c.etag, 'last-modified': c.lastModified });
}

/** The shared cache's reading: GET/HEAD, a 2xx, If-None-Match (weak) wins, else If-Modified-Since. */
function expected({ method, status, inm, ims, etag, lastModified }) {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (status < 200 || status > 299) return false;
  if (inm !== undefined) {
    if (inm.trim() === '*') return true;
    return inm.split(',').some((t) => t.trim() !== '' && opaque(t) === opaque(etag));
  }
  if (ims === undefined || lastModified === undefined) return false;
  const since = Date.parse(ims);
  return !Number.isNaN(since) && Date.parse(lastModified) <= since;
}

function drawCases() {
  const random = mulberry32(SEED);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const cases = [];
  for (let i = 0; i < CASE_COUNT; i++) {
    cases.push({
      method: pick(METHODS),
      status: pick(STATUSES),
      inm: pick(IF_NONE_MATCH),
      ims: pick(IF_MODIFIED_SINCE),
      cacheControl: pick(CACHE_CONTROL),
      etag: pick(ETAGS),
      lastModified: pick(LAST_MODIFIED),
    });
  }
  return cases;
}

function requestHeaders(c) {
  const headers = {};
  if (c.inm !== undefined) headers['if-none-match'] = c.inm;
  if (c.ims !== undefined) headers['if-modified-since'] = c.ims;
  if (c.cacheControl !== undefined) headers['cache-control'] = c.cacheControl;
  return headers;
}

// The case travels in the URL, so that the route answers it as told.
function send(url, agent, c) {
  return new Promise((resolve, reject) => {
    const path = `/?case=${encodeURIComponent(JSON.stringify(c))}`;
    const req = http.request(`${url}${path}`, { method: c.method, headers: requestHeaders(c), agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function caseOf(req) {
  return JSON.parse(new URL(req.url, 'http://x').searchParams.get('case'));
}

// A 304 the caller decided: the route's Content-Type is taken off (a route's own 304 keeps it).
function decided304(res) {
  return res.statusCode === 304 && res.headers['content-type'] === undefined;
}

async function overHttp(handler, cases) {
  const server = await listen(handler);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  try {
    const answers = [];
    for (const c of cases) answers.push(decided304(await send(server.url, agent, c)));
    return answers;
  } finally {
    agent.destroy();
    await server.close();
  }
}

function responseHeaders(c) {
  const headers = { 'content-type': 'text/html; charset=utf-8', etag: c.etag };
  if (c.lastModified !== undefined) headers['last-modified'] = c.lastModified;
  return headers;
}

const CALLERS = {
  // the etag stage of the held response, asked by a route that wants its tag and 304 there
  heldResponse: (cases) =>
    overHttp((req, res) => {
      const c = caseOf(req);
      HeldResponse.of(req, res).askTag();
      res.statusCode = c.status;
      for (const [name, value] of Object.entries(responseHeaders(c))) res.setHeader(name, value);
      res.end('<p>page</p>');
    }, cases),
  // Angular's writeResponse on its own (no held response): a Response-shaped value, so that a
  // route's 304 may carry a body as the other callers' may
  writeResponse: (cases) =>
    overHttp((req, res) => {
      const c = caseOf(req);
      const page = new Response('<p>page</p>', { headers: responseHeaders(c) });
      writeResponse({ status: c.status, headers: page.headers, body: page.body }, req, res).catch((err) =>
        res.destroy(err),
      );
    }, cases),
  // the response cache's hit, on an entry with the case's status and validators
  cacheHit: async (cases) => {
    const engine = new CacheEngine({});
    return cases.map((c) =>
      engine.isNotModified(
        { method: c.method, headers: requestHeaders(c) },
        { status: c.status, etag: c.etag, lastModified: c.lastModified, headers: {} },
      ),
    );
  },
  // the rule itself, in each reading
  conditionalExpress: async (cases) =>
    cases.map((c) => isNotModified(c.method, c.status, requestHeaders(c), c.etag, c.lastModified, 'express')),
  conditionalKoa: async (cases) =>
    cases.map((c) => isNotModified(c.method, c.status, requestHeaders(c), c.etag, c.lastModified, 'koa')),
  conditionalSharedCache: async (cases) =>
    cases.map((c) => isNotModified(c.method, c.status, requestHeaders(c), c.etag, c.lastModified, 'shared-cache')),
};

// Which reading each caller answers with.
const READING = {
  heldResponse: expectedExpress,
  writeResponse: expectedExpress,
  cacheHit: expected,
  conditionalExpress: expectedExpress,
  conditionalKoa: expectedKoa,
  conditionalSharedCache: expected,
};

const CASES = drawCases();

for (const [name, ask] of Object.entries(CALLERS)) {
  test(`${name}: the one 304 decision on ${CASE_COUNT} seeded cases (seed ${SEED})`, async () => {
    const answers = await ask(CASES);
    const wrong = [];
    for (let i = 0; i < CASES.length; i++) {
      const want = READING[name](CASES[i]);
      if (answers[i] !== want) wrong.push(`${JSON.stringify(CASES[i])}: ${answers[i]}, expected ${want}`);
    }
    assert.deepEqual(wrong, [], `${wrong.length} cases differ from the rule:\n${wrong.slice(0, 12).join('\n')}`);
  });
}

test('the seeded cases cover every value of every dimension and both answers', () => {
  for (const [key, values] of [
    ['method', METHODS],
    ['status', STATUSES],
    ['inm', IF_NONE_MATCH],
    ['ims', IF_MODIFIED_SINCE],
    ['etag', ETAGS],
  ]) {
    for (const v of values)
      assert.ok(
        CASES.some((c) => c[key] === v),
        `no case with ${key} ${v}`,
      );
  }
  assert.ok(CASES.filter(expected).length > 20, 'too few 304 cases');
  assert.ok(CASES.filter(expectedExpress).length > 20, 'too few 304 cases in the express reading');
  assert.ok(
    CASES.some((c) => expected(c) !== expectedExpress(c)),
    'no case tells the two readings apart',
  );
  assert.ok(CASES.filter((c) => !expected(c)).length > 20, 'too few 200 cases');
});
