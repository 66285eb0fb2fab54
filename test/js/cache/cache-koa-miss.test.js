'use strict';
// ssr-native/koa cache() on a miss leaves the request as it came (issue 53), on Koa 2 and Koa 3:
// a conditional GET miss is stored whole and answered with the 304 koa-conditional-get would give
// the same route and tags (seeded cases, each against that peer app), and a plain GET after it is a hit with
// the full body; a HEAD miss stores the body its route gave (Koa sends none), never an empty one
// nor one unlike its Content-Length; a middleware between two ssr-native pieces sees the request's
// own method and validators before and after `await next()`.
const test = require('node:test');
const assert = require('node:assert/strict');
const conditionalGet = require('koa-conditional-get');
const koa = require('../../../lib/koa');
const { listen, request } = require('../helpers/http');
const { mulberry32 } = require('../helpers/seeded-random');

const KOAS = { 'koa 2': require('koa2'), 'koa 3': require('koa') };
const SEED = Number(process.env.KOA_MISS_SEED || 0x53);
const CASE_COUNT = 48;
const CC = 'public, max-age=60';
const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const day = 86400000;
const httpDate = (ms) => new Date(ms).toUTCString();

const pick = (random, values) => values[Math.floor(random() * values.length)];

function pageOf(random) {
  const words = ['koa', 'cache', 'page', 'stored', 'miss', 'hit', 'héllo', '<b>x</b>'];
  let text = '';
  const n = 1 + Math.floor(random() * 200);
  for (let i = 0; i < n; i++) text += pick(random, words) + ' ';
  return `<!doctype html><p>${text}</p>`;
}

// One case: the route's validators, the client's, and what is mounted in front of the cache.
function drawCases() {
  const random = mulberry32(SEED);
  const cases = [];
  for (let i = 0; i < CASE_COUNT; i++) {
    const etag = pick(random, [undefined, `"v${i}"`, `W/"v${i}"`]);
    const opaque = `"v${i}"`;
    cases.push({
      path: `/c${i}`,
      page: pageOf(random),
      etag,
      lastModified: pick(random, [undefined, httpDate(T0)]),
      inm: pick(random, [undefined, opaque, `W/${opaque}`, '"other"', `"other", ${opaque}`, '*']),
      ims: pick(random, [undefined, httpDate(T0 - day), httpDate(T0), httpDate(T0 + day)]),
      front: pick(random, ['none', 'conditional()', 'koa-conditional-get']),
    });
  }
  return cases;
}

function headersOf(c) {
  const headers = {};
  if (c.inm !== undefined) headers['if-none-match'] = c.inm;
  if (c.ims !== undefined) headers['if-modified-since'] = c.ims;
  return headers;
}

// The route every case's path answers, in both apps; `renders` counts its runs.
function routeOf(cases, renders) {
  const byPath = new Map(cases.map((c) => [c.path, c]));
  return (ctx) => {
    const c = byPath.get(ctx.path);
    if (c === undefined) return;
    renders.set(c.path, (renders.get(c.path) || 0) + 1);
    ctx.set('Cache-Control', CC);
    if (c.etag !== undefined) ctx.set('ETag', c.etag);
    if (c.lastModified !== undefined) ctx.set('Last-Modified', c.lastModified);
    ctx.type = 'html';
    ctx.body = c.page;
  };
}

async function serve(app) {
  app.silent = true;
  return listen(app.callback());
}

for (const [name, Koa] of Object.entries(KOAS)) {
  test(`${name}: a conditional miss is stored and answered with koa-conditional-get's 304 (${CASE_COUNT} cases, seed ${SEED})`, async () => {
    const cases = drawCases();
    const renders = new Map();
    const route = routeOf(cases, renders);
    // the peer: the same route and tags under koa-conditional-get, no cache
    const peerApp = new Koa();
    peerApp.use(conditionalGet());
    peerApp.use(koa.etag());
    peerApp.use(route);
    const peer = await serve(peerApp);
    // one app per front, each with its own cache
    const sites = {};
    for (const front of ['none', 'conditional()', 'koa-conditional-get']) {
      const app = new Koa();
      if (front === 'conditional()') app.use(koa.conditional());
      if (front === 'koa-conditional-get') app.use(conditionalGet());
      app.use(koa.cache());
      app.use(koa.etag());
      app.use(route);
      sites[front] = await serve(app);
    }
    const wrong = [];
    const answered = new Set(); // front and status: the cases reach both answers under each front
    try {
      for (const c of cases) {
        const url = sites[c.front].url + c.path;
        const want = await request(peer.url + c.path, { headers: headersOf(c) });
        const miss = await request(url, { headers: headersOf(c) });
        const plain = await request(url);
        answered.add(`${c.front} ${miss.status}`);
        const problems = [];
        if (miss.status !== want.status) problems.push(`miss ${miss.status}, koa-conditional-get ${want.status}`);
        if (miss.status === 304 && miss.body.length !== 0) problems.push('a 304 with a body');
        if (miss.status === 200 && miss.body.toString() !== c.page) problems.push('the miss lost its body');
        if (miss.headers.etag !== want.headers.etag) problems.push(`ETag ${miss.headers.etag}, ${want.headers.etag}`);
        if (plain.status !== 200 || plain.body.toString() !== c.page) problems.push(`plain GET ${plain.status}`);
        if (plain.headers.age === undefined) problems.push('the plain GET is not a hit');
        if (renders.get(c.path) !== 2) problems.push(`${renders.get(c.path)} renders (one by the peer)`);
        const shown = { ...c, page: `${c.page.slice(0, 40)}... (${c.page.length} characters)` };
        if (problems.length > 0) wrong.push(`${JSON.stringify(shown)}: ${problems.join('; ')}`);
      }
    } finally {
      await peer.close();
      for (const site of Object.values(sites)) await site.close();
    }
    assert.equal(answered.size, 6, `seed ${SEED}: the cases reach ${[...answered].join(', ')}`);
    assert.deepEqual(wrong, [], `seed ${SEED}, ${wrong.length} cases wrong:\n${wrong.slice(0, 8).join('\n')}`);
  });

  test(`${name}: a HEAD miss stores the body its route gave, never an empty or short one`, async () => {
    const random = mulberry32(SEED + 1);
    const page = pageOf(random);
    const renders = new Map();
    const app = new Koa();
    app.use(koa.cache());
    app.use(koa.etag());
    app.use((ctx) => {
      renders.set(ctx.path, (renders.get(ctx.path) || 0) + 1);
      ctx.set('Cache-Control', CC);
      ctx.type = 'html';
      const head = ctx.method === 'HEAD';
      if (ctx.path === '/as-get') ctx.body = page; // Koa strips it from the HEAD
      if (ctx.path === '/no-body') {
        if (head) {
          ctx.status = 200;
          ctx.set('Content-Length', String(Buffer.byteLength(page)));
        } else ctx.body = page;
      }
      if (ctx.path === '/short') {
        ctx.body = head ? page.slice(0, 10) : page;
        if (head) ctx.set('Content-Length', String(Buffer.byteLength(page)));
      }
      if (ctx.path === '/empty') ctx.body = head ? '' : page;
    });
    const s = await serve(app);
    try {
      for (const path of ['/as-get', '/no-body', '/short', '/empty']) {
        const head = await request(s.url + path, { method: 'HEAD' });
        assert.equal(head.status, 200, path);
        assert.equal(head.body.length, 0, path);
        const get = await request(s.url + path);
        assert.equal(get.body.toString(), page, `${path}: the GET has the page`);
        const stored = path === '/as-get';
        assert.equal(get.headers.age !== undefined, stored, `${path}: the GET is ${stored ? '' : 'not '}a hit`);
        assert.equal(renders.get(path), stored ? 1 : 2, path);
        if (stored) {
          assert.equal(head.headers['content-length'], String(Buffer.byteLength(page)), path);
          assert.equal(head.headers.etag, get.headers.etag, `${path}: the HEAD has the GET's tag`);
        }
      }
    } finally {
      await s.close();
    }
  });

  test(`${name}: a middleware between two pieces sees the request's own method and validators`, async () => {
    const seen = [];
    const spy = (where) => async (ctx, next) => {
      const look = (phase) =>
        seen.push([where, phase, ctx.method, ctx.get('if-none-match'), ctx.get('if-modified-since')].join(' '));
      look('in');
      await next();
      look('out');
    };
    const app = new Koa();
    app.use(koa.compress());
    app.use(spy('after compress'));
    app.use(koa.cache());
    app.use(spy('after cache'));
    app.use(koa.etag());
    app.use(spy('after etag'));
    app.use((ctx) => {
      ctx.set('Cache-Control', CC);
      ctx.type = 'html';
      ctx.body = '<p>page</p>';
    });
    const s = await serve(app);
    const since = httpDate(T0);
    try {
      for (const [method, path] of [
        ['HEAD', '/head'],
        ['GET', '/get'],
      ]) {
        seen.length = 0;
        const headers = { 'if-none-match': '"some"', 'if-modified-since': since };
        await request(s.url + path, { method, headers });
        const want = [];
        for (const where of ['after compress', 'after cache', 'after etag'])
          want.push(`${where} in ${method} "some" ${since}`);
        for (const where of ['after etag', 'after cache', 'after compress'])
          want.push(`${where} out ${method} "some" ${since}`);
        assert.deepEqual(seen, want, `${method} miss`);
      }
    } finally {
      await s.close();
    }
  });
}
