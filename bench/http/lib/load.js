'use strict';
// One autocannon run, in its own process so the runner can pin it to a CPU of its own.
// Usage: node load.js '<json options>'  -> prints one JSON line with the summary.
const autocannon = require('autocannon');

const options = JSON.parse(process.argv[2]);
autocannon({ ...options, renderProgressBar: false, renderResultsTable: false }, (err, result) => {
  if (err) {
    process.stdout.write(JSON.stringify({ error: String(err) }) + '\n');
    process.exit(1);
  }
  const statusCodes = result.statusCodeStats || {};
  process.stdout.write(
    JSON.stringify({
      requestsPerSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
      statusCodes: Object.fromEntries(Object.entries(statusCodes).map(([k, v]) => [k, v.count])),
      total: result.requests.total,
    }) + '\n',
  );
});
