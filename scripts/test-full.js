'use strict';
// npm run test:full: what .ci/run leaves out to stay within 40 minutes, to run before a release
// (after .ci/run, or after `npm test` and a build). About 35-45 minutes on 2 cores.
//   - the whole JS suite on Node 22, 24 and Bun (CI: their runtime-sensitive suites only);
//   - sharedMemoryStore's chaos run and the worker stress harness for 60 s each, after the
//     recorded seeds (CI: 20 s), and 30 s a fuzz target after its corpus (CI: 5 s);
//   - the C++ suites under gcc's ASan + UBSan (CI: clang's, built beside the fuzz targets);
//   - the packed tarball compiled from source under Node 20, 22 and 24 too (CI: Node 26);
//   - the benchmarks CI runs, at --quick effort (2 rounds: indicative figures; CI: 1 round);
//   - critical CSS proven by paint on the whole corpus (scripts/paint-check.js --all; CI's
//     npm run test:angular takes a 50-page sample).
//   node scripts/test-full.js [--list] [step name filter]
// Each step prints its time; the run stops at the first failure and names it.
const { spawnSync } = require('child_process');
const path = require('path');

const root = path.join(__dirname, '..');
const node = process.execPath;
const chaosTest = ['--test', '--test-name-pattern=SIGKILLed', 'test/js/cache/cache-shared-memory-cluster.test.js'];

const STEPS = [
  { name: 'JS suite, Node 22, 24, Bun', cmd: [node, 'scripts/runtimes.js', 'node22', 'node24', 'bun'] },
  { name: 'shared-memory cache chaos, 60 s', cmd: [node, ...chaosTest], env: { CHAOS_SECONDS: '60' } },
  {
    name: 'worker stress: recorded batches, then 60 s',
    cmd: [
      node,
      'scripts/stress-workers.js',
      '--replay',
      'test/stress/batches.txt',
      '--seconds',
      '60',
      '--tolerate-node-http-abort',
    ],
  },
  { name: 'C++ tests under ASan + UBSan (gcc)', cmd: [node, 'scripts/cpp.js', 'test', '--sanitize'] },
  { name: 'fuzz: corpus, then 30 s a target', cmd: [node, 'scripts/fuzz.js', '30'] },
  { name: 'critical CSS by paint, the whole corpus', cmd: [node, 'scripts/paint-check.js', '--all'] },
  {
    name: 'packed tarball compiled under Node 20, 22, 24',
    cmd: [node, 'scripts/pack-test.js', 'node20', '--compile-under', 'node20,node22,node24'],
  },
  { name: 'benchmarks, --quick', cmd: [node, 'bench/http/run.js', '--quick'] },
  {
    name: 'multi-process benchmarks, --quick',
    cmd: [
      node,
      'bench/http/run.js',
      '--quick',
      'critical-css-prerender',
      'ssr-cache-fleet',
      'ssr-cache-cluster',
      'argon2-cluster',
    ],
  },
  {
    name: 'Bun benchmarks, --quick (headline cases)',
    cmd: [node, 'bench/http/run.js', '--runtime', 'bun', '--quick', '--headline', 'etag', 'argon2'],
  },
  {
    name: 'Bun benchmarks, --quick (every case)',
    cmd: [node, 'bench/http/run.js', '--runtime', 'bun', '--quick', 'http-static', 'auth'],
  },
];

function main() {
  const args = process.argv.slice(2);
  const filter = args.find((a) => !a.startsWith('--'));
  const steps = STEPS.filter((s) => !filter || s.name.includes(filter));
  if (args.includes('--list') || !steps.length) {
    for (const s of STEPS) console.log(`${s.name}: ${s.cmd.slice(1).join(' ')}`);
    process.exit(steps.length ? 0 : 2);
  }
  const times = [];
  const started = Date.now();
  for (const s of steps) {
    console.log(`\ntest:full: ${s.name}`);
    const t0 = Date.now();
    const r = spawnSync(s.cmd[0], s.cmd.slice(1), { cwd: root, stdio: 'inherit', env: { ...process.env, ...s.env } });
    const seconds = Math.round((Date.now() - t0) / 1000);
    times.push(`${String(seconds).padStart(6)} s  ${s.name}`);
    console.log(`test:full: step ${s.name} took ${seconds} s`);
    if (r.status !== 0) {
      console.error(`test:full: FAILED: ${s.name} (${r.error ? r.error.message : `exit ${r.status ?? r.signal}`})`);
      process.exitCode = 1;
      break;
    }
  }
  console.log(`\ntest:full: time per step\n${times.join('\n')}`);
  console.log(`${String(Math.round((Date.now() - started) / 1000)).padStart(6)} s  total`);
}

main();
