'use strict';
// The HTTP/2 load generator (bench/http/lib/h2-load.js, through load.js's `http2: true`): every
// stream it counts was answered by a real node:http2 server, statuses are tallied, the streams in
// flight never exceed `connections`, and a paced run keeps to its rate.
const test = require('node:test');
const assert = require('node:assert/strict');
const http2 = require('node:http2');
const { runLoad } = require('../../../bench/http/lib/autocannon');

async function h2Server(handler) {
  const server = http2.createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

test('h2-load: closed loop, answers counted by status, at most `connections` streams at once', async () => {
  let served = 0;
  let inFlight = 0;
  let mostInFlight = 0;
  const server = await h2Server((req, res) => {
    served++;
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    // every fifth answer is a 404; each waits a moment so that streams overlap
    setTimeout(() => {
      inFlight--;
      res.statusCode = served % 5 === 0 ? 404 : 200;
      res.end('x'.repeat(1000));
    }, 2);
  });
  try {
    const result = await runLoad({
      http2: true,
      url: `http://127.0.0.1:${server.address().port}/page`,
      connections: 4,
      duration: 1,
    });
    const summary = JSON.stringify(result);
    assert.ok(result.total > 50, `answers: ${summary}`);
    assert.equal(result.total, (result.statusCodes[200] || 0) + (result.statusCodes[404] || 0), summary);
    assert.equal(result.non2xx, result.statusCodes[404], summary);
    assert.ok(result.non2xx > 0, summary);
    assert.ok(served >= result.total, `every answer counted was served: ${served} ${summary}`);
    assert.ok(mostInFlight <= 4, `streams in flight: ${mostInFlight}`);
    assert.equal(result.errors, 0, summary);
    assert.ok(result.p50 <= result.p95 && result.p95 <= result.p99, summary);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('h2-load: paced at 100 requests/s for 2 s sends about 200', async () => {
  let served = 0;
  const server = await h2Server((req, res) => {
    served++;
    res.end('ok');
  });
  try {
    const result = await runLoad({
      http2: true,
      url: `http://127.0.0.1:${server.address().port}/`,
      connections: 10,
      duration: 2,
      overallRate: 100,
    });
    assert.ok(served >= 150 && served <= 210, `served ${served}: ${JSON.stringify(result)}`);
    assert.equal(result.total, served);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
