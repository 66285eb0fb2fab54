'use strict';
// Does a flood of registrations (password hashing) slow down everything else the server
// does? An Express server pinned to one CPU; /health is probed at a steady rate, idle and
// while /register receives more hashes per second than the CPU can compute.
const fs = require('fs');
const http = require('http');
const path = require('path');
const { median } = require('../lib/median');
const { settleCpu } = require('../lib/cpu-time');

const SERVER = path.join(__dirname, '..', 'servers', 'argon2-flood.js');
const VARIANTS = [
  { name: 'argon2 package', env: { ARGON2_IMPL: 'argon2' } },
  { name: 'ssr-native/argon2', env: { ARGON2_IMPL: 'ssr-native' } },
];
// The storm: clients that retry the moment they get a 429. The extra variants (--full only, to
// keep the default run within 10 minutes) show what the defaults are chosen against:
// rejections answered at once (rejectDelayMs 0), at nice 10 and at nice 0.
const STORM_VARIANTS = [
  ...VARIANTS,
  { name: 'ssr-native, rejectDelayMs 0', env: { ARGON2_IMPL: 'ssr-native', ARGON2_REJECT_DELAY: '0' } },
  {
    name: 'ssr-native, rejectDelayMs 0, priority 0',
    env: { ARGON2_IMPL: 'ssr-native', ARGON2_REJECT_DELAY: '0', ARGON2_PRIORITY: '0' },
  },
];
const STORM_CONNECTIONS = 16;

// CPU seconds used so far by the server's main (JavaScript) thread and by its other threads
// (the hashing pool, libuv's pool), from /proc.
function threadCpuSeconds(pid) {
  const ticks = 100; // USER_HZ
  const out = { js: 0, other: 0 };
  let tids;
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  for (const tid of tids) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / ticks;
      if (Number(tid) === pid) out.js += seconds;
      else out.other += seconds;
    } catch {
      // the thread exited meanwhile
    }
  }
  return out;
}

function registeredSoFar(server) {
  return new Promise((resolve, reject) => {
    http
      .get(`${server.url}/health`, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(JSON.parse(body).registered));
      })
      .on('error', reject);
  });
}

// Waits until the server has finished the hashes still queued from a flood (the argon2
// package keeps hashing for requests whose clients are gone), so it cannot slow down the
// next variant on the same CPU.
async function drained(server) {
  let last = -1;
  for (let stable = 0; stable < 4;) {
    await new Promise((r) => setTimeout(r, 250));
    const now = await registeredSoFar(server);
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
}

const HEALTH_RATE = 100; // requests/s, open loop: a health checker plus light traffic
const REGISTER_RATE = 40; // requests/s offered: well beyond one CPU's hashing capacity

// The storm shape: STORM_CONNECTIONS connections post /register back to back (each sends the
// next request the moment a response, 429 or 201, arrives) while /health is probed.
async function runStorm({ variants, rounds, seconds, log, startServer, runLoad, health, register }) {
  const servers = [];
  const samples = variants.map(() => ({ p50: [], p99: [], regs: [], busy: [], errors: [], jsShare: [], cpu: [] }));
  try {
    for (const v of variants) servers.push(await startServer(SERVER, v.env));
    for (const s of servers) {
      await runLoad({ ...register(s, 2), overallRate: 5 });
      await drained(s);
    }
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < variants.length; k++) {
        const i = (k + round) % variants.length;
        const s = servers[i];
        // hashes another variant still runs (queued in its pool) must not share the CPU with this one
        await settleCpu(servers.map((x) => x.pid));
        const flood = runLoad({ ...register(s, seconds + 2), connections: STORM_CONNECTIONS, overallRate: undefined });
        await new Promise((r) => setTimeout(r, 1000));
        const before = threadCpuSeconds(s.pid);
        const busy = await runLoad(health(s, seconds));
        const after = threadCpuSeconds(s.pid);
        const floodResult = await flood;
        await drained(s);
        const codes = floodResult.statusCodes || {};
        const out = samples[i];
        const regs = (codes['201'] || 0) / (seconds + 2);
        out.p50.push(busy.p50);
        out.p99.push(busy.p99);
        out.regs.push(regs);
        out.busy.push(codes['429'] || 0);
        out.errors.push(floodResult.errors + busy.errors);
        if (before && after) {
          const js = after.js - before.js;
          const other = after.other - before.other;
          out.jsShare.push(js / Math.max(1e-9, js + other));
          out.cpu.push((js + other) / seconds);
        }
        log(
          `  storm round ${round + 1}/${rounds} ${variants[i].name}: health p99 ${busy.p99} ms; ` +
            `${regs.toFixed(1)} registrations/s, ${codes['429'] || 0} x 429`,
        );
      }
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
  const base = samples[0];
  const rows = variants.map((v, i) => {
    const s = samples[i];
    return {
      server: v.name,
      'health p50 ms': median(s.p50).toFixed(1),
      'health p99 ms': median(s.p99).toFixed(1),
      'p99 target ms (half the package)': (median(base.p99) / 2).toFixed(1),
      'registrations/s': median(s.regs).toFixed(1),
      '429s per round': String(Math.round(median(s.busy))),
      'JS thread share of server CPU': s.jsShare.length ? `${(100 * median(s.jsShare)).toFixed(0)}%` : 'n/a',
      'server CPU used': s.cpu.length ? median(s.cpu).toFixed(2) : 'n/a',
      'errors/timeouts': String(s.errors.reduce((a, b) => a + b, 0)),
      'ratio registrations vs argon2 package': `${(median(s.regs) / median(base.regs)).toFixed(2)}x`,
    };
  });
  return {
    headline: { measure: 'registrations/s', ours: 'ssr-native/argon2', baseline: 'argon2 package' },
    title: `storm: ${STORM_CONNECTIONS} connections post /register back to back (retrying the moment a 429 arrives), /health at ${HEALTH_RATE} req/s`,
    columns: Object.keys(rows[0]),
    rows,
    notes: [
      `${rounds} interleaved rounds of ${seconds} s of /health inside ${seconds + 2} s of storm; medians shown.`,
      'Targets: registrations/s >= 0.9x the package, /health p99 <= half the package\'s. "server CPU used": CPUs the server got (other jobs share the machine).',
    ],
  };
}

module.exports = {
  name: 'argon2-flood',
  order: 41,
  question:
    'Server pinned to one CPU: /health p50/p99 idle and while /register is flooded with default argon2id hashes (paced, and a storm of clients retrying at once); registrations/s and 429s.',
  async run({ pick, log, startServer, runLoad }) {
    const rounds = pick.rounds(1, 1, 5);
    const seconds = pick(3, 3, 8);
    const health = (server, duration) => ({
      url: `${server.url}/health`,
      connections: 4,
      overallRate: HEALTH_RATE,
      duration,
    });
    const register = (server, duration) => ({
      url: `${server.url}/register`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a@example.com', password: 'correct horse battery staple' }),
      connections: 32,
      overallRate: REGISTER_RATE,
      duration,
      timeout: 30,
    });

    const servers = [];
    const samples = VARIANTS.map(() => ({
      idleP50: [],
      idleP99: [],
      floodP50: [],
      floodP99: [],
      regs: [],
      busy: [],
      errors: [],
    }));
    try {
      for (const v of VARIANTS) servers.push(await startServer(SERVER, v.env));
      // Warm-up: JIT, the libuv/hash pools and the first arena.
      for (const s of servers) {
        await Promise.all([runLoad(health(s, 1)), runLoad({ ...register(s, 2), overallRate: 5 })]);
        await drained(s);
      }
      for (let round = 0; round < rounds; round++) {
        for (let k = 0; k < VARIANTS.length; k++) {
          const i = (k + round) % VARIANTS.length;
          const s = servers[i];
          // hashes another variant still runs (queued in its pool) must not share the CPU with this one
          await settleCpu(servers.map((x) => x.pid));
          const idle = await runLoad(health(s, seconds));
          // The flood starts first and outlasts the health probe by a second each side.
          const flood = runLoad(register(s, seconds + 2));
          await new Promise((r) => setTimeout(r, 1000));
          const busy = await runLoad(health(s, seconds));
          const floodResult = await flood;
          await drained(s);
          const codes = floodResult.statusCodes || {};
          const out = samples[i];
          out.idleP50.push(idle.p50);
          out.idleP99.push(idle.p99);
          out.floodP50.push(busy.p50);
          out.floodP99.push(busy.p99);
          out.regs.push((codes['201'] || 0) / (seconds + 2));
          out.busy.push(codes['429'] || 0);
          out.errors.push(floodResult.errors + busy.errors);
          log(
            `  round ${round + 1}/${rounds} ${VARIANTS[i].name}: health p99 idle ${idle.p99} ms, flooded ${busy.p99} ms; ` +
              `${((codes['201'] || 0) / (seconds + 2)).toFixed(1)} registrations/s, ${codes['429'] || 0} x 429`,
          );
        }
      }
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
    const storm = await runStorm({
      variants: pick(VARIANTS, VARIANTS, STORM_VARIANTS),
      rounds,
      seconds,
      log,
      startServer,
      runLoad,
      health,
      register,
    });
    const base = samples[0];
    const rows = VARIANTS.map((v, i) => {
      const s = samples[i];
      const idleP99 = median(s.idleP99);
      const floodP99 = median(s.floodP99);
      return {
        server: v.name,
        'health p50 idle ms': median(s.idleP50).toFixed(1),
        'health p99 idle ms': idleP99.toFixed(1),
        'health p50 flooded ms': median(s.floodP50).toFixed(1),
        'health p99 flooded ms': floodP99.toFixed(1),
        'p99 target ms': Math.max(3 * idleP99, 15).toFixed(0),
        'registrations/s': median(s.regs).toFixed(1),
        '429s per round': String(Math.round(median(s.busy))),
        'errors/timeouts': String(s.errors.reduce((a, b) => a + b, 0)),
        'ratio registrations vs argon2 package': `${(median(s.regs) / median(base.regs)).toFixed(2)}x`,
      };
    });
    return {
      tables: [
        {
          headline: { measure: 'registrations/s', ours: 'ssr-native/argon2', baseline: 'argon2 package' },
          title: `/health at ${HEALTH_RATE} req/s, /register offered ${REGISTER_RATE} req/s (32 connections)`,
          columns: Object.keys(rows[0]),
          rows,
          notes: [
            `${rounds} interleaved rounds; each: ${seconds} s of /health alone, then ${seconds} s of /health inside ${seconds + 2} s of /register flood; medians shown.`,
            'Server (all threads) pinned to one CPU, load generators on another. p99 target: max(3 x idle p99, 15 ms).',
          ],
        },
        storm,
      ],
    };
  },
};
