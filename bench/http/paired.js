'use strict';
// CPU per request of a scenario's variants loaded at the same time, for a machine shared with
// other work:
//   node bench/http/paired.js <scenario> [--case <name>] [--rounds 10] [--seconds 2]
//                             [--only <name part>,...] [--env NAME=value,...] [--also <checkout>]
//
// run.js loads the variants in turn, so a round's ratio pairs windows a few seconds apart, and on
// a shared 2-CPU machine whatever else runs in one window and not in the other moves it. This
// loads every variant's server at once, all pinned to the same CPU, each from its own load
// generator on the other CPU: in every round they share that CPU at the same moments, so other
// work slows them alike, and the per-round ratio of their CPU per request is what differs between
// them (docs/performance.md compares the two spreads). What it does not give: requests/s (the
// servers divide one CPU), nor a server's CPU per request alone (sharing a core's caches raises
// it); run.js gives those. --env adds variables to every variant's server (FH_PAGE_BYTES=16384).
// --also <dir> adds each ssr-native variant (not the ablations) once more, its server script taken
// from the checkout in <dir> (another commit's lib/ behind this bench/: before and after in the
// same rounds).
const path = require('path');
const { startServer } = require('./lib/server');
const { runLoad } = require('./lib/autocannon');
const { cpuSeconds, cpuTimes, settleCpu: quiet } = require('./lib/cpu-time');
const { median } = require('./lib/median');
const { describeMachine } = require('./lib/cpu');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))];
}

async function main() {
  const name = process.argv[2];
  if (!name || name.startsWith('--')) {
    console.error(
      'usage: node bench/http/paired.js <scenario> [--case <name>] [--rounds N] [--seconds S] [--only a,b] [--env K=V,...] [--also <checkout>]',
    );
    process.exit(2);
  }
  const scenario = require(path.join(__dirname, 'scenarios', `${name}.js`));
  if (!scenario.cases) throw new Error(`${name} is a custom scenario: it has no variants to pair`);
  const testCase = scenario.cases.find((c) => c.name === option('case', scenario.cases[0].name));
  if (!testCase) throw new Error(`no case named ${option('case')}`);
  const only = option('only', null);
  const extraEnv = Object.fromEntries(
    (option('env', '') || '')
      .split(',')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  const variants = testCase.variants
    .filter((v) => !only || only.split(',').some((o) => v.name.includes(o)))
    .map((v) => ({ ...v, env: { ...v.env, ...extraEnv } }));
  const also = option('also', null);
  if (also) {
    const root = path.join(__dirname, '..', '..');
    for (const v of variants.filter((x) => /ssr-native/i.test(x.name) && !/ablation/i.test(x.name))) {
      const script = path.join(path.resolve(also), path.relative(root, v.script));
      variants.push({ ...v, name: `${v.name} @ ${path.basename(path.resolve(also))}`, script });
    }
  }
  const reference = variants.find((v) => v.name === testCase.reference) || variants[0];
  const rounds = Number(option('rounds', 10));
  const seconds = Number(option('seconds', 2));
  const machine = describeMachine();
  console.log(
    `${name} / ${testCase.name}${Object.keys(extraEnv).length ? ` (${option('env')})` : ''}: ${variants.length} variants at once, ${rounds} rounds of ${seconds} s; ` +
      `${machine.cpu} (${machine.cpus} CPUs), ${machine.runtime} ${machine.runtimeVersion}; ${machine.pinning}`,
  );
  const servers = [];
  try {
    for (const v of variants) servers.push(await startServer(v.script, v.env));
    const pids = servers.map((s) => s.pid);
    const load = (server, variant, duration) => {
      const request = variant.request || testCase.request || {};
      return {
        url: server.url + (request.path || '/'),
        method: request.method || 'GET',
        headers: request.headers || {},
        connections: testCase.connections ?? scenario.connections ?? 50,
        duration,
      };
    };
    await Promise.all(servers.map((s, i) => runLoad(load(s, variants[i], 3))));
    const cpu = variants.map(() => []);
    const user = variants.map(() => []);
    for (let round = 0; round < rounds; round++) {
      await quiet(pids);
      const before = servers.map((s) => cpuTimes(s.pid));
      const results = await Promise.all(servers.map((s, i) => runLoad(load(s, variants[i], seconds))));
      await quiet(pids);
      servers.forEach((s, i) => {
        const after = cpuTimes(s.pid);
        cpu[i].push(((cpuSeconds(s.pid) - before[i].user - before[i].system) * 1e6) / results[i].total);
        user[i].push(((after.user - before[i].user) * 1e6) / results[i].total);
      });
      process.stderr.write(`  round ${round + 1}/${rounds}\n`);
    }
    const r = variants.indexOf(reference);
    console.log(
      `\n${'variant'.padEnd(36)} ${'CPU us/req'.padStart(10)} ${'user'.padStart(6)}  vs ${reference.name}: median (quartiles; min-max) of the per-round ratios`,
    );
    variants.forEach((v, i) => {
      const ratios = cpu[i].map((c, k) => cpu[r][k] / c).sort((a, b) => a - b);
      const f = (x) => x.toFixed(2);
      console.log(
        `${v.name.padEnd(36)} ${median(cpu[i]).toFixed(1).padStart(10)} ${median(user[i]).toFixed(1).padStart(6)}  ` +
          (i === r
            ? '-'
            : `${median(ratios).toFixed(3)}x (${f(quantile(ratios, 0.25))}-${f(quantile(ratios, 0.75))}; ${f(ratios[0])}-${f(ratios[ratios.length - 1])})`),
      );
    });
    console.log(
      '\nCPU us/req: user + system CPU of the server per request (from /proc), with every variant sharing one CPU; ratio > 1: fewer CPU-seconds per request than the reference.',
    );
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
