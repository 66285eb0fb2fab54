'use strict';
// The C++ core without Node: configure, build and then test (CTest) or benchmark.
//   node scripts/cpp.js test [--sanitize]   GoogleTest suites via CTest (ASan+UBSan with --sanitize)
//   node scripts/cpp.js bench [filter]      every Google Benchmark binary in bench/cpp
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.join(__dirname, '..');

function run(cmd, args, opts = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status === null ? 1 : result.status);
}

function build(dir, cmakeArgs) {
  run('cmake', ['-S', '.', '-B', dir, '-DCMAKE_BUILD_TYPE=Release', ...cmakeArgs]);
  run('cmake', ['--build', dir, '--parallel', String(Math.min(2, os.cpus().length))]);
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'test') {
  const sanitize = rest.includes('--sanitize');
  const dir = sanitize ? 'build-cpp-sanitize' : 'build-cpp';
  build(dir, [
    '-DSSR_NATIVE_BUILD_TESTS=ON',
    '-DSSR_NATIVE_BUILD_BENCHMARKS=OFF',
    `-DSSR_NATIVE_SANITIZE=${sanitize ? 'ON' : 'OFF'}`,
  ]);
  run('ctest', ['--test-dir', dir, '--output-on-failure', '--parallel', String(Math.min(2, os.cpus().length))]);
} else if (mode === 'bench') {
  const dir = 'build-cpp';
  build(dir, ['-DSSR_NATIVE_BUILD_TESTS=OFF', '-DSSR_NATIVE_BUILD_BENCHMARKS=ON']);
  const filter = rest.find((a) => !a.startsWith('--'));
  const binaries = fs
    .readdirSync(path.join(root, 'bench', 'cpp'))
    .filter((f) => f.endsWith('_bench.cc'))
    .map((f) => path.join(root, dir, f.replace(/\.cc$/, '')));
  for (const binary of binaries) {
    const args = filter ? [`--benchmark_filter=${filter}`] : [];
    console.log(`\n== ${path.basename(binary)} ==`);
    run(binary, args);
  }
} else {
  console.error('usage: node scripts/cpp.js test [--sanitize] | bench [filter]');
  process.exit(2);
}
