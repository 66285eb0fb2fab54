'use strict';
// One autocannon run, in its own process so the runner can pin it to a CPU of its own.
// Usage: node load.js '<json options>'  -> prints one JSON line with the summary.
// `http2: true` in the options: an h2c load from h2-load.js instead (autocannon has no HTTP/2).
// The percentiles come from our own record of every response time, not from autocannon's
// histogram: its summary has no p95, and with a rate limit (overallRate) autocannon 8 "corrects"
// for coordinated omission with an expected interval of ceil(1 / rate-per-second) = 1 ms, so
// one 100 ms answer adds 99 made-up samples from 99 ms down to 1 ms: at 50 req/s for a few
// seconds, one stall became the p99, and raised the p50 above the real p95.
const autocannon = require('autocannon');
const PipelinedRequestsQueue = require('autocannon/lib/pipelinedRequestsQueue');

const options = JSON.parse(process.argv[2]);
const responseTimes = [];

// autocannon 8 appends every chunk of every response body to a string (`req.body += data`),
// kept only for expectBody/verifyBody/onResponse, which no scenario uses. That decodes each body
// as UTF-8: cheap for ASCII HTML, several times dearer for compressed bytes (invalid UTF-8 all
// along) though they are a tenth the size, so a compressed variant ran at a fraction of the
// uncompressed one's rate, and its server, below saturation, paid more CPU per request (figures:
// docs/compression.md). The chunks are decoded as latin1 instead, a cost in proportion to the
// bytes whatever they are. Not dropped: a load generator that kept no body at all drove the
// uncompressed page at half the rate (measured, not explained), so the string, and the garbage
// it makes, stay as autocannon has them.
if (!options.expectBody && !options.verifyBody && !(options.requests || []).some((r) => r.onResponse)) {
  PipelinedRequestsQueue.prototype.addBody = function addBody(data) {
    const req = this.peek();
    if (req) req.body += data.toString('latin1');
  };
}

if (options.http2) {
  require('./h2-load')
    .runH2Load(options)
    .then((result) => {
      process.stdout.write(JSON.stringify(result) + '\n');
      process.exit(0);
    });
  return;
}

function percentile(sorted, q) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : 0;
}

const instance = autocannon({ ...options, renderProgressBar: false, renderResultsTable: false }, (err, result) => {
  if (err) {
    process.stdout.write(JSON.stringify({ error: String(err) }) + '\n');
    process.exit(1);
  }
  const statusCodes = result.statusCodeStats || {};
  responseTimes.sort((a, b) => a - b);
  process.stdout.write(
    JSON.stringify({
      requestsPerSecond: result.requests.average,
      p50: Math.round(percentile(responseTimes, 0.5) * 100) / 100,
      p95: Math.round(percentile(responseTimes, 0.95) * 100) / 100,
      p99: Math.round(percentile(responseTimes, 0.99) * 100) / 100,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
      statusCodes: Object.fromEntries(Object.entries(statusCodes).map(([k, v]) => [k, v.count])),
      total: result.requests.total,
    }) + '\n',
  );
});
instance.on('response', (client, statusCode, resBytes, responseTime) => responseTimes.push(responseTime));
