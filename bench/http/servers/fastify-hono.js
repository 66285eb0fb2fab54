'use strict';
// Static files and ETags on Fastify 5 and Hono (@hono/node-server).
//   FH_FRAMEWORK: fastify | hono
//   FH_IMPL: peer (@fastify/static / @fastify/etag, node-server serveStatic / hono/etag) |
//            ssr-native | memory (a bare handler answering one preloaded Buffer: the framework's
//            ceiling) | none (the page route alone, no ETag plugin) | empty-hook (etag mode: an
//            onSend hook / a middleware of the ETag plugin's shape doing nothing, what the
//            framework charges for having one)
//   FH_PAGE_BYTES: the page's size in etag mode (default 75 KB)
//   FH_MODE: static (files 1kb.js, 64kb.js, 1mb.js) | etag (a 75 KB page, a string as renderers give)
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { listen } = require('../lib/server');
const { renderPage } = require('../lib/page');

const SIZES = { '1kb.js': 1024, '64kb.js': 64 * 1024, '1mb.js': 1024 * 1024 };
const framework = process.env.FH_FRAMEWORK || 'fastify';
const impl = process.env.FH_IMPL || 'peer';
const mode = process.env.FH_MODE || 'static';
const pageBytes = Number(process.env.FH_PAGE_BYTES || 75 * 1024);

function tree() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-bench-fh-'));
  const line = 'export function f(a, b) { return a * 31 + b ^ 0x5bd1e995; } // padding\n';
  for (const [name, size] of Object.entries(SIZES)) {
    fs.writeFileSync(path.join(root, name), line.repeat(Math.ceil(size / line.length)).slice(0, size));
  }
  process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));
  return root;
}

function memoryFiles(root) {
  const files = new Map();
  for (const name of fs.readdirSync(root)) files.set('/' + name, fs.readFileSync(path.join(root, name)));
  return files;
}

// Plugins are registered without awaiting register() (Fastify's getting-started style), then
// ready() is awaited. Awaiting register() itself, for any plugin, even an empty one, leaves Node
// 20's process.nextTick on V8's runtime path for object literals with computed keys for the rest
// of the process (Runtime_DefineKeyedOwnPropertyInLiteral under perf, a few microseconds a
// request: docs/fastify.md): a variant that awaited a registration paid that on top of whatever
// its plugin does, against one that registered nothing.
async function fastifyServer() {
  const fastify = require('fastify')({ serverFactory: (handler) => http.createServer(handler) });
  if (mode === 'etag') {
    if (impl === 'peer') fastify.register(require('@fastify/etag'));
    if (impl === 'ssr-native') fastify.register(require('../../../lib/fastify').fastifyEtag);
    if (impl === 'empty-hook') fastify.addHook('onSend', (req, reply, payload, done) => done(null, undefined));
    const page = renderPage(pageBytes);
    fastify.get('/', (req, reply) => reply.type('text/html; charset=utf-8').send(page));
  } else {
    const root = tree();
    if (impl === 'peer') fastify.register(require('@fastify/static'), { root });
    else if (impl === 'ssr-native') fastify.register(require('../../../lib/fastify').fastifyStatic, { root });
    else {
      const files = memoryFiles(root);
      fastify.get('/*', (req, reply) => {
        const body = files.get(req.url);
        if (!body) return reply.callNotFound();
        return reply.type('application/javascript; charset=utf-8').send(body);
      });
    }
  }
  await fastify.ready();
  return fastify.server;
}

function honoServer() {
  const { Hono } = require('hono');
  const { createAdaptorServer } = require('@hono/node-server');
  const app = new Hono();
  if (mode === 'etag') {
    if (impl === 'peer') app.use('*', require('hono/etag').etag());
    if (impl === 'ssr-native') app.use('*', require('../../../lib/hono').etag());
    if (impl === 'empty-hook') app.use('*', async (c, next) => await next());
    const page = renderPage(pageBytes);
    app.get('/', (c) => c.html(page));
  } else {
    const root = tree();
    if (impl === 'peer') app.use('*', require('@hono/node-server/serve-static').serveStatic({ root }));
    else if (impl === 'ssr-native') app.use('*', require('../../../lib/hono').serveStatic({ root }));
    else {
      const files = memoryFiles(root);
      app.get('*', (c) => {
        const body = files.get(c.req.path);
        if (!body) return c.notFound();
        c.header('Content-Type', 'text/javascript; charset=utf-8');
        return c.body(body);
      });
    }
  }
  return createAdaptorServer({ fetch: app.fetch });
}

(async () => {
  const server = framework === 'fastify' ? await fastifyServer() : honoServer();
  listen(server);
})();
