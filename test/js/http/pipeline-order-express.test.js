'use strict';
// Mount order never changes an answer (issue 53, Express): compression, responseCache and
// criticalCss in each of their 6 orders, serveStatic and an HTML route after them, answer a miss,
// a hit, a 304 (on a hit and on a miss), a HEAD (a hit and a miss) and private pages (Cache-Control:
// private, a Set-Cookie) exactly as the documented order (compression -> responseCache ->
// criticalCss) does: status, Content-Encoding, Vary, ETag and the decoded body, with the
// browsers' Accept-Encoding. Real Express over HTTP/1.1; over HTTP/2 the same middleware in a
// connect-style chain on node:http2's compatibility API (Express does not run there).
const test = require('node:test');
const assert = require('node:assert/strict');
const express = require('express');
const { criticalCss } = require('../../../lib/express/critical-css');
const { serveStatic } = require('../../../lib/index.js');
const compression = require('../../../lib/express/compression');
const { responseCache } = require('../../../lib/express/cache');
const { etag } = require('../../../lib/etag');
const { listen, request } = require('../helpers/http');
const { listenH2, h2request } = require('../helpers/http2');
const { STYLESHEET } = require('../helpers/critical-css-pages');
const {
  BROWSER_ACCEPT_ENCODING,
  permutations,
  seededPage,
  bodyOf,
  answerOf: compared,
  styleBlocks,
} = require('../helpers/pipeline-order');
const answerOf = (answer) => compared(answer, true);

const NAMES = ['compression', 'responseCache', 'criticalCss'];
const DOCUMENTED = ['compression', 'responseCache', 'criticalCss'];

const { dist, page: PAGE, inlined: INLINED } = seededPage();

// The HTML routes: a public page the cache stores, and two private ones it must not.
function route(req, res) {
  res.type('html');
  if (req.path === '/private') res.set('Cache-Control', 'private, max-age=60');
  else if (req.path === '/cookie') {
    res.set('Cache-Control', 'public, s-maxage=60');
    res.cookie('session', 'user-1');
  } else res.set('Cache-Control', 'public, s-maxage=60');
  res.send(PAGE);
}

// The same route on a bare node:http(2) response, for the connect-style chain: a weak ETag, as
// Express's res.send gives.
const PAGE_TAG = etag(PAGE, { weak: true });
function bareRoute(req, res) {
  const path = req.url.split('?')[0];
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('ETag', PAGE_TAG);
  if (path === '/private') res.setHeader('Cache-Control', 'private, max-age=60');
  else res.setHeader('Cache-Control', 'public, s-maxage=60');
  if (path === '/cookie') res.setHeader('Set-Cookie', 'session=user-1; Path=/');
  res.end(PAGE);
}

function layersOf(order) {
  const css = criticalCss({ browserDistFolder: dist.dir });
  const made = { compression: compression(), responseCache: responseCache(), criticalCss: css };
  return { layers: order.map((name) => made[name]), close: () => css.close() };
}

function expressApp(order) {
  const { layers, close } = layersOf(order);
  const app = express();
  for (const layer of layers) app.use(layer);
  app.use(serveStatic(dist.dir));
  app.get(/.*/, route);
  return { handler: app, close };
}

// connect's chain, as Express runs app.use() layers
function chainApp(order) {
  const { layers, close } = layersOf(order);
  const chain = layers.concat(serveStatic(dist.dir), bareRoute);
  const handler = (req, res) => {
    let at = 0;
    const next = (err) => {
      if (err) {
        res.statusCode = 500;
        res.end(String(err));
      } else chain[at++](req, res, next);
    };
    next();
  };
  return { handler, close };
}

// The script: each step's name, method, path and headers (`tag`: If-None-Match of the first answer's
// ETag; `identity`: no Accept-Encoding).
const SCRIPT = [
  ['miss', 'GET', '/page'],
  ['hit', 'GET', '/page'],
  ['hit again', 'GET', '/page'],
  ['hit without Accept-Encoding', 'GET', '/page', 'identity'],
  ['304 on a hit', 'GET', '/page', 'tag'],
  ['304 on a miss', 'GET', '/fresh', 'tag'],
  ['HEAD on a hit', 'HEAD', '/page'],
  ['HEAD on a miss', 'HEAD', '/head-first'],
  ['GET after a HEAD miss', 'GET', '/head-first'],
  ['private page', 'GET', '/private'],
  ['private page again', 'GET', '/private'],
  ['Set-Cookie page', 'GET', '/cookie'],
  ['Set-Cookie page again', 'GET', '/cookie'],
  ['a static file', 'GET', `/${STYLESHEET}`],
  ['a static file again', 'GET', `/${STYLESHEET}`],
];

async function run(protocol, order) {
  const { handler, close } = protocol === 'HTTP/2' ? chainApp(order) : expressApp(order);
  const server = protocol === 'HTTP/2' ? await listenH2(handler) : await listen(handler);
  const send = (method, path, headers) =>
    protocol === 'HTTP/2'
      ? h2request(server.url, path, { method, headers })
      : request(`${server.url}${path}`, { method, headers });
  const answers = [];
  let tag;
  try {
    for (const [name, method, path, validator] of SCRIPT) {
      const headers = validator === 'identity' ? {} : { 'accept-encoding': BROWSER_ACCEPT_ENCODING };
      if (validator === 'tag') headers['if-none-match'] = tag;
      const answer = answerOf(await send(method, path, headers));
      if (tag === undefined) tag = answer.etag;
      answers.push([name, answer]);
    }
  } finally {
    await server.close();
    close();
  }
  return answers;
}

for (const protocol of ['HTTP/1.1', 'HTTP/2']) {
  let documented;
  const documentedAnswers = () => (documented = documented || run(protocol, DOCUMENTED));

  test(`${protocol}, the documented order (${DOCUMENTED.join(' -> ')}): the answers the others must give`, async () => {
    const answers = new Map(await documentedAnswers());
    const miss = answers.get('miss');
    assert.equal(miss.status, 200);
    assert.equal(miss['content-encoding'], 'br');
    assert.match(miss.vary, /Accept-Encoding/i);
    assert.equal(miss.body, INLINED, 'the page inlined once');
    assert.equal(styleBlocks(miss.body), styleBlocks(INLINED));
    assert.deepEqual({ ...answers.get('hit'), fromCache: false }, miss, 'a hit is the miss again');
    assert.equal(answers.get('hit').fromCache, true);
    const identity = answers.get('hit without Accept-Encoding');
    assert.deepEqual([identity.fromCache, identity['content-encoding']], [true, undefined], 'stored identity');
    assert.equal(identity.body, miss.body);
    assert.equal(answers.get('304 on a hit').status, 304);
    assert.equal(answers.get('304 on a miss').status, 304);
    assert.equal(answers.get('private page').body, INLINED);
    assert.equal(answers.get('private page')['content-encoding'], 'br');
    assert.ok(answers.get('Set-Cookie page')['set-cookie'], 'the cookie goes out');
    assert.equal(answers.get('private page again').fromCache, false);
    assert.equal(answers.get('Set-Cookie page again').fromCache, false);
    assert.equal(answers.get('a static file')['content-encoding'], 'br');
  });

  for (const order of permutations(NAMES)) {
    if (order.join() === DOCUMENTED.join()) continue;
    test(`${protocol}, ${order.join(' -> ')}: the documented order's answers`, async () => {
      const expected = await documentedAnswers();
      const answers = await run(protocol, order);
      for (let i = 0; i < expected.length; i++) {
        const [name, want] = expected[i];
        assert.deepEqual(
          { ...answers[i][1], body: undefined },
          { ...want, body: undefined },
          `${protocol}, ${order.join(' -> ')}, ${name}: the head differs`,
        );
        assert.ok(answers[i][1].body === want.body, `${protocol}, ${order.join(' -> ')}, ${name}: the body differs`);
      }
    });
  }
}

test('a compression mounted after responseCache on some paths only: one warning, never a compressed body without Vary', async () => {
  const warnings = [];
  const onWarning = (warning) => {
    if (warning.code === 'SSR_NATIVE_MOUNT_ORDER') warnings.push(warning);
  };
  process.on('warning', onWarning);
  const css = criticalCss({ browserDistFolder: dist.dir });
  const app = express();
  app.use(responseCache());
  app.use('/app', compression());
  app.use(css);
  app.get(/.*/, route);
  const server = await listen(app);
  const headers = { 'accept-encoding': BROWSER_ACCEPT_ENCODING };
  try {
    const answers = [];
    for (const path of ['/app/page', '/other', '/app/page', '/other', '/app/next', '/app/next']) {
      answers.push([path, await request(`${server.url}${path}`, { headers })]);
    }
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    assert.equal(warnings.length, 1, 'one warning');
    assert.match(warnings[0].message, /compression, serveStatic, responseCache, criticalCss/);
    for (const [path, answer] of answers) {
      assert.equal(answer.status, 200, path);
      assert.equal(bodyOf(answer), INLINED, `${path}: inlined once`);
      if (answer.headers['content-encoding'] !== undefined) assert.match(answer.headers.vary, /Accept-Encoding/i, path);
    }
    assert.equal(answers[0][1].headers['content-encoding'], 'br', 'the first miss is compressed');
  } finally {
    process.off('warning', onWarning);
    await server.close();
    css.close();
  }
});
