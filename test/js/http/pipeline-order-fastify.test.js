'use strict';
// Mount order never changes an answer (issue 53, Fastify): ssr-native/fastify's fastifyCompress,
// fastifyEtag and fastifyCriticalCss registered in each of their 6 orders, fastifyStatic and the
// HTML routes after them, answer a miss, the page again, the page without Accept-Encoding, a 304
// (If-None-Match), a HEAD, private pages (Cache-Control: private, a Set-Cookie) and a static file
// exactly as the documented order (fastifyCriticalCss -> fastifyEtag -> fastifyCompress) does:
// status, Content-Encoding, Vary, ETag and the decoded body, with the browsers' Accept-Encoding.
// Real Fastify over HTTP/1.1 and HTTP/2 (h2c, `http2: true`). They agree because fastifyCompress
// adds its onSend hook to each route, and Fastify runs route hooks after the app's; fastifyEtag
// and fastifyCriticalCss share one onSend hook whose stages run in a fixed order
// (lib/fastify/pipeline.js), so the 304 is decided on the inlined page in every order. The page's size comes from a seeded generator
// (PIPELINE_ORDER_SEED replays one; every failure names it).
const test = require('node:test');
const assert = require('node:assert/strict');
const Fastify = require('fastify');
const pack = require('../../../lib/fastify/index.js');
const { etag } = require('../../../lib/etag');
const { request } = require('../helpers/http');
const { h2request, trackSessions, closeServer } = require('../helpers/http2');
const { STYLESHEET } = require('../helpers/critical-css-pages');
const {
  BROWSER_ACCEPT_ENCODING,
  permutations,
  seededPage,
  answerOf,
  styleBlocks,
} = require('../helpers/pipeline-order');

const NAMES = ['fastifyCriticalCss', 'fastifyEtag', 'fastifyCompress'];
const DOCUMENTED = ['fastifyCriticalCss', 'fastifyEtag', 'fastifyCompress'];

const { input: INPUT, dist, page: PAGE, inlined: INLINED } = seededPage();

async function fastifyApp(protocol, order) {
  const options = {
    fastifyCriticalCss: { browserDistFolder: dist.dir },
    fastifyEtag: {},
    fastifyCompress: {},
  };
  const app = Fastify(protocol === 'HTTP/2' ? { http2: true } : {});
  for (const name of order) await app.register(pack[name], options[name]);
  await app.register(pack.fastifyStatic, { root: dist.dir });
  for (const path of ['/page', '/private', '/cookie']) {
    app.get(path, (req, reply) => {
      reply.type('text/html; charset=utf-8');
      reply.header('Cache-Control', path === '/private' ? 'private, max-age=60' : 'public, s-maxage=60');
      if (path === '/cookie') reply.header('Set-Cookie', 'session=user-1; Path=/');
      reply.send(PAGE);
    });
  }
  if (protocol === 'HTTP/2') trackSessions(app.server);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${app.server.address().port}`;
  const close = () => (protocol === 'HTTP/2' ? Promise.all([closeServer(app.server), app.close()]) : app.close());
  return { url, close };
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
  ['private page', 'GET', '/private'],
  ['Set-Cookie page', 'GET', '/cookie'],
  ['a static file', 'GET', `/${STYLESHEET}`],
];

async function run(protocol, order) {
  const server = await fastifyApp(protocol, order);
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
  }
  return answers;
}

for (const protocol of ['HTTP/1.1', 'HTTP/2']) {
  let documented;
  const documentedAnswers = () => (documented = documented || run(protocol, DOCUMENTED));

  test(`${protocol}, the documented order (${DOCUMENTED.join(' -> ')}): the answers the others must give`, async () => {
    const answers = new Map(await documentedAnswers());
    const miss = answers.get('miss');
    const identity = answers.get('the page without Accept-Encoding');
    assert.equal(miss.status, 200, INPUT);
    assert.match(miss['content-encoding'], /^(?:br|zstd)$/, INPUT);
    assert.match(miss.vary, /Accept-Encoding/i, INPUT);
    assert.equal(miss.etag, identity.etag, `${INPUT}: @fastify/compress keeps the tag as it is`);
    assert.equal(miss.body, INLINED, `${INPUT}: the page inlined once`);
    assert.equal(styleBlocks(miss.body), styleBlocks(INLINED), INPUT);
    assert.deepEqual(answers.get('the page again'), miss, INPUT);
    assert.equal(identity['content-encoding'], undefined, INPUT);
    assert.equal(identity.body, INLINED, INPUT);
    assert.equal(answers.get('304').status, 304, INPUT);
    assert.equal(answers.get('304 without Accept-Encoding').status, 304, INPUT);
    assert.equal(answers.get('HEAD').status, 200, INPUT);
    assert.equal(answers.get('HEAD').body, '', INPUT);
    assert.equal(answers.get('private page').body, INLINED, INPUT);
    assert.equal(answers.get('private page')['content-encoding'], miss['content-encoding'], INPUT);
    assert.ok(answers.get('Set-Cookie page')['set-cookie'], `${INPUT}: the cookie goes out`);
    assert.equal(answers.get('Set-Cookie page').body, INLINED, INPUT);
    assert.equal(answers.get('a static file')['content-encoding'], miss['content-encoding'], INPUT);
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

test('fastifyCriticalCss in a child context of fastifyEtag: one warning, the answers still correct', async () => {
  const warnings = [];
  const onWarning = (warning) => {
    if (warning.code === 'SSR_NATIVE_MOUNT_ORDER') warnings.push(warning);
  };
  process.on('warning', onWarning);
  const app = Fastify();
  try {
    // the other way round (criticalCss outside, etag inside) keeps the stage order: no warning
    await app.register(async (child) => {
      await child.register(pack.fastifyCriticalCss, { browserDistFolder: dist.dir });
      await child.register(async (inner) => {
        await inner.register(pack.fastifyEtag);
        inner.get('/fine', (req, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
      });
    });
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    assert.equal(warnings.length, 0, 'criticalCss outside etag: no warning');
    await app.register(pack.fastifyEtag);
    await app.register(async (child) => {
      await child.register(pack.fastifyCriticalCss, { browserDistFolder: dist.dir });
      child.get('/page', (req, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
    });
    await app.register(async (child) => {
      await child.register(pack.fastifyCriticalCss, { browserDistFolder: dist.dir });
      child.get('/other', (req, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${app.server.address().port}`;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(warnings.length, 1, 'one warning');
    assert.match(warnings[0].message, /fastifyCriticalCss, fastifyEtag, fastifyCompress/);
    for (const path of ['/fine', '/page', '/other']) {
      const miss = await request(`${url}${path}`);
      assert.equal(miss.status, 200, `${path}, ${INPUT}`);
      assert.equal(miss.body.toString('latin1'), INLINED, `${path}, ${INPUT}: inlined once`);
      assert.equal(miss.headers.etag, etag(miss.body, { weak: false }), `${path}, ${INPUT}: the tag of the bytes sent`);
      const again = await request(`${url}${path}`, { headers: { 'if-none-match': miss.headers.etag } });
      // the 304 is decided before inlining in a child context: a full answer, never a wrong 304
      assert.equal(again.status, path === '/fine' ? 304 : 200, `${path}, ${INPUT}`);
      if (again.status === 200) assert.equal(again.body.toString('latin1'), INLINED, `${path}, ${INPUT}`);
    }
  } finally {
    process.off('warning', onWarning);
    await app.close();
  }
});
