'use strict';
// One autocannon run, in its own process so the runner can pin it to a CPU of its own.
// Usage: node load.js '<json options>'  -> prints one JSON line with the summary.
// p95 (and p99Exact) come from our own record of every response time: autocannon's summary has
// p90 and p97.5 but no p95, and its p99 is in whole milliseconds.
const autocannon = require('autocannon');

const options = JSON.parse(process.argv[2]);
const responseTimes = [];

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
      p50: result.latency.p50,
      p95: Math.round(percentile(responseTimes, 0.95) * 100) / 100,
      p99Exact: Math.round(percentile(responseTimes, 0.99) * 100) / 100, // p99 below is whole ms
      p99: result.latency.p99,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
      statusCodes: Object.fromEntries(Object.entries(statusCodes).map(([k, v]) => [k, v.count])),
      total: result.requests.total,
    }) + '\n',
  );
});
instance.on('response', (client, statusCode, resBytes, responseTime) => responseTimes.push(responseTime));
