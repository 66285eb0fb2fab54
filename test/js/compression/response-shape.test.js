'use strict';
// lib/response-shape.js: before V8 13 (Node 20 and 22) a response whose prototype Express
// replaced is moved to dictionary properties before compression() adds its five methods (each
// add is otherwise a new hidden class, 3-4 us); on V8 13+ and for node:http responses it is left
// as it is. V8's own %HasFastProperties tells which shape the response ended up in.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const v8 = require('node:v8');
const express = require('express53');
const compression = require('../../../lib/express/compression');
const { SLOW_TRANSITIONS } = require('../../../lib/response-shape');

// JavaScriptCore (Bun) has neither V8's natives syntax nor its hidden classes
const SKIP = process.versions.bun !== undefined ? 'V8 only (%HasFastProperties)' : false;
let hasFastProperties;
if (!SKIP) {
  v8.setFlagsFromString('--allow-natives-syntax');
  hasFastProperties = new Function('o', 'return %HasFastProperties(o)');
}

function shapeSeen(handler) {
  return new Promise((resolve, reject) => {
    let fast;
    const server = http.createServer((req, res) =>
      handler(req, res, () => {
        fast = hasFastProperties(res);
        res.end('x');
      }),
    );
    server.listen(0, '127.0.0.1', () => {
      http
        .get({ port: server.address().port, path: '/' }, (res) => {
          res.resume();
          res.on('end', () => {
            server.close();
            resolve(fast);
          });
        })
        .on('error', reject);
    });
  });
}

test(
  'an Express response is moved to dictionary properties before compression adds its methods, only before V8 13',
  { skip: SKIP },
  async () => {
    const app = express();
    app.use(compression());
    let fast;
    app.get('/', (req, res) => {
      fast = hasFastProperties(res);
      res.send('x');
    });
    await shapeSeen((req, res, done) => app(req, res, done));
    assert.equal(fast, !SLOW_TRANSITIONS, `V8 ${process.versions.v8}: fast properties ${fast}`);
    assert.equal(SLOW_TRANSITIONS, Number(process.versions.v8.split('.')[0]) < 13);
  },
);

test(
  'a node:http response keeps fast properties under compression (its transitions are cached)',
  { skip: SKIP },
  async () => {
    const middleware = compression();
    assert.equal(await shapeSeen((req, res, done) => middleware(req, res, done)), true);
  },
);
