'use strict';
// The load generator's latency percentiles (bench/http/lib/load.js) are those of the responses
// the server really sent: one stalled answer in a rate-limited run (a health checker at 50
// req/s, as in the auth and argon2-flood scenarios) is one slow sample, not the p99. autocannon
// 8's own histogram adds made-up samples at a 1 ms interval below every slow answer there.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { runLoad } = require('../../../bench/http/lib/autocannon');

const STALL_MS = 400;

test('load.js: one stalled answer at 50 req/s moves neither the p50 nor the p99', async () => {
  let served = 0;
  const server = http.createServer((req, res) => {
    // The 20th request waits; every other one is answered at once.
    const delay = ++served === 20 ? STALL_MS : 0;
    setTimeout(() => res.end('ok'), delay);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address();
    const result = await runLoad({
      url: `http://127.0.0.1:${port}/`,
      connections: 2,
      overallRate: 50,
      duration: 3,
    });
    const summary = JSON.stringify(result);
    assert.ok(result.total >= 100, `enough answers for a p99: ${summary}`);
    assert.ok(served >= 20, `the stalled request was sent: ${summary}`);
    // 150 answers or so, one of them slow: its p99 is a fast answer.
    assert.ok(result.p50 < STALL_MS / 8, `p50 of fast answers: ${summary}`);
    assert.ok(result.p99 < STALL_MS / 2, `p99 without made-up samples: ${summary}`);
    assert.ok(result.p95 <= result.p99 && result.p50 <= result.p95, `ordered percentiles: ${summary}`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
