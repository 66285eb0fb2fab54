'use strict';
// The compression dictionary decides on the head as sent (issue 52, finding 1). A site-wide
// `Cache-Control: public, s-maxage=60` and a magic link, `GET /login/magic?token=...` without a
// Cookie, that logs the visitor in through a real session middleware and renders their account
// page: that page goes out with a Set-Cookie, so it must never be sampled by the learner nor be
// in the dictionary served to everyone, whatever the order the session middleware is mounted in.
// Its dcz answer: where the framework lets the choice see the cookie (the order `seen`), it is
// never dcz against the learned dictionary; where the cookie is set after compression answered
// (the order `late`: a listener below the pipeline, a later onSend hook, an outer middleware),
// that answer is a late mark: counted, one warning naming the order that avoids it, and no
// learned-dictionary dcz for that app afterwards. Cases: every session middleware x both orders
// x HTTP/1.1 and HTTP/2 (h2c).
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const http = require('node:http');
const http2 = require('node:http2');
const express = require('express');
const cookieSession = require('cookie-session');
const expressSession = require('express-session');
const Koa = require('koa');
const { createSession: koaSession } = require('koa-session');
const Fastify = require('fastify');
const fastifyCookie = require('@fastify/cookie');
const fastifySession = require('@fastify/session');
const { Hono } = require('hono');
const { setCookie } = require('hono/cookie');
const { createAdaptorServer } = require('@hono/node-server');
const compression = require('../../../lib/express/compression');
const { compress: koaCompress } = require('../../../lib/koa');
const { fastifyCompress } = require('../../../lib/fastify');
const { compress: honoCompress } = require('../../../lib/hono');
const { available, unavailableReason } = require('../../../lib/compression/dcz');
const { onSource } = require('../../../lib/stat-sources');
const { request } = require('../helpers/http');
const { listenOn, h2request } = require('../helpers/http2');
const { createSite } = require('../helpers/dictionary-site');
const { mulberry32 } = require('../helpers/seeded-random');

const skip = available ? false : `libzstd is not available: ${unavailableReason}`;
const SEED = 52;
const SECRET = 'ACCOUNT-of-visitor-7f3a91';
const PUBLIC = 'public, s-maxage=60';
const ACCEPT = 'gzip, deflate, br, dcb, dcz';
const DICTIONARY = { dictionary: { minPages: 32, sampleEvery: 1 } };
const LATE_MARK = 'SSR_NATIVE_DICTIONARY_LATE_MARK';

const site = createSite({ seed: SEED });
const random = mulberry32(SEED);
const token = () => Math.floor(random() * 2 ** 32).toString(16);
const accountPage = (t) => site.page(900, `<div class="account">Signed in as ${SECRET} (magic link ${t})</div>`);
const pageNumber = (url) => Number(/^\/page\/(\d+)/.exec(url)[1]);

// --- the apps: each returns { server, sessionFirst } on an unstarted node:http / node:http2 server

// A connect-style stack for node:http2, where Express does not run (its request object is
// node:http's): the same middlewares, in the same order.
function stack(middlewares) {
  return (req, res) => {
    let i = 0;
    const next = (err) => {
      if (err) {
        res.statusCode = 500;
        res.end(String(err));
        return;
      }
      const middleware = middlewares[i++];
      middleware(req, res, next);
    };
    next();
  };
}

function expressApp(session, saveFirst) {
  return ({ order, createServer }) => {
    const publicCache = (req, res, next) => {
      res.setHeader('Cache-Control', PUBLIC);
      next();
    };
    const route = (req, res) => {
      const send = (body) => {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.setHeader('Content-Length', Buffer.byteLength(body));
        res.end(body);
      };
      if (req.url.startsWith('/login/magic')) {
        const t = new URL(req.url, 'http://x').searchParams.get('token');
        req.session.user = t;
        // express-session: saved before the answer (res.end goes straight on) or at end() (the
        // body then goes out through res.write)
        if (saveFirst) req.session.save(() => send(accountPage(t)));
        else send(accountPage(t));
        return;
      }
      send(site.page(pageNumber(req.url)));
    };
    const pieces =
      order === 'session first' ? [session(), compression(DICTIONARY)] : [compression(DICTIONARY), session()];
    if (createServer === http.createServer) {
      const app = express();
      app.use(publicCache);
      for (const piece of pieces) app.use(piece);
      app.get(/^\/(page\/\d+|login\/magic)$/, route);
      return createServer(app);
    }
    return createServer(stack([publicCache, ...pieces, route]));
  };
}

function koaApp({ order, createServer }) {
  const app = new Koa();
  app.keys = ['learner-test-key'];
  app.use(async (ctx, next) => {
    ctx.set('Cache-Control', PUBLIC);
    await next();
  });
  const pieces = [koaCompress(DICTIONARY), koaSession({ signed: true }, app)];
  if (order === 'session first') pieces.reverse();
  for (const piece of pieces) app.use(piece);
  app.use((ctx) => {
    if (ctx.path === '/login/magic') {
      ctx.session.user = ctx.query.token;
      ctx.type = 'html';
      ctx.body = accountPage(ctx.query.token);
      return;
    }
    if (!ctx.path.startsWith('/page/')) return;
    ctx.type = 'html';
    ctx.body = site.page(pageNumber(ctx.path));
  });
  return createServer(app.callback());
}

// `session`: @fastify/session (its onSend hook sets the cookie); else a plugin that logs the
// visitor in from an onSend hook it adds to each route (onRoute), as route-level hooks are added.
function fastifyApp(kind) {
  return async ({ order, createServer }) => {
    let server;
    const app = Fastify({
      serverFactory: (handler) => {
        server = createServer(handler);
        return server;
      },
      http2: createServer === http2.createServer,
    });
    app.addHook('onRequest', async (request, reply) => {
      reply.header('Cache-Control', PUBLIC);
    });
    await app.register(fastifyCookie);
    const session = async () => {
      if (kind === 'session') {
        await app.register(fastifySession, {
          secret: 'a-secret-of-at-least-thirty-two-characters',
          saveUninitialized: false,
          cookie: { secure: false },
        });
        return;
      }
      app.addHook('onRoute', (routeOptions) => {
        const own = routeOptions.onSend;
        const login = async (request, reply, payload) => {
          if (request.query.token) reply.setCookie('sid', `session-${request.query.token}`, { path: '/' });
          return payload;
        };
        routeOptions.onSend = own === undefined ? [login] : [].concat(own, login);
      });
    };
    if (order === 'session first') await session();
    await app.register(fastifyCompress, DICTIONARY);
    if (order !== 'session first') await session();
    app.get('/login/magic', (request, reply) => {
      if (kind === 'session') request.session.set('user', request.query.token);
      reply.type('text/html; charset=utf-8').send(accountPage(request.query.token));
    });
    app.get('/page/:n', (request, reply) => {
      reply.type('text/html; charset=utf-8').send(site.page(Number(request.params.n)));
    });
    await app.ready();
    return server;
  };
}

function honoApp({ order, createServer }) {
  const app = new Hono();
  app.use(async (c, next) => {
    c.header('Cache-Control', PUBLIC);
    await next();
  });
  // a session of its own: logs the visitor in with the token after the route has rendered
  const session = async (c, next) => {
    await next();
    const t = c.req.query('token');
    if (c.req.path === '/login/magic' && t) setCookie(c, 'sid', `session-${t}`, { httpOnly: true, path: '/' });
  };
  const pieces = [honoCompress(DICTIONARY), session];
  if (order === 'session first') pieces.reverse();
  for (const piece of pieces) app.use(piece);
  app.get('/login/magic', (c) => c.html(accountPage(c.req.query('token'))));
  app.get('/page/:n', (c) => c.html(site.page(Number(c.req.param('n')))));
  return createAdaptorServer({ fetch: app.fetch, createServer });
}

// Which order lets each framework's dcz choice see the session's cookie.
const FRAMEWORKS = [
  // on-headers listeners: above the held response (mounted after compression) they run before it decides
  { name: 'express + cookie-session', make: expressApp(() => cookieSession({ keys: ['k'] })), late: 'session first' },
  {
    name: 'express + express-session (saved first: res.end)',
    make: expressApp(() => expressSession({ secret: 's', resave: false, saveUninitialized: false }), true),
    late: 'session first',
  },
  {
    name: 'express + express-session (saved at end: res.write)',
    make: expressApp(() => expressSession({ secret: 's', resave: false, saveUninitialized: false }), false),
    late: 'session first',
    // express-session's write path calls res._implicitHeader, which node:http2's response lacks
    h2: 'express-session saved at end() needs res._implicitHeader (node:http only)',
  },
  // koa-session commits after `await next()`: inside compress it has committed before compress decides
  { name: 'koa + koa-session', make: koaApp, late: 'session first' },
  // compress's onSend hook is a route's: it runs after every app-level one (@fastify/session's),
  // in either order, and after the route-level ones added before it
  { name: 'fastify + @fastify/cookie + @fastify/session', make: fastifyApp('session'), late: null },
  {
    name: 'fastify + a route onSend hook (@fastify/cookie)',
    make: fastifyApp('route hook'),
    late: 'compression first',
  },
  { name: 'hono + setCookie', make: honoApp, late: 'session first' },
];
const ORDERS = ['session first', 'compression first'];
const PROTOCOLS = [
  { name: 'HTTP/1.1', createServer: http.createServer },
  { name: 'HTTP/2', createServer: http2.createServer },
];

const warnings = [];
process.on('warning', (warning) => {
  if (warning.code === LATE_MARK) warnings.push(warning);
});

// The dictionary transport's stats, whatever the framework (its stats source).
function captureStats(make) {
  const sources = [];
  const stop = onSource((entry) => {
    if (entry.kind === 'compression_dictionary') sources.push(entry);
  });
  return Promise.resolve()
    .then(make)
    .then((server) => {
      stop();
      assert.equal(sources.length, 1, 'one dictionary transport per app');
      return { server, stats: () => sources[0].read() };
    });
}

for (const framework of FRAMEWORKS) {
  for (const order of ORDERS) {
    for (const protocol of PROTOCOLS) {
      const late = order === framework.late;
      const caseSkip = skip || (protocol.createServer === http2.createServer && framework.h2) || false;
      test(
        `${framework.name}, ${order}, ${protocol.name}: a page sent with a Set-Cookie is never learned${
          late ? '; its late dcz turns dcz off' : ', never dcz'
        }`,
        { skip: caseSkip },
        async () => {
          const { server, stats } = await captureStats(() =>
            framework.make({ order, createServer: protocol.createServer }),
          );
          const { url, close } = await listenOn(server, false);
          const get =
            protocol.createServer === http.createServer
              ? (path, headers = {}) => request(`${url}${path}`, { headers })
              : (path, headers = {}) => h2request(url, path, { headers });
          const magic = () => `/login/magic?token=${token()}`;
          const warned = warnings.length;
          try {
            // 1. before any dictionary: the magic link is refused by the learner, on its cookie
            let path = magic();
            let answer = await get(path, { 'accept-encoding': 'br' });
            assert.equal(answer.status, 200);
            assert.ok(answer.headers['set-cookie'], `${path}: the session set no cookie`);
            let s = stats();
            assert.equal(s.sampled, 0, `${path} (sent with a Set-Cookie) was sampled`);
            // (a body that streamed, as express-session's res.write path makes it, is not offered)
            assert.ok(s.refused <= 1, `${path}: ${JSON.stringify(s)}`);

            // 2. a dictionary from public pages: it holds the layout and never the account page
            let link;
            for (let n = 0; link === undefined; n++) {
              assert.ok(n < 400, 'no dictionary announced');
              const page = await get(`/page/${n}`, { 'accept-encoding': 'br' });
              assert.equal(page.headers['set-cookie'], undefined, 'a public page set a cookie');
              link = page.headers.link;
              if (link === undefined && n >= 32) await new Promise((resolve) => setTimeout(resolve, 10));
            }
            const dictionaryPath = /^<([^>]+)>; rel="compression-dictionary"$/.exec(link)[1];
            const dictionary = (await get(dictionaryPath)).body;
            assert.ok(dictionary.includes('navbar-toggler-icon'), 'the layout is learned');
            assert.ok(!dictionary.includes(SECRET), 'the account page is in the public dictionary');
            const dcz = {
              'accept-encoding': ACCEPT,
              'available-dictionary': `:${crypto.createHash('sha256').update(dictionary).digest('base64')}:`,
            };
            const publicDcz = await get('/page/7', dcz);
            assert.equal(publicDcz.headers['content-encoding'], 'dcz', 'a public page is answered in dcz');

            // 3. the magic link naming the learned dictionary
            const before = stats();
            path = magic();
            answer = await get(path, dcz);
            assert.ok(answer.headers['set-cookie'], `${path}: the session set no cookie`);
            s = stats();
            assert.equal(s.sampled, before.sampled, `${path} (sent with a Set-Cookie) was sampled`);
            if (!late) {
              assert.notEqual(answer.headers['content-encoding'], 'dcz', `${path} went out in dcz with a Set-Cookie`);
              assert.equal(s.lateMarks, 0);
              assert.equal(s.dczOff, false);
              assert.equal(warnings.length, warned, 'a late-mark warning without a late mark');
              return;
            }
            // the cookie came after the choice: counted, one warning, learned dcz off
            assert.equal(
              answer.headers['content-encoding'],
              'dcz',
              `the order meant to be late was not: ${JSON.stringify(s)}`,
            );
            assert.equal(s.lateMarks, 1, `the late Set-Cookie was not counted: ${JSON.stringify(s)}`);
            assert.equal(s.dczOff, true);
            await new Promise((resolve) => setImmediate(resolve));
            assert.equal(warnings.length, warned + 1, 'one late-mark warning');
            assert.match(warnings[warned].message, /mount|register|set cookies/i);
            const again = await get(magic(), dcz);
            assert.notEqual(again.headers['content-encoding'], 'dcz', 'dcz after a late mark');
            const publicAfter = await get('/page/8', dcz);
            assert.notEqual(publicAfter.headers['content-encoding'], 'dcz', 'learned dcz is not off');
            s = stats();
            assert.equal(s.lateMarks, 1);
            await new Promise((resolve) => setImmediate(resolve));
            assert.equal(warnings.length, warned + 1, 'the late-mark warning is given once');
          } finally {
            await close();
          }
        },
      );
    }
  }
}
