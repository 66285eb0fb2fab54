'use strict';
// An HTTP/2 (h2c) load generator with load.js's output, for scenarios that measure a server on
// node:http2: autocannon speaks HTTP/1.1 only. One session (a browser keeps one connection per
// origin) with `connections` streams in flight, each replaced as it ends; `overallRate` paces
// the starts instead (at most `connections` in flight). Bodies are counted, never decoded.
const http2 = require('http2');

function percentile(sorted, q) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : 0;
}

/** Resolves with { requestsPerSecond, p50, p95, p99, errors, non2xx, statusCodes, total }. */
function runH2Load({ url, headers = {}, connections = 20, duration = 1, overallRate = 0 }) {
  const target = new URL(url);
  const session = http2.connect(target.origin);
  const responseTimes = [];
  const statusCodes = {};
  let errors = 0;
  let non2xx = 0;
  let inFlight = 0;
  let stopping = false;
  session.on('error', () => errors++);
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    function request() {
      if (stopping || session.destroyed) return;
      inFlight++;
      const sent = process.hrtime.bigint();
      const stream = session.request({ ':path': target.pathname + target.search, ...headers });
      stream.on('response', (head) => {
        const status = head[':status'];
        statusCodes[status] = (statusCodes[status] || 0) + 1;
        if (status < 200 || status >= 300) non2xx++;
      });
      stream.on('data', () => {});
      const done = (failed) => {
        if (failed) errors++;
        else responseTimes.push(Number(process.hrtime.bigint() - sent) / 1e6);
        inFlight--;
        if (!overallRate) request();
        else if (stopping && inFlight === 0) finish();
      };
      stream.on('end', () => done(false));
      stream.on('error', () => done(true));
      stream.end();
    }
    let pacer = null;
    if (overallRate) {
      const interval = 1000 / overallRate;
      let due = 0;
      const startedMs = Date.now();
      pacer = setInterval(() => {
        const target = Math.floor((Date.now() - startedMs) / interval);
        for (; due < target; due++) if (inFlight < connections) request();
      }, 1);
    } else {
      for (let i = 0; i < connections; i++) request();
    }
    function finish() {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      session.close();
      responseTimes.sort((a, b) => a - b);
      resolve({
        requestsPerSecond: responseTimes.length / seconds,
        p50: Math.round(percentile(responseTimes, 0.5) * 100) / 100,
        p95: Math.round(percentile(responseTimes, 0.95) * 100) / 100,
        p99: Math.round(percentile(responseTimes, 0.99) * 100) / 100,
        errors,
        non2xx,
        statusCodes,
        total: responseTimes.length,
      });
    }
    setTimeout(() => {
      stopping = true;
      if (pacer) clearInterval(pacer);
      if (inFlight === 0) finish();
      else if (!overallRate) {
        // the closed loop stops starting streams: finish when the last one ends
        const poll = setInterval(() => {
          if (inFlight === 0) {
            clearInterval(poll);
            finish();
          }
        }, 1);
      }
    }, duration * 1000);
  });
}

module.exports = { runH2Load };
