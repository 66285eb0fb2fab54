'use strict';
// The response cache's fleet part (the ssr-cache scenario "with the Redis store, two server
// processes"): a real redis-server on a free loopback port and two Express 5 processes of the
// ssr-cache bench server (~10 ms of CPU per render), both with responseCache() over one Redis.
// Does a page rendered in one process come as a hit from the other; do 200 concurrent first
// requests split over both render once in the fleet; how long does a purge in one take to reach
// the other; and what does a Redis that stalls (SIGSTOP) or dies (SIGKILL) under load cost in
// failed requests and requests/s?
const path = require('path');
const { median } = require('../lib/median');
const { cpuSeconds } = require('../lib/cpu-time');
const { getJson, getResponse, getStatus } = require('../lib/http-get');
const { redisMissing, freePort, startRedis } = require('../lib/redis');
const { inBatches } = require('../lib/batches');

const SCRIPT = path.join(__dirname, '..', 'servers', 'ssr-cache.js');
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values, q) {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

module.exports = {
  name: 'ssr-cache-fleet',
  order: 61,
  question:
    'responseCache() with the Redis store, two Express 5 processes and a real redis-server: a page rendered in one is a hit in the other; renders of a 200-request burst over both; purge latency between them; failed requests and req/s when Redis stalls or dies under load.',
  skip: () => redisMissing(),
  estimate: { quick: 25, default: 40, full: 70 }, // seconds, for the runner's time-left line
  async run({ pick, log, startServer, runLoad }) {
    const seconds = pick(1, 2, 3);
    const sharedPages = pick(20, 100, 200);
    const bursts = pick(2, 3, 5);
    const purges = pick(20, 20, 50);
    const mixUrls = pick(50, 300, 1000); // warming them costs a render each (~10 ms)
    const tables = [];
    const port = await freePort();
    const redis = await startRedis(port);
    // Redis is left to the scheduler: pinned beside the load generators it would starve under load
    const env = {
      CACHE_MODE: 'ssr-native',
      REDIS_PORT: String(port),
      CACHE_PREFIX: `bench${process.pid}:`,
      MIX_URLS: String(mixUrls),
    };
    const fleet = [];
    const stats = () => Promise.all(fleet.map((s) => getJson(`${s.url}/stats`)));
    const delta = (before, after, field) =>
      after.map((s, i) => (s[field] ?? s.cache[field]) - (before[i][field] ?? before[i].cache[field]));
    const sum = (xs) => xs.reduce((x, y) => x + y, 0);
    // calls to Redis that failed or timed out in both processes: what made them render instead
    const storeFailures = (before, after) =>
      sum(delta(before, after, 'sharedTimeouts')) + sum(delta(before, after, 'sharedErrors'));
    try {
      fleet.push(await startServer(SCRIPT, env), await startServer(SCRIPT, env));
      const [a, b] = fleet;

      // 1. a page rendered in A is a hit in B
      {
        const before = await stats();
        const fromA = await inBatches(sharedPages, 20, (i) => getStatus(`${a.url}/page/shared-${i}`));
        await delay(100); // a store's write to Redis is not awaited by the response
        const fromB = await inBatches(sharedPages, 20, (i) => getResponse(`${b.url}/page/shared-${i}`));
        const after = await stats();
        const renders = delta(before, after, 'renders');
        tables.push({
          title: `${sharedPages} pages rendered in process A, then requested from process B`,
          columns: [
            'renders in A',
            'renders in B',
            'shared hits in B',
            'B answers with Age (hits)',
            'non-200',
            'store timeouts+errors',
          ],
          rows: [
            {
              'renders in A': renders[0],
              'renders in B': renders[1],
              'shared hits in B': delta(before, after, 'sharedHits')[1],
              'B answers with Age (hits)': fromB.filter((r) => r.headers.age !== undefined).length,
              'non-200': fromA.filter((s) => s !== 200).length + fromB.filter((r) => r.status !== 200).length,
              'store timeouts+errors': storeFailures(before, after),
            },
          ],
          notes: ['target: 0 renders in B, every page a shared hit there'],
        });
        log(`  shared pages: ${renders[1]} renders in B for ${sharedPages} pages rendered in A`);
      }

      // 2. 200 concurrent first requests for one URL, alternately to A and B
      {
        const rows = [];
        for (let round = 0; round < bursts; round++) {
          const before = await stats();
          const started = Date.now();
          const statuses = await Promise.all(
            Array.from({ length: 200 }, (_, i) => getStatus(`${fleet[i % 2].url}/page/burst-${round}`)),
          );
          const ms = Date.now() - started;
          const after = await stats();
          const renders = delta(before, after, 'renders');
          rows.push({
            burst: round + 1,
            'renders (fleet)': sum(renders),
            'in A': renders[0],
            'in B': renders[1],
            'non-200': statuses.filter((s) => s !== 200).length,
            'wall ms': ms,
            'store timeouts+errors': storeFailures(before, after),
          });
        }
        tables.push({
          title: 'burst: 200 concurrent first requests for one URL, 100 to each process',
          columns: ['burst', 'renders (fleet)', 'in A', 'in B', 'non-200', 'wall ms', 'store timeouts+errors'],
          rows,
          notes: ['target: exactly 1 render in the fleet per burst'],
        });
        log(`  bursts: ${rows.map((r) => r['renders (fleet)']).join(', ')} render(s) in the fleet`);
      }

      // 3. purge in A; poll B until it misses (its answer then comes from a render: no Age)
      {
        const latencies = [];
        let never = 0;
        const before = await stats();
        const agent = new (require('http').Agent)({ keepAlive: true, maxSockets: 1 });
        for (let i = 0; i < purges; i++) {
          const p = `/page/purge-${i}`;
          await getStatus(`${a.url}${p}`);
          await delay(20);
          await getResponse(`${b.url}${p}`, { agent }); // B takes it from Redis into its memory
          const warm = await getResponse(`${b.url}${p}`, { agent });
          if (warm.headers.age === undefined) throw new Error(`${p} is not a hit in B before the purge`);
          const started = performance.now();
          const purged = getJson(`${a.url}/purge?url=${encodeURIComponent(p)}`);
          let reached;
          while (performance.now() - started < 2000) {
            const sent = performance.now();
            const r = await getResponse(`${b.url}${p}`, { agent });
            if (r.headers.age === undefined) {
              reached = sent - started; // B missed a request sent this long after the purge began
              break;
            }
          }
          const { dropped } = await purged;
          if (dropped !== 1) throw new Error(`the purge of ${p} in A dropped ${dropped} entries, not 1`);
          if (reached === undefined) never++;
          else latencies.push(reached);
        }
        agent.destroy();
        const failures = storeFailures(before, await stats());
        const ms = (x) => (x === undefined ? '-' : x.toFixed(1));
        tables.push({
          title: `purge latency: purge(url) in A until B misses, ${purges} purges`,
          columns: [
            'purges',
            'min ms',
            'median ms',
            'p95 ms',
            'max ms',
            'over 100 ms',
            'never (2 s)',
            'store timeouts+errors',
          ],
          rows: [
            {
              purges,
              'min ms': ms(Math.min(...latencies)),
              'median ms': ms(median(latencies)),
              'p95 ms': ms(percentile(latencies, 0.95)),
              'max ms': ms(Math.max(...latencies)),
              'over 100 ms': latencies.filter((x) => x > 100).length,
              'never (2 s)': never,
              'store timeouts+errors': failures,
            },
          ],
          notes: [
            'from sending the purge to A to sending the first request B answers with a render; B is polled back to back over one keep-alive connection. target: <= 100 ms',
          ],
        });
        log(`  purge latency: median ${ms(median(latencies))} ms, max ${ms(Math.max(...latencies))} ms`);
      }

      // 4. Redis stalled, then killed, under load on both processes (90% hits / 10% new URLs)
      {
        await inBatches(mixUrls, 20, (i) => getStatus(`${a.url}/page/${i}`));
        const loadBoth = () =>
          Promise.all(fleet.map((s) => runLoad({ url: `${s.url}/mix/x`, connections: 10, duration: seconds })));
        if (seconds > 1.5) await loadBoth(); // JIT warm-up, B's first shared hits
        const signalAt = 500; // ms after the load generators are started (they take ~0.2 s to begin)
        const phases = [
          ['Redis up', null],
          ['Redis stalled (SIGSTOP) mid-run', 'SIGSTOP'],
          ['Redis resumed (SIGCONT), store backing off', 'SIGCONT'],
          ['Redis killed (SIGKILL) mid-run', 'SIGKILL'],
          ['Redis down', 'down'],
        ];
        const rows = [];
        for (const [label, signal] of phases) {
          if (signal === 'SIGCONT') redis.kill('SIGCONT');
          const before = await stats();
          const cpuBefore = sum(fleet.map((s) => cpuSeconds(s.pid)));
          const timer =
            signal === 'SIGSTOP' || signal === 'SIGKILL' ? setTimeout(() => redis.kill(signal), signalAt) : undefined;
          const results = await loadBoth();
          clearTimeout(timer);
          const cpuAfter = sum(fleet.map((s) => cpuSeconds(s.pid)));
          const after = await stats();
          const total = sum(results.map((r) => r.total));
          rows.push({
            phase: label,
            'req/s (both)': Math.round(sum(results.map((r) => r.requestsPerSecond))).toLocaleString('en-US'),
            'failed requests': sum(results.map((r) => r.errors + r.non2xx)),
            'p99 ms': Math.max(...results.map((r) => r.p99)),
            'server CPU us/req': (((cpuAfter - cpuBefore) * 1e6) / Math.max(1, total)).toFixed(1),
            renders: sum(delta(before, after, 'renders')),
            'shared hits': sum(delta(before, after, 'sharedHits')),
            'store timeouts+errors': storeFailures(before, after),
          });
          log(
            `  ${label}: ${rows[rows.length - 1]['req/s (both)']} req/s, ${rows[rows.length - 1]['failed requests']} failed`,
          );
        }
        tables.push({
          title: `Redis stalled and killed under load: ${seconds} s per phase, 10 connections to each process, GET /mix (90% of ${mixUrls} warm URLs, 10% new)`,
          columns: [
            'phase',
            'req/s (both)',
            'failed requests',
            'p99 ms',
            'server CPU us/req',
            'renders',
            'shared hits',
            'store timeouts+errors',
          ],
          rows,
          notes: [
            `the signal goes ${signalAt} ms after the load generators start; the store's defaults (100 ms timeout, 1 s back-off doubling per failure). target: 0 failed requests`,
            'both servers on CPU 0, the load generators on CPU 1, redis-server unpinned; p99: the worse of the two processes (autocannon, integer ms)',
          ],
        });
      }
      return { tables };
    } finally {
      await Promise.all(fleet.map((s) => s.stop()));
      redis.kill('SIGCONT');
      redis.kill('SIGKILL');
    }
  },
};
