'use strict';
// Static files over Express 5 or plain node:http.
//   STATIC_FRAMEWORK: express | http
//   STATIC_IMPL: serve-static (express.static in Express 5) | ssr-native (serveStatic) |
//                memory (a bare handler answering one preloaded Buffer: the framework's ceiling)
//   STATIC_ROOT: directory to serve (default: a generated tree, see tree())
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

function middleware() {
  if (impl === 'serve-static') return require('serve-static')(root);
  if (impl === 'ssr-native') return require('../../../lib/serve-static')(root);
  if (impl === 'memory') {
    const files = new Map();
    for (const name of fs.readdirSync(root)) files.set('/' + name, fs.readFileSync(path.join(root, name)));
    return (req, res, next) => {
      const body = files.get(req.url);
      if (!body) return next();
      res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
      res.setHeader('Content-Length', body.length);
      res.end(body);
    };
  }
  throw new Error(`unknown STATIC_IMPL ${impl}`);
}

const mw = middleware();
let server;
if (framework === 'express') {
  const express = require('express');
  const app = express();
  app.use(mw);
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
