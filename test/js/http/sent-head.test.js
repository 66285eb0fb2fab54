'use strict';
// The head a response went out with (lib/http/sent-head.js): sentHeaderReader(res), the reader of
// single headers the dictionary uses on every dcz answer, gives what sentHead(res) gives, for
// seeded random heads written by Node itself over HTTP/1.1 (names in any case, repeated headers,
// Set-Cookie lists, headers given to writeHead or set before it) and over HTTP/2.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const http2 = require('node:http2');
const { sentHead, sentHeaderReader } = require('../../../lib/http/sent-head');
const { listenOn, h2request } = require('../helpers/http2');
const { request } = require('../helpers/http');
const { mulberry32 } = require('../helpers/seeded-random');

const SEED = 0x5e17;
const NAMES = ['Cache-Control', 'set-cookie', 'VARY', 'Expires', 'content-range', 'X-Note', 'Link', 'content-type'];
const SINGLE = new Set(['Expires', 'content-range', 'content-type']);
const ASKED = [...NAMES.map((n) => n.toLowerCase()), 'date', 'content-length', 'absent', 'cookie', 'x-not'];

function randomHead(random) {
  const headers = [];
  for (const name of NAMES) {
    // absent, once or twice (HTTP/2 allows these only once)
    const count = Math.floor(random() * (SINGLE.has(name) ? 2 : 3));
    for (let i = 0; i < count; i++) headers.push([name, `v${Math.floor(random() * 1e6)} ; A=b, c`]);
  }
  return { headers, viaWriteHead: random() < 0.5, status: [200, 203, 404][Math.floor(random() * 3)] };
}

function write(res, { headers, viaWriteHead, status }) {
  if (viaWriteHead) {
    const object = {};
    for (const [name, value] of headers) {
      const key = name.toLowerCase();
      object[key] = object[key] === undefined ? value : [].concat(object[key], value);
    }
    res.writeHead(status, object);
  } else {
    res.statusCode = status;
    for (const [name, value] of headers) {
      const had = res.getHeader(name);
      res.setHeader(name, had === undefined ? value : [].concat(had, value));
    }
  }
  res.end('body');
}

for (const protocol of ['HTTP/1.1', 'HTTP/2']) {
  test(`sentHeaderReader reads what sentHead reads (${protocol}, seed ${SEED})`, async () => {
    const random = mulberry32(SEED);
    const heads = Array.from({ length: 40 }, () => randomHead(random));
    const checked = [];
    const handler = (req, res) => {
      const index = Number(req.url.slice(1));
      res.once('finish', () => {
        const whole = sentHead(res);
        const read = sentHeaderReader(res);
        for (const name of ASKED) checked.push([index, name, read(name), whole.headers[name]]);
      });
      write(res, heads[index]);
    };
    const h1 = protocol === 'HTTP/1.1';
    const server = h1 ? http.createServer(handler) : http2.createServer(handler);
    const { url, close } = await listenOn(server, false);
    try {
      for (let i = 0; i < heads.length; i++) {
        if (h1) await request(`${url}/${i}`);
        else await h2request(url, `/${i}`);
      }
    } finally {
      await close();
    }
    assert.equal(checked.length, heads.length * ASKED.length);
    let present = 0;
    for (const [index, name, read, whole] of checked) {
      assert.deepEqual(read, whole, `head ${index} (seed ${SEED}), ${name}: ${JSON.stringify(heads[index])}`);
      if (whole !== undefined) present++;
    }
    assert.ok(present > heads.length * 4, 'the heads held headers');
  });
}
