'use strict';
// Express 5.3, Koa 3, Fastify 5 or Hono (@hono/node-server) behind a compression middleware,
// answering the requests of the compression scenario:
//   /page    the same 75 KB server-rendered page every time (prerendered, cached renders)
//   /unique  a 75 KB page that differs on every request (its number in 16 places)
//   /json    the same 2 KB JSON body (Express, Koa)
//   /sse     a Server-Sent Events stream: 20 events, each written and flushed, then the end (Express, Koa)
// COMPRESSION: none | peer (compression 1.8.2 / koa-compress 5.2.2 / @fastify/compress 9.2.0 /
// hono/compress) | ours | shrink-ray (SHRINK_RAY_DIR: where shrink-ray-current was installed).
// FRAMEWORK: express | koa | fastify | hono. HTTP2=1: Koa and Hono on node:http2's compatibility
// API (h2c, http2.createServer) instead of node:http.
// GET /__stats answers the server's own figures: bytes written to sockets, requests served, and
// the event loop's delay p99 since the previous /__stats (perf_hooks.monitorEventLoopDelay).
const http = require('http');
const http2 = require('http2');
const path = require('path');
const { monitorEventLoopDelay } = require('perf_hooks');
const { listen } = require('../lib/server');
const { renderPage } = require('../lib/page');

const mode = process.env.COMPRESSION || 'none';
const framework = process.env.FRAMEWORK || 'express';
const overHttp2 = process.env.HTTP2 === '1';
const page = renderPage(75 * 1024);
const json = JSON.stringify({
  items: Array.from({ length: 24 }, (_, i) => ({
    id: i,
    name: `Product ${i}`,
    price: ((i * 31) % 997) / 10,
    stock: i % 7,
  })),
}).slice(0, 2048);
const event = `data: ${JSON.stringify({ type: 'tick', payload: 'x'.repeat(160) })}\n\n`;
let counter = 0;

// A page as large as `page` that differs on every request the way a personalised render does:
// this request's number in 16 places spread over the page (a user name, a CSRF token, ...).
const pieces = Array.from({ length: 16 }, (_, i) => page.slice((i * page.length) >> 4, ((i + 1) * page.length) >> 4));
function uniquePage() {
  return pieces.join(`<!--${++counter}-->`);
}

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
let requests = 0;
let closedBytes = 0;
const sockets = new Set();

function stats() {
  let bytes = closedBytes;
  for (const socket of sockets) bytes += socket.bytesWritten;
  const out = { bytes, requests, loopP99Ms: delay.percentile(99) / 1e6, loopMaxMs: delay.max / 1e6 };
  delay.reset();
  return JSON.stringify(out);
}

function expressApp() {
  const express = require('express53');
  const app = express();
  app.use((req, res, next) => {
    if (req.url === '/__stats') return res.type('json').end(stats());
    res.on('finish', () => requests++); // counted when answered: bytes and requests match
    next();
  });
  if (mode === 'peer') app.use(require('compression')());
  else if (mode === 'ours') app.use(require('../../../lib/express/compression')());
  else if (mode === 'shrink-ray')
    app.use(require(path.join(process.env.SHRINK_RAY_DIR, 'node_modules', 'shrink-ray-current'))());
  app.get('/page', (req, res) => res.type('html').send(page));
  app.get('/unique', (req, res) => res.type('html').send(uniquePage()));
  app.get('/json', (req, res) => res.type('json').send(json));
  app.get('/sse', (req, res) => {
    res.setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-cache');
    for (let i = 0; i < 20; i++) {
      res.write(event);
      if (res.flush) res.flush();
    }
    res.end();
  });
  return http.createServer(app);
}

function koaApp() {
  const Koa = require('koa');
  const { PassThrough } = require('stream');
  const app = new Koa();
  app.use(async (ctx, next) => {
    if (ctx.path === '/__stats') {
      ctx.type = 'json';
      ctx.body = stats();
      return;
    }
    ctx.res.on('finish', () => requests++); // counted when answered: bytes and requests match
    await next();
  });
  if (mode === 'peer') app.use(require('koa-compress')());
  else if (mode === 'ours') app.use(require('../../../lib/koa').compress());
  app.use(async (ctx) => {
    if (ctx.path === '/page') {
      ctx.type = 'html';
      ctx.body = page;
    } else if (ctx.path === '/unique') {
      ctx.type = 'html';
      ctx.body = uniquePage();
    } else if (ctx.path === '/json') {
      ctx.type = 'json';
      ctx.body = json;
    } else if (ctx.path === '/sse') {
      ctx.type = 'text/event-stream';
      ctx.set('Cache-Control', 'no-cache');
      const stream = new PassThrough();
      ctx.body = stream;
      for (let i = 0; i < 20; i++) stream.write(event);
      stream.end();
    }
  });
  return (overHttp2 ? http2 : http).createServer(app.callback());
}

// Fastify and Hono: requests counted by the server (when answered), /__stats answered by a route.
function countRequests(server) {
  server.on('request', (req, res) => {
    if (req.url !== '/__stats') res.on('finish', () => requests++);
  });
  return server;
}

async function fastifyApp() {
  const fastify = require('fastify')({ serverFactory: (handler) => countRequests(http.createServer(handler)) });
  if (mode === 'peer') await fastify.register(require('@fastify/compress'));
  else if (mode === 'ours') await fastify.register(require('../../../lib/fastify').fastifyCompress);
  fastify.get('/__stats', { compress: false }, (req, reply) => reply.type('application/json').send(stats()));
  fastify.get('/page', (req, reply) => reply.type('text/html; charset=utf-8').send(page));
  fastify.get('/unique', (req, reply) => reply.type('text/html; charset=utf-8').send(uniquePage()));
  await fastify.ready();
  return fastify.server;
}

function honoApp() {
  const { Hono } = require('hono');
  const { createAdaptorServer } = require('@hono/node-server');
  const app = new Hono();
  app.get('/__stats', (c) => c.body(stats(), 200, { 'Content-Type': 'application/json' }));
  if (mode === 'peer') app.use(require('hono/compress').compress());
  else if (mode === 'ours') app.use(require('../../../lib/hono').compress());
  app.get('/page', (c) => c.html(page));
  app.get('/unique', (c) => c.html(uniquePage()));
  return countRequests(
    createAdaptorServer({ fetch: app.fetch, ...(overHttp2 ? { createServer: http2.createServer } : {}) }),
  );
}

const apps = { express: expressApp, koa: koaApp, fastify: fastifyApp, hono: honoApp };
(async () => {
  const server = await apps[framework]();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      closedBytes += socket.bytesWritten;
      sockets.delete(socket);
    });
  });
  listen(server);
})();
