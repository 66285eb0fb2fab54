'use strict';
// Mount order never changes an answer (issue 53, Koa): ssr-native/koa's compress, cache, etag and
// criticalCss in each of their 24 orders, conditional() in front of them and serve() with an
// HTML route after them, answer a miss, a hit, a 304 (on a hit and on a miss), a HEAD (a hit and
// a miss), private pages (Cache-Control: private, a Set-Cookie) and a static file exactly as the
// documented order (compress -> cache -> etag -> criticalCss, docs/koa.md) does: status,
// Content-Encoding, Vary, ETag and the decoded body, with the browsers' Accept-Encoding. Koa 2
// and Koa 3, over HTTP/1.1 and over HTTP/2 (h2c, node:http2 with app.callback()).
const test = require('node:test');
const assert = require('node:assert/strict');
const koa = require('../../../lib/koa/index.js');
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

const KOAS = { 'Koa 2': require('koa2'), 'Koa 3': require('koa') };
// koa-compress's first choice for the browsers' Accept-Encoding: zstd where the runtime's zlib has
// it (Node 22.15+), else br
const KOA_CODING = typeof require('node:zlib').zstdCompress === 'function' ? 'zstd' : 'br';
// HEAD_OVER_H2: Koa 2 alone (an app with one route, no ssr-native piece) never ends a HEAD
// answered over node:http2, so the HEAD steps run on Koa 3 and on HTTP/1.1 only.
const NAMES = ['compress', 'cache', 'etag', 'criticalCss'];
const DOCUMENTED = ['compress', 'cache', 'etag', 'criticalCss'];

const { dist, page: PAGE, inlined: INLINED } = seededPage();

// The HTML route: a public page the cache stores, and two private ones it must not.
function route(ctx) {
  ctx.type = 'html';
  if (ctx.path === '/private') ctx.set('Cache-Control', 'private, max-age=60');
  else ctx.set('Cache-Control', 'public, s-maxage=60');
  if (ctx.path === '/cookie') ctx.cookies.set('session', 'user-1');
  ctx.body = PAGE;
}

function appOf(Koa, order) {
  const css = koa.criticalCss({ browserDistFolder: dist.dir });
  const made = { compress: koa.compress(), cache: koa.cache(), etag: koa.etag(), criticalCss: css };
  const app = new Koa();
  app.use(koa.conditional());
  for (const name of order) app.use(made[name]);
  app.use(koa.serve(dist.dir));
  app.use(route);
  return { app, css, close: () => css.close() };
}

// The script: each step's name, method, path and headers (`tag`: If-None-Match of the first
// answer's ETag; `identity`: no Accept-Encoding).
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

async function run(Koa, protocol, order) {
  const { app, css, close } = appOf(Koa, order);
  const server = protocol === 'HTTP/2' ? await listenH2(app.callback()) : await listen(app.callback());
  const send = (method, path, headers) =>
    protocol === 'HTTP/2'
      ? h2request(server.url, path, { method, headers })
      : request(`${server.url}${path}`, { method, headers });
  const answers = [];
  let tag;
  try {
    for (const [name, method, path, validator] of SCRIPT) {
      if (method === 'HEAD' && Koa === KOAS['Koa 2'] && protocol === 'HTTP/2') continue; // see HEAD_OVER_H2
      const headers = validator === 'identity' ? {} : { 'accept-encoding': BROWSER_ACCEPT_ENCODING };
      if (validator === 'tag') headers['if-none-match'] = tag;
      const answer = answerOf(await send(method, path, headers));
      if (tag === undefined) tag = answer.etag;
      answers.push([name, answer]);
    }
    // what the critical-CSS engine was given: a hit is never inlined again, whatever the order
    const { pages, inlined, skipped, passedThrough, memoHits } = css.stats();
    answers.push(['the critical-CSS engine', { pages, inlined, skipped, passedThrough, memoHits }]);
  } finally {
    await server.close();
    close();
  }
  return answers;
}

// a stalled answer fails its test rather than the run
const STALL = { timeout: 120e3 };

for (const [koaName, Koa] of Object.entries(KOAS)) {
  for (const protocol of ['HTTP/1.1', 'HTTP/2']) {
    const where = `${koaName}, ${protocol}`;
    let documented;
    const documentedAnswers = () => (documented = documented || run(Koa, protocol, DOCUMENTED));

    test(
      `${where}, the documented order (${DOCUMENTED.join(' -> ')}): the answers the others must give`,
      STALL,
      async () => {
        const answers = new Map(await documentedAnswers());
        const miss = answers.get('miss');
        assert.equal(miss.status, 200);
        assert.equal(miss['content-encoding'], KOA_CODING);
        assert.match(miss.vary, /Accept-Encoding/i);
        assert.ok(miss.etag, 'the page has an ETag');
        assert.equal(miss.body, INLINED, 'the page inlined once');
        assert.equal(styleBlocks(miss.body), styleBlocks(INLINED));
        assert.deepEqual({ ...answers.get('hit'), fromCache: false }, miss, 'a hit is the miss again');
        assert.equal(answers.get('hit').fromCache, true);
        const identity = answers.get('hit without Accept-Encoding');
        assert.deepEqual([identity.fromCache, identity['content-encoding']], [true, undefined], 'stored identity');
        assert.equal(identity.body, miss.body);
        assert.equal(answers.get('304 on a hit').status, 304);
        assert.equal(answers.get('304 on a miss').status, 304, 'the client gets its 304 while the page is stored');
        if (answers.has('HEAD on a miss')) assert.equal(answers.get('HEAD on a miss').etag, miss.etag, 'the GET tag');
        assert.equal(answers.get('GET after a HEAD miss').body, INLINED);
        assert.equal(answers.get('private page').body, INLINED);
        assert.equal(answers.get('private page')['content-encoding'], KOA_CODING);
        assert.ok(answers.get('Set-Cookie page')['set-cookie'], 'the cookie goes out');
        assert.equal(answers.get('private page again').fromCache, false);
        assert.equal(answers.get('Set-Cookie page again').fromCache, false);
        assert.equal(answers.get('a static file')['content-encoding'], KOA_CODING);
      },
    );

    for (const order of permutations(NAMES)) {
      if (order.join() === DOCUMENTED.join()) continue;
      test(`${where}, ${order.join(' -> ')}: the documented order's answers`, STALL, async () => {
        const expected = await documentedAnswers();
        const answers = await run(Koa, protocol, order);
        const differs = [];
        for (let i = 0; i < expected.length; i++) {
          const [name, want] = expected[i];
          const got = answers[i][1];
          for (const field of Object.keys(want)) {
            if (got[field] === want[field]) continue;
            const show = (v) => (field === 'body' ? `${String(v).length} bytes, ${styleBlocks(String(v))} <style>` : v);
            differs.push(`${name}: ${field} ${show(got[field])} instead of ${show(want[field])}`);
          }
        }
        assert.deepEqual(differs, [], `${where}, ${order.join(' -> ')}`);
      });
    }
  }
}

test(
  'compress() after cache() on some paths only: one warning, never a compressed body without Vary',
  STALL,
  async () => {
    const warnings = [];
    const onWarning = (warning) => {
      if (warning.code === 'SSR_NATIVE_MOUNT_ORDER') warnings.push(warning);
    };
    process.on('warning', onWarning);
    const css = koa.criticalCss({ browserDistFolder: dist.dir });
    const compress = koa.compress();
    const app = new KOAS['Koa 3']();
    app.use(koa.cache());
    app.use((ctx, next) => (ctx.path.startsWith('/app/') ? compress(ctx, next) : next()));
    app.use(koa.etag());
    app.use(css);
    app.use(route);
    const server = await listen(app.callback());
    const headers = { 'accept-encoding': BROWSER_ACCEPT_ENCODING };
    try {
      const answers = [];
      for (const path of ['/app/page', '/other', '/app/page', '/other', '/app/next', '/app/next']) {
        answers.push([path, await request(`${server.url}${path}`, { headers })]);
      }
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
      assert.equal(warnings.length, 1, 'one warning');
      assert.match(warnings[0].message, /conditional, compress, cache, etag, criticalCss, serve, the routes/);
      for (const [path, answer] of answers) {
        assert.equal(answer.status, 200, path);
        assert.equal(bodyOf(answer), INLINED, `${path}: inlined once`);
        if (answer.headers['content-encoding'] !== undefined)
          assert.match(answer.headers.vary, /Accept-Encoding/i, path);
      }
      assert.equal(answers[0][1].headers['content-encoding'], KOA_CODING, 'the first miss is compressed');
    } finally {
      process.off('warning', onWarning);
      await server.close();
      css.close();
    }
  },
);
