'use strict';
// Mount order never changes an answer (issue 53, Hono): ssr-native/hono's compress, etag and
// criticalCss in each of their 6 orders, serveStatic and an HTML route after them, answer a miss,
// the page again, the page without Accept-Encoding, a 304 (If-None-Match), a HEAD, private pages
// (Cache-Control: private, a Set-Cookie) and a static file exactly as the documented order
// (compress -> etag -> criticalCss) does: status, Content-Encoding, Vary, ETag and the decoded
// body, with the browsers' Accept-Encoding. Real Hono on @hono/node-server's listener, over
// HTTP/1.1 and node:http2 (h2c). The page's size comes from a seeded generator
// (PIPELINE_ORDER_SEED replays one; every failure names it).
const test = require('node:test');
const assert = require('node:assert/strict');
const { Hono } = require('hono');
const { getRequestListener } = require('@hono/node-server');
const hono = require('../../../lib/hono/index.js');
const { listen, request } = require('../helpers/http');
const { listenH2, h2request } = require('../helpers/http2');
const { STYLESHEET } = require('../helpers/critical-css-pages');
const {
  BROWSER_ACCEPT_ENCODING,
  permutations,
  seededPage,
  answerOf,
  styleBlocks,
} = require('../helpers/pipeline-order');

const NAMES = ['compress', 'etag', 'criticalCss'];
const DOCUMENTED = ['compress', 'etag', 'criticalCss'];

const { input: INPUT, dist, page: PAGE, inlined: INLINED } = seededPage();

function honoApp(order) {
  const css = hono.criticalCss({ browserDistFolder: dist.dir });
  const made = { compress: hono.compress(), etag: hono.etag(), criticalCss: css };
  const app = new Hono();
  for (const name of order) app.use('*', made[name]);
  app.use('*', hono.serveStatic({ root: dist.dir }));
  app.get('*', (c) => {
    if (c.req.path === '/private') c.header('Cache-Control', 'private, max-age=60');
    else c.header('Cache-Control', 'public, s-maxage=60');
    if (c.req.path === '/cookie') c.header('Set-Cookie', 'session=user-1; Path=/');
    return c.html(PAGE);
  });
  return { handler: getRequestListener(app.fetch), close: () => css.close() };
}

// each step's name, method, path and headers (`tag`: If-None-Match of the first answer's ETag;
// `identity`: no Accept-Encoding)
const SCRIPT = [
  ['miss', 'GET', '/page'],
  ['the page again', 'GET', '/page'],
  ['the page without Accept-Encoding', 'GET', '/page', 'identity'],
  ['304', 'GET', '/page', 'tag'],
  ['304 without Accept-Encoding', 'GET', '/page', 'tag identity'],
  ['HEAD', 'HEAD', '/page'],
  ['HEAD with If-None-Match', 'HEAD', '/page', 'tag'],
  ['private page', 'GET', '/private'],
  ['Set-Cookie page', 'GET', '/cookie'],
  ['a static file', 'GET', `/${STYLESHEET}`],
];

async function run(protocol, order) {
  const { handler, close } = honoApp(order);
  const server = protocol === 'HTTP/2' ? await listenH2(handler) : await listen(handler);
  const send = (method, path, headers) =>
    protocol === 'HTTP/2'
      ? h2request(server.url, path, { method, headers })
      : request(`${server.url}${path}`, { method, headers });
  const answers = [];
  let tag;
  try {
    for (const [name, method, path, how = ''] of SCRIPT) {
      const headers = how.includes('identity') ? {} : { 'accept-encoding': BROWSER_ACCEPT_ENCODING };
      if (how.includes('tag')) headers['if-none-match'] = tag;
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
    assert.equal(miss.status, 200, INPUT);
    assert.equal(miss['content-encoding'], 'gzip', INPUT);
    assert.match(miss.vary, /Accept-Encoding/i, INPUT);
    assert.match(miss.etag, /^W\/"/, `${INPUT}: a weak ETag after compression`);
    assert.equal(miss.body, INLINED, `${INPUT}: the page inlined once`);
    assert.equal(styleBlocks(miss.body), styleBlocks(INLINED), INPUT);
    assert.deepEqual(answers.get('the page again'), miss, INPUT);
    const identity = answers.get('the page without Accept-Encoding');
    assert.equal(identity['content-encoding'], undefined, INPUT);
    assert.equal(identity.body, INLINED, INPUT);
    const notModified = answers.get('304');
    assert.equal(notModified.status, 304, INPUT);
    assert.deepEqual(
      [notModified.etag, notModified.vary],
      [miss.etag, miss.vary],
      `${INPUT}: the 304 has the 200's validator and Vary`,
    );
    const identityNotModified = answers.get('304 without Accept-Encoding');
    assert.equal(identityNotModified.status, 304, INPUT);
    assert.deepEqual([identityNotModified.etag, identityNotModified.vary], [identity.etag, identity.vary], INPUT);
    const head = answers.get('HEAD');
    assert.deepEqual([head.status, head.body], [200, ''], INPUT);
    assert.equal(head.etag, identity.etag, `${INPUT}: a HEAD names the page a GET sends (inlined)`);
    assert.equal(answers.get('HEAD with If-None-Match').status, 304, INPUT);
    assert.equal(answers.get('private page').body, INLINED, INPUT);
    assert.equal(answers.get('private page')['content-encoding'], 'gzip', INPUT);
    assert.ok(answers.get('Set-Cookie page')['set-cookie'], `${INPUT}: the cookie goes out`);
    assert.equal(answers.get('Set-Cookie page').body, INLINED, INPUT);
    assert.equal(answers.get('a static file')['content-encoding'], 'gzip', INPUT);
  });

  for (const order of permutations(NAMES)) {
    if (order.join() === DOCUMENTED.join()) continue;
    test(`${protocol}, ${order.join(' -> ')}: the documented order's answers`, async () => {
      const expected = await documentedAnswers();
      const answers = await run(protocol, order);
      for (let i = 0; i < expected.length; i++) {
        const [name, want] = expected[i];
        const where = `${protocol}, ${order.join(' -> ')}, ${name}, ${INPUT}`;
        assert.deepEqual(
          { ...answers[i][1], body: undefined },
          { ...want, body: undefined },
          `${where}: the head differs`,
        );
        assert.ok(answers[i][1].body === want.body, `${where}: the body differs`);
        assert.ok(styleBlocks(answers[i][1].body) <= styleBlocks(INLINED), `${where}: inlined twice`);
      }
    });
  }
}
