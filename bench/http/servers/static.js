'use strict';
// Static files over Express 5 or plain node:http.
//   STATIC_FRAMEWORK: express | http
//   STATIC_IMPL: serve-static (express.static in Express 5) | ssr-native (serveStatic) |
//                memory (a bare handler answering one preloaded Buffer: the framework's ceiling) |
//                memory-headers (the same, with every header serve-static sends: the ceiling for
//                a drop-in, which must send them)
//                bun-routes, bun-file (Bun only, framework ignored): Bun.serve with every file as a
//                static route (a Response built once), or a fetch handler answering
//                new Response(Bun.file(path)): the ceilings a Bun user compares with
//   STATIC_ROOT: directory to serve (default: a generated tree, see tree())
//   STATIC_LIB: the lib/ directory whose serveStatic is `ssr-native` (default: this checkout's;
//               lib/express/serve-static.js now; lib/static/ or lib/serve-static.js in older
//               checkouts)
//   STATIC_API: 1 = the layout of a generated Angular server or a typical Express app: the static
//                middleware first with { maxAge: '1y', index: false, redirect: false }, then a
//                JSON route GET /api/users (STATIC_IMPL none: that route alone)
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { listen } = require('../lib/server');

const SIZES = { '1kb.js': 1024, '64kb.js': 64 * 1024, '1mb.js': 1024 * 1024 };

// Deterministic JavaScript-looking text of the given sizes.
function tree() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-bench-static-'));
  const line = 'export function f(a, b) { return a * 31 + b ^ 0x5bd1e995; } // padding\n';
  for (const [name, size] of Object.entries(SIZES)) {
    fs.writeFileSync(path.join(root, name), line.repeat(Math.ceil(size / line.length)).slice(0, size));
  }
  process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));
  return root;
}

const framework = process.env.STATIC_FRAMEWORK || 'express';
const impl = process.env.STATIC_IMPL || 'serve-static';
const root = process.env.STATIC_ROOT || tree();

const api = process.env.STATIC_API === '1';
const options = api ? { maxAge: '1y', index: false, redirect: false } : undefined;

function middleware() {
  if (impl === 'serve-static') return require('serve-static')(root, options);
  if (impl === 'ssr-native') {
    const lib = process.env.STATIC_LIB || path.join(__dirname, '../../../lib');
    const entry = ['express/serve-static.js', 'static/index.js', 'serve-static.js'].find((file) =>
      fs.existsSync(path.join(lib, file)),
    );
    return require(path.join(lib, entry))(root, options);
  }
  if (impl === 'none') return (req, res, next) => next();
  if (impl === 'memory' || impl === 'memory-headers') {
    const files = new Map();
    for (const name of fs.readdirSync(root)) {
      const body = fs.readFileSync(path.join(root, name));
      const stat = fs.statSync(path.join(root, name));
      files.set('/' + name, { body, modified: stat.mtime.toUTCString(), etag: `W/"${body.length.toString(16)}-0"` });
    }
    const allHeaders = impl === 'memory-headers';
    return (req, res, next) => {
      const file = files.get(req.url);
      if (!file) return next();
      if (allHeaders) {
        res.setHeader('Accept-Ranges', 'bytes');
        res.setHeader('Cache-Control', 'public, max-age=0');
        res.setHeader('Last-Modified', file.modified);
        res.setHeader('ETag', file.etag);
      }
      res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
      res.setHeader('Content-Length', file.body.length);
      res.end(file.body);
    };
  }
  throw new Error(`unknown STATIC_IMPL ${impl}`);
}

// Bun.serve instead of node:http: no middleware, the runtime answers from its own routes.
function bunServe() {
  /* global Bun */
  if (typeof Bun === 'undefined') throw new Error(`STATIC_IMPL ${impl} needs Bun`);
  const names = fs.readdirSync(root);
  const options = { port: Number(process.env.PORT || 0), hostname: '127.0.0.1' };
  const type = { 'Content-Type': 'text/javascript; charset=utf-8' };
  if (impl === 'bun-routes') {
    options.routes = Object.fromEntries(
      names.map((name) => [`/${name}`, new Response(fs.readFileSync(path.join(root, name)), { headers: type })]),
    );
    options.fetch = () => new Response(null, { status: 404 });
  } else {
    const known = new Set(names.map((name) => `/${name}`));
    options.fetch = (req) => {
      const pathname = new URL(req.url).pathname;
      return known.has(pathname)
        ? new Response(Bun.file(path.join(root, pathname.slice(1))))
        : new Response(null, { status: 404 });
    };
  }
  const server = Bun.serve(options);
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
  process.stdout.write(`READY ${server.port}\n`);
}

if (impl === 'bun-routes' || impl === 'bun-file') {
  bunServe();
  return;
}

const mw = middleware();
let server;
if (framework === 'express') {
  const express = require('express');
  const app = express();
  app.use(mw);
  if (api)
    app.get('/api/users', (req, res) =>
      res.json([
        { id: 1, name: 'Ada' },
        { id: 2, name: 'Grace' },
      ]),
    );
  server = http.createServer(app);
} else if (framework === 'http') {
  server = http.createServer((req, res) =>
    mw(req, res, () => {
      res.statusCode = 404;
      res.end();
    }),
  );
} else {
  throw new Error(`unknown STATIC_FRAMEWORK ${framework}`);
}
listen(server);
