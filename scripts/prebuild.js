'use strict';
// npm run prebuild: the stripped Node-API binary that ships in the npm package, written where
// lib/native.js and node-gyp-build look for it (prebuildify's --napi name):
//   prebuilds/<platform>-<arch>/node.napi.node      e.g. prebuilds/linux-x64/node.napi.node
//
//   node scripts/prebuild.js                 compile for this machine (offline, scripts/build.js),
//                                            strip, check symbols, load it once
//   node scripts/prebuild.js --arch arm64 --binary <file.node> --strip aarch64-linux-gnu-strip
//                                            place a binary built elsewhere (cross-compiled)
//   node scripts/prebuild.js --all [--dry-run]
//                                            what `npm pack` runs (prepack): this machine's, plus
//                                            linux-arm64 from linux-x64 when the cross toolchain is
//                                            there (scripts/arm64.js); prints on stderr, loudly,
//                                            which prebuilds the package will lack and why
// SSR_NATIVE_PREBUILD_REUSE=1 (scripts/pack-test.js sets it; a release never does): --all takes
// a binary built after the last change to the addon's sources instead of compiling it again:
// build/Release for this machine, an existing prebuilds/linux-arm64 for arm64.
// Binaries are never committed (.gitignore).
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.join(__dirname, '..');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) process.exit(r.status === null ? 1 : r.status);
}

function main() {
  const platform = option('platform', process.platform);
  const arch = option('arch', process.arch);
  const native = platform === process.platform && arch === process.arch;
  let binary = option('binary', null);
  let stage = null;
  if (!binary) {
    if (!native) throw new Error('--binary is needed for another platform or arch');
    stage = stageSources();
    run(process.execPath, [path.join(__dirname, 'build.js'), '--in', stage]);
    binary = path.join(stage, 'build', 'Release', 'ssr_native.node');
  }
  try {
    place(platform, arch, native, binary, stage);
  } finally {
    if (stage) fs.rmSync(stage, { recursive: true, force: true });
  }
}

// node-gyp always builds into ./build, and the checkout's build/ may be in use (a test run, a
// server, a developer's debug build): compile in a scratch folder holding binding.gyp and links to
// the sources instead, so `npm pack` never writes into build/.
function stageSources() {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-prebuild-'));
  fs.copyFileSync(path.join(root, 'binding.gyp'), path.join(stage, 'binding.gyp'));
  // binding.gyp runs scripts/sources.js and asks node for node-addon-api's headers from here
  for (const dir of ['include', 'src', 'scripts', 'node_modules']) {
    if (fs.existsSync(path.join(root, dir))) fs.symlinkSync(path.join(root, dir), path.join(stage, dir));
  }
  return stage;
}

function place(platform, arch, native, binary, stage) {
  const dest = path.join(root, 'prebuilds', `${platform}-${arch}`, 'node.napi.node');
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  fs.copyFileSync(binary, dest);
  // --strip-unneeded keeps the dynamic symbol table the loader needs; drops debug info.
  run(option('strip', 'strip'), ['--strip-unneeded', dest]);
  run(process.execPath, [path.join(__dirname, 'check-symbols.js'), dest]);
  if (native) {
    // It must load and answer here, outside this process's module cache.
    run(process.execPath, [
      '-e',
      `if (require(${JSON.stringify(dest)}).crc32('123456789') !== 0xcbf43926) process.exit(1)`,
    ]);
  }
  const size = fs.statSync(dest).size;
  const from = stage ? 'compiled in a scratch folder' : `from ${path.relative(root, binary) || binary}`;
  console.log(`prebuild: ${path.relative(root, dest)} (${(size / 1024).toFixed(0)} KiB, ${from})`);
}

// The prebuilds a package should carry. Each is made natively on its own machine, or cross-
// compiled: linux-arm64 from linux-x64 with Debian's g++-aarch64-linux-gnu (scripts/arm64.js).
const TARGETS = ['linux-x64', 'linux-arm64'];
const CROSS = {
  'linux-x64>linux-arm64': {
    tools: ['aarch64-linux-gnu-g++', 'aarch64-linux-gnu-strip'],
    script: 'arm64.js',
    install: 'apt-get install g++-aarch64-linux-gnu',
  },
};

function hasTool(tool) {
  const r = spawnSync(tool, ['--version'], { stdio: 'ignore' });
  return !r.error && r.status === 0;
}

/** For each target: { target, how: 'native' | 'cross' | null, why (when null), cross }. */
function plan(host = `${process.platform}-${process.arch}`, toolPresent = hasTool) {
  return TARGETS.map((target) => {
    if (target === host) return { target, how: 'native' };
    const cross = CROSS[`${host}>${target}`];
    if (!cross) return { target, how: null, why: `cannot be cross-compiled from ${host}; build it on ${target}` };
    const missing = cross.tools.filter((tool) => !toolPresent(tool));
    if (missing.length) {
      return {
        target,
        how: null,
        cross,
        why: `no cross toolchain (${missing.join(', ')} not on PATH; ${cross.install})`,
      };
    }
    return { target, how: 'cross', cross };
  });
}

function warnMissing(missing) {
  const line = '-'.repeat(78);
  const lines = [
    line,
    `WARNING: this package will ship WITHOUT a fresh build of ${missing.length === 1 ? 'this prebuild' : 'these prebuilds'}:`,
    ...missing.flatMap((m) => [
      `  prebuilds/${m.target}/node.napi.node: ${m.why}`,
      ...(m.kept ? [`    (${m.kept})`] : []),
    ]),
    'Users there compile on install (g++, make, python3) or, without install scripts,',
    'get ERR_SSR_NATIVE_NOT_BUILT. A release must not ship this way (npm publish',
    'builds linux-arm64 itself first: prepublishOnly).',
    line,
  ];
  for (const text of lines) console.error(`prebuild: ${text}`);
}

// The newest modification time under the addon's sources (src/, include/, binding.gyp), in ms.
function newestSource(entry = root, names = ['src', 'include', 'binding.gyp']) {
  let newest = 0;
  for (const name of names) {
    const file = path.join(entry, name);
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) continue;
    newest = Math.max(newest, stat.isDirectory() ? newestSource(file, fs.readdirSync(file)) : stat.mtimeMs);
  }
  return newest;
}

/** `file` when it exists and was written after the last change to the addon's sources, else null. */
function freshBinary(file) {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  return stat && stat.mtimeMs > newestSource() ? file : null;
}

// The command that makes step's prebuild: a fresh binary reused (SSR_NATIVE_PREBUILD_REUSE=1),
// or compiled; null when an arm64 prebuild is fresh already.
function commandFor(step) {
  const reuse = process.env.SSR_NATIVE_PREBUILD_REUSE === '1';
  if (step.how === 'native') {
    const built = reuse && freshBinary(path.join(root, 'build', 'Release', 'ssr_native.node'));
    return built ? [__filename, '--binary', built] : [__filename];
  }
  if (reuse && freshBinary(path.join(root, 'prebuilds', step.target, 'node.napi.node'))) return null;
  return [path.join(__dirname, step.cross.script), 'prebuild'];
}

// --all: every prebuild this machine can make; a failed cross build is reported, not fatal,
// since a local `npm pack` should still give a tarball (with the warning saying what it lacks).
function all() {
  const dryRun = process.argv.includes('--dry-run');
  const steps = plan();
  const missing = steps.filter((s) => s.how === null);
  for (const step of steps) {
    if (step.how === null) continue;
    const script = commandFor(step);
    const reused = script && script.includes('--binary') ? `, reusing ${path.relative(root, script[2])}` : '';
    if (dryRun || script === null) {
      const what = script === null ? 'keep' : 'make';
      console.log(
        `prebuild: ${dryRun ? `would ${what}` : 'kept'} prebuilds/${step.target}/node.napi.node (${step.how}${reused})`,
      );
      continue;
    }
    const r = spawnSync(process.execPath, script, { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) {
      if (step.how === 'native') process.exit(r.status === null ? 1 : r.status);
      missing.push({ target: step.target, why: `the ${step.how} build failed (its output is above)` });
    }
  }
  // One left from an earlier run (or placed with --binary) but not made now is kept, and said.
  for (const m of missing) {
    const kept = path.join(root, 'prebuilds', m.target, 'node.napi.node');
    if (fs.existsSync(kept)) {
      m.kept = `an earlier prebuilds/${m.target}/node.napi.node (${fs.statSync(kept).mtime.toISOString()}) is packed as it is: it may not match these sources`;
    }
  }
  if (missing.length) warnMissing(missing);
}

if (require.main === module) {
  try {
    if (process.argv.includes('--all')) all();
    else main();
  } catch (err) {
    console.error(`prebuild: ${err.message}`);
    process.exit(1);
  }
}

module.exports = { plan, TARGETS, freshBinary };
