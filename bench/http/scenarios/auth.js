'use strict';
// A whole auth server under a mixed load: health checks, logins (argon2 verify + a JWT),
// registrations (argon2 hash + SQLite insert) and JWT-protected reads, all at once for a fixed
// time. Per route: successful requests/s, p50/p99 latency, 429s and errors, for each argon2
// implementation; the server on one CPU, on all CPUs, and as a 2-worker node:cluster.
const { spawnSync } = require('child_process');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { median } = require('../lib/median');
const { settleCpu } = require('../lib/cpu-time');
const { headlineFromSamples } = require('../lib/headline');
const { underBun, probe, serverRuntime } = require('../lib/runtime');

const SERVER = path.join(__dirname, '..', 'servers', 'auth.js');
const BUN_SERVER = path.join(__dirname, '..', 'servers', 'auth-bun.js');
// better-sqlite3 and jsonwebtoken are for this benchmark only: installed outside the repo.
const DEPS = process.env.SSR_NATIVE_BENCH_DEPS || path.join(os.homedir(), '.cache', 'ssr-native', 'bench-deps');
const DEPS_SPECS = ['better-sqlite3@12', 'jsonwebtoken@9'];
const INSTALL_TIMEOUT_MS = 300000; // better-sqlite3 compiles from source when no prebuild is reachable

const NODE_VARIANTS = [
  { name: 'argon2 package', impl: 'argon2', baseline: true },
  { name: '@node-rs/argon2', impl: 'node-rs', peer: true },
  {
    name: 'node:crypto argon2',
    impl: 'node-crypto',
    peer: true,
    needs: () => probe("process.exit(typeof require('crypto').argon2 === 'function' ? 0 : 1)"),
  },
  { name: 'ssr-native/argon2', impl: 'ssr-native', ours: true },
];
// Under Bun: the auth article's final server is the baseline, against the same routes on
// Bun.serve calling ssr-native/argon2 directly, and the Express servers run by Bun.
const BUN_VARIANTS = [
  {
    name: 'Bun.serve + Bun.password, 3 workers, semaphore 3 (the article)',
    impl: 'bun-workers',
    script: BUN_SERVER,
    baseline: true,
  },
  { name: 'Bun.serve + ssr-native/argon2', impl: 'ssr-native', script: BUN_SERVER, ours: true },
  { name: 'Express + argon2 package', impl: 'argon2', peer: true },
  { name: 'Express + ssr-native/argon2', impl: 'ssr-native', peer: true },
];
const ROUTES = ['health', 'login', 'register', 'read'];
const ROUTE_LABELS = {
  health: 'GET /health',
  login: 'POST /api/users/login',
  register: 'POST /api/users',
  read: 'GET /api/users (JWT)',
};
const REGISTER_RATE = 2; // sign-ups/s, sent from this process
const LOGIN_CONNECTIONS = 4;
const USER = { email: 'alice@example.com', password: 'correct horse battery staple' };

// Loads both packages in a child (a half-built better-sqlite3 fails only when opened).
// Under Bun the servers use bun:sqlite (servers/auth-db.js): jsonwebtoken is all they need.
function depsReady() {
  const sqlite = underBun() ? '' : `new (require(p.join(m,'better-sqlite3')))(':memory:').close();`;
  const code = `const p=require('path');const m=p.join(${JSON.stringify(DEPS)},'node_modules');${sqlite}require(p.join(m,'jsonwebtoken'));`;
  return spawnSync(serverRuntime().bin, ['-e', code], { stdio: 'ignore', timeout: 20000 }).status === 0;
}

function ensureDeps(log) {
  if (depsReady()) return null;
  log(`  installing ${DEPS_SPECS.join(' ')} into ${DEPS} (benchmark only, up to ${INSTALL_TIMEOUT_MS / 1000} s)`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const out = spawnSync(npm, ['install', '--prefix', DEPS, '--no-audit', '--no-fund', ...DEPS_SPECS], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    timeout: INSTALL_TIMEOUT_MS,
  });
  if (depsReady()) return null;
  const why = out.error
    ? out.error.message
    : `npm exited with ${out.status}: ${String(out.stderr || '')
        .trim()
        .split('\n')
        .slice(-2)
        .join(' ')}`;
  return `better-sqlite3/jsonwebtoken unavailable in ${DEPS} (${why}); install them with: npm install --prefix ${DEPS} ${DEPS_SPECS.join(' ')}`;
}

function request(url, { method = 'GET', body, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      {
        method,
        headers: {
          ...headers,
          ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    req.setTimeout(30000, () => req.destroy(new Error(`${method} ${url} timed out`)));
    req.end(data);
  });
}

// Registers the login user (once per database) and logs in for the read token.
async function setUp(server) {
  const made = await request(`${server.url}/api/users`, { method: 'POST', body: USER });
  if (made.status !== 201 && made.status !== 409) throw new Error(`registering the login user: HTTP ${made.status}`);
  const login = await request(`${server.url}/api/users/login`, { method: 'POST', body: USER });
  if (login.status !== 200 || !login.body.token) throw new Error(`login at set-up: HTTP ${login.status}`);
  return login.body.token;
}

// Waits until no hash or verify is in flight (the argon2 package and @node-rs keep working for
// requests whose clients are gone), so the next variant does not share the CPU with them.
// /health answers from one worker at a time: in a cluster, several quiet answers in a row.
async function drained(server, quietNeeded) {
  const deadline = Date.now() + 20000;
  for (let quiet = 0; quiet < quietNeeded && Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 100));
    const res = await request(`${server.url}/health`);
    quiet = res.body && res.body.hashing === 0 ? quiet + 1 : 0;
  }
}

// The mixed load: each route from its own autocannon process, all at once.
function mixedLoad(server, token, seconds) {
  const json = { 'content-type': 'application/json' };
  return {
    // a health checker and light traffic, open loop
    health: { url: `${server.url}/health`, connections: 2, overallRate: 50, duration: seconds },
    // users logging in back to back (a client sends its next login when the answer arrives)
    login: {
      url: `${server.url}/api/users/login`,
      method: 'POST',
      headers: json,
      body: JSON.stringify(USER),
      connections: LOGIN_CONNECTIONS,
      duration: seconds,
      timeout: 30,
    },
    // an API client reading with its token, open loop
    read: {
      url: `${server.url}/api/users`,
      headers: { authorization: `Bearer ${token}` },
      connections: 4,
      overallRate: 100,
      duration: seconds,
    },
  };
}

// Sign-ups at a steady rate, open loop, each a new email: sent from this process (autocannon's
// [<id>] replacement sends a wrong Content-Length with this hyperid version). Same result shape
// as runLoad's.
let signUps = 0;
async function registrations(server, seconds, rate) {
  const latencies = [];
  const statusCodes = {};
  let errors = 0;
  const sent = [];
  const start = Date.now();
  for (let n = 0; n < seconds * rate; n++) {
    const due = start + (n * 1000) / rate;
    await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
    const t0 = process.hrtime.bigint();
    const body = { email: `user-${process.pid}-${++signUps}@example.com`, password: 'hunter2 but longer' };
    sent.push(
      request(`${server.url}/api/users`, { method: 'POST', body }).then(
        (res) => {
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
          statusCodes[res.status] = (statusCodes[res.status] || 0) + 1;
        },
        () => errors++,
      ),
    );
  }
  await Promise.all(sent);
  latencies.sort((a, b) => a - b);
  const at = (q) =>
    latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)]) : 0;
  return { statusCodes, p50: at(0.5), p95: at(0.95), p99: at(0.99), errors, total: latencies.length + errors };
}

function successes(result) {
  return Object.entries(result.statusCodes || {})
    .filter(([code]) => code >= '200' && code < '300')
    .reduce((sum, [, n]) => sum + n, 0);
}

async function runSetup({ setup, variants, rounds, seconds, log, startServer, runLoad, dir }) {
  const baseline = variants.find((v) => v.baseline);
  const ours = variants.find((v) => v.ours);
  const servers = [];
  const tokens = [];
  const samples = variants.map(() =>
    Object.fromEntries(ROUTES.map((r) => [r, { ok: [], p50: [], p95: [], p99: [], busy: [], errors: [], other: [] }])),
  );
  try {
    for (const [index, v] of variants.entries()) {
      const env = {
        ARGON2_IMPL: v.impl,
        AUTH_HASH: v.impl,
        AUTH_DEPS: DEPS,
        AUTH_DB: path.join(dir, `${setup.key}-${index}-${v.impl}.db`),
        AUTH_WORKERS: String(setup.workers),
      };
      const server = await startServer(v.script || SERVER, env, setup.cpu === undefined ? {} : { cpu: setup.cpu });
      servers.push(server);
      tokens.push(await setUp(server));
    }
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < variants.length; k++) {
        const i = (k + round) % variants.length;
        // hashes another variant still runs must not share the CPU with this one
        await settleCpu(servers.map((x) => x.pid));
        const loads = mixedLoad(servers[i], tokens[i], seconds);
        const results = await Promise.all(
          ROUTES.map((route) =>
            route === 'register' ? registrations(servers[i], seconds, REGISTER_RATE) : runLoad(loads[route]),
          ),
        );
        await drained(servers[i], setup.workers > 1 ? 6 : 3);
        const line = [];
        ROUTES.forEach((route, j) => {
          const r = results[j];
          const out = samples[i][route];
          const codes = r.statusCodes || {};
          const ok = successes(r);
          out.ok.push(ok / seconds);
          out.p50.push(r.p50);
          out.p95.push(r.p95);
          out.p99.push(r.p99);
          out.busy.push(codes['429'] || 0);
          out.errors.push(r.errors);
          out.other.push(r.total - ok - (codes['429'] || 0));
          line.push(
            `${route} ${(ok / seconds).toFixed(1)}/s p99 ${r.p99} ms${codes['429'] ? ` ${codes['429']}x429` : ''}`,
          );
        });
        log(`  ${setup.key} round ${round + 1}/${rounds} ${variants[i].name}: ${line.join(', ')}`);
      }
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }

  const base = samples[variants.indexOf(baseline)];
  const rows = [];
  for (const route of ROUTES) {
    variants.forEach((v, i) => {
      const s = samples[i][route];
      const p99 = median(s.p99);
      rows.push({
        route: ROUTE_LABELS[route],
        implementation: v.name,
        'ok requests/s': median(s.ok).toFixed(1),
        'p50 ms': median(s.p50).toFixed(1),
        'p95 ms': median(s.p95).toFixed(1),
        'p99 ms': p99.toFixed(1),
        '429s per run': String(Math.round(median(s.busy))),
        'errors/timeouts': String(s.errors.reduce((a, b) => a + b, 0)),
        'other non-2xx': String(s.other.reduce((a, b) => a + b, 0)),
        // n/a when a side completed no request of this route in the run
        [`ratio p99 vs ${baseline.name} (>1 better)`]:
          median(base[route].ok) > 0 && median(s.ok) > 0
            ? `${(median(base[route].p99) / Math.max(p99, 0.001)).toFixed(2)}x`
            : 'n/a',
      });
    });
  }
  const loginSamples = Object.fromEntries(variants.map((v, i) => [v.name, samples[i].login.ok]));
  let summary = headlineFromSamples({
    measure: `logins/s under the mixed load (${setup.label})`,
    samples: loginSamples,
    baseline: baseline.name,
    ours: ours.name,
    peers: variants.filter((v) => v.peer).map((v) => v.name),
    higherIsBetter: true,
  });
  // No login completed for the baseline (a run too short for this machine): no ratio to report.
  if (summary && !Number.isFinite(summary.ratio)) summary = null;
  const ourP99 = samples[variants.indexOf(ours)];
  const worseRoutes = ROUTES.filter((r) => median(ourP99[r].ok) === 0 || median(ourP99[r].p99) >= median(base[r].p99));
  return {
    title: `auth server ${setup.label}: mixed load for ${seconds} s`,
    columns: Object.keys(rows[0]),
    rows,
    summary,
    notes: [
      `${rounds} interleaved round(s) of ${seconds} s per implementation; medians shown (errors and non-2xx summed over rounds).`,
      `Load, all at once: GET /health 50 req/s, logins from ${LOGIN_CONNECTIONS} connections back to back, registrations ${REGISTER_RATE} req/s (open loop, from the harness process), JWT reads 100 req/s.`,
      `Targets: every route's p99 below ${baseline.name}'s (${worseRoutes.length ? `missed here on ${worseRoutes.map((r) => ROUTE_LABELS[r]).join(', ')}` : 'met here'}); ` +
        `logins/s >= its (${summary ? `${summary.ratio.toFixed(2)}x here` : 'n/a'})${underBun() ? `; /health p99 <= half of it (${healthP99Ratio(samples, variants, baseline, ours)})` : ''}.`,
    ],
  };
}

// The Bun target: our /health p99 at most half the article server's.
function healthP99Ratio(samples, variants, baseline, ours) {
  const of = (v) => median(samples[variants.indexOf(v)].health.p99);
  return `${of(ours).toFixed(1)} ms against ${of(baseline).toFixed(1)} ms: ${of(ours) <= of(baseline) / 2 ? 'met' : 'missed'} here`;
}

module.exports = {
  name: 'auth',
  order: 43,
  question:
    "A whole Express 5 auth server (health, register, login + JWT, protected reads, SQLite) under a mixed load: per-route throughput and p99 for each argon2 implementation, on one CPU, on all CPUs and as a 2-worker cluster (under Bun: against the auth article's Bun.serve server with Bun.password in workers behind a semaphore of 3, and Bun.serve calling ssr-native/argon2).",
  async run({ pick, log, startServer, runLoad, skip }) {
    const missing = ensureDeps(log);
    if (missing) skip(missing);
    const rounds = pick.rounds(1, 1, 3);
    const seconds = pick(2, 3, 8);
    const cpus = os.cpus().length;
    const allCpus = cpus > 1 ? `0-${cpus - 1}` : '0';
    const setups = [
      { key: '1cpu', label: 'pinned to one CPU', workers: 1 },
      { key: 'all', label: `on all ${cpus} CPUs`, workers: 1, cpu: allCpus },
      // Bun's article compares single processes; its node:cluster is left out (see docs/bun.md).
      ...(underBun()
        ? []
        : [{ key: 'cluster', label: `as a 2-worker node:cluster on all ${cpus} CPUs`, workers: 2, cpu: allCpus }]),
    ];
    const all = underBun() ? BUN_VARIANTS : NODE_VARIANTS;
    const usable = all.map((v) => !v.needs || v.needs());
    const variants = all.filter((v, i) => usable[i]);
    const left = all.filter((v, i) => !usable[i]).map((v) => v.name);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-auth-'));
    const tables = [];
    try {
      for (const setup of setups) {
        tables.push(await runSetup({ setup, variants, rounds, seconds, log, startServer, runLoad, dir }));
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const common = [
      'Latencies include fast answers: ssr-native/argon2 answers 429 (Retry-After) when its semaphore is full, the others queue every request.',
      'Server CPU: "one CPU" = pinned to CPU 0 with the load generators on CPU 1; "all CPUs" and the cluster share CPU 1 with the 4 load generators. Other jobs share the machine: expect noise.',
      ...(left.length
        ? [
            `${left.join(', ')}: skipped, crypto.argon2 needs Node >= 24 (this run: ${serverRuntime().label} ${serverRuntime().version}).`,
          ]
        : []),
      ...(underBun()
        ? [
            'Under Bun: users in bun:sqlite (Bun cannot load better-sqlite3), same schema and statements; argon2id m=64 MiB, t=3 everywhere, p=4 for ssr-native and the argon2 package, p=1 for Bun.password (fixed by Bun).',
          ]
        : []),
    ];
    for (const t of tables) t.notes.push(...common);
    return { tables };
  },
};
