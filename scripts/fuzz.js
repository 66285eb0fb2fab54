'use strict';
// Builds the libFuzzer targets (test/fuzz/*_fuzz.cc) with clang; each replays its corpus, then
// fuzzes for a bounded time.
//   node scripts/fuzz.js [seconds per target = 30] [target name filter] [--tests]
// --tests: the GoogleTest suites are built in the same folder from the same instrumented core
// (clang, ASan + UBSan) and run first (CTest): CI's C++ run under the sanitizers, with one object
// set for both (`node scripts/cpp.js test --sanitize`, gcc's, runs in test:full).
// The corpus is test/fuzz/<target>.seeds, one input per line (a JSON string, latin1 bytes): the
// starting points and every input a run ever caught (add a reproducer there when you fix what it
// found). Each seed runs once on its own first (-runs=0), so a regression fails even when the
// fuzzing that follows is short (CI: 5 s a target; `npm run fuzz` and test:full: 30 s).
// Needs clang/clang++ (Debian: clang). Exit status is non-zero when a target finds a crash, a
// sanitizer report or a broken invariant; the reproducer is left in build-fuzz/.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
const dir = path.join(root, 'build-fuzz');
const args = process.argv.slice(2).filter((a) => a !== '--tests');
const withTests = args.length < process.argv.length - 2;
const seconds = Number(args[0] || 30);
const filter = args[1] || '';
if (!Number.isInteger(seconds) || seconds <= 0) {
  console.error('usage: node scripts/fuzz.js [seconds per target] [filter] [--tests]');
  process.exit(2);
}

function run(cmd, args, opts = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status === null ? 1 : result.status);
}

// The core is instrumented too (fuzzer-no-link), so coverage guides the search into it.
run('cmake', [
  '-S',
  '.',
  '-B',
  dir,
  '-DCMAKE_BUILD_TYPE=RelWithDebInfo',
  '-DCMAKE_C_COMPILER=clang',
  '-DCMAKE_CXX_COMPILER=clang++',
  '-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all',
  '-DSSR_NATIVE_FUZZ=ON',
  `-DSSR_NATIVE_BUILD_TESTS=${withTests ? 'ON' : 'OFF'}`,
  '-DSSR_NATIVE_BUILD_BENCHMARKS=OFF',
]);
run('cmake', ['--build', dir, '--parallel', '2']);
if (withTests) {
  console.log('\n== the GoogleTest suites under ASan + UBSan (clang) ==');
  run('ctest', ['--test-dir', dir, '--output-on-failure', '--parallel', '2']);
}

const targets = fs
  .readdirSync(path.join(root, 'test', 'fuzz'))
  .filter((f) => f.endsWith('_fuzz.cc') && f.includes(filter))
  .map((f) => f.replace(/\.cc$/, ''));
for (const target of targets) {
  const corpus = path.join(dir, `${target}-corpus`);
  const seeds = path.join(dir, `${target}-seeds`);
  fs.rmSync(seeds, { recursive: true, force: true });
  fs.mkdirSync(seeds, { recursive: true });
  fs.mkdirSync(corpus, { recursive: true });
  const seedFile = path.join(root, 'test', 'fuzz', `${target}.seeds`);
  const lines = fs.existsSync(seedFile) ? fs.readFileSync(seedFile, 'utf8').split('\n').filter(Boolean) : [];
  lines.forEach((line, i) => {
    const bytes = Buffer.from(JSON.parse(line), 'latin1');
    fs.writeFileSync(path.join(seeds, `seed-${i}`), bytes);
    fs.writeFileSync(path.join(corpus, `seed-${i}`), bytes);
  });
  // Inputs that once crashed a target (fixed since): test/fuzz/corpus/<target>/, replayed with the seeds.
  const kept = path.join(root, 'test', 'fuzz', 'corpus', target);
  const keptFiles = fs.existsSync(kept) ? fs.readdirSync(kept) : [];
  for (const f of keptFiles) {
    fs.copyFileSync(path.join(kept, f), path.join(seeds, f));
    fs.copyFileSync(path.join(kept, f), path.join(corpus, f));
  }
  console.log(
    `\n== ${target}: the ${lines.length} inputs of test/fuzz/${target}.seeds and ${keptFiles.length} of test/fuzz/corpus/${target}/, once each ==`,
  );
  run(path.join(dir, target), ['-runs=0', `-artifact_prefix=${dir}/${target}-`, seeds]);
  console.log(`\n== ${target}: ${seconds} s ==`);
  run(path.join(dir, target), [
    `-max_total_time=${seconds}`,
    '-max_len=512',
    `-artifact_prefix=${dir}/${target}-`,
    '-print_final_stats=1',
    corpus,
  ]);
}
