'use strict';
// npm run test:pack: the tarball users get works with install scripts disabled, on every
// runtime, and still compiles when asked to.
//   1. `npm pack` (prepack writes prebuilds/linux-x64/node.napi.node, from build/Release when that
//      is newer than the sources) into a temp folder; the checkout's build/ must come out of it
//      untouched (every file's size and mtime).
//   2. A fresh temp project installs it with --ignore-scripts (only the pack's own runtime
//      dependencies come from the registry or npm's cache). Nothing may be compiled there.
//   3. The smoke suite (test/runtimes) runs in that project under Node 20/22/24/26 and Bun
//      (runtimes from the cache folder of scripts/runtimes.js).
//   4. Unless --no-compile: a second project installs it with --build-from-source, which must
//      compile (the fallback path a platform without a prebuild takes) and pass the smoke suite.
//      --compile-under node26[,node24]: npm runs under that Node instead of the machine's, so the
//      install script compiles against that Node's own headers (its include/node) and the smoke
//      suite runs there: what a user of a newer Node without a prebuild gets. SSR_NATIVE_WERROR=1
//      in the environment reaches the compiler (.ci/run sets it).
//   node scripts/pack-test.js [runtime ...] [--no-compile] [--compile-under <runtime>[,...]]
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { RUNTIMES, ensureRuntime } = require('./runtimes.js');

const root = path.join(__dirname, '..');

function run(cmd, args, opts = {}) {
  const started = Date.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 << 20, ...opts });
  const seconds = (Date.now() - started) / 1000;
  if (r.error) throw r.error;
  if (r.status !== 0) {
    process.stdout.write(r.stdout || '');
    process.stderr.write(r.stderr || '');
    throw new Error(`${path.basename(cmd)} ${args.slice(0, 3).join(' ')} failed (exit ${r.status})`);
  }
  return { out: (r.stdout || '') + (r.stderr || ''), seconds };
}

function cleanEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  for (const key of Object.keys(env))
    if (/^npm_(config|package|lifecycle)_/i.test(key) && !(key in extra)) delete env[key];
  return env;
}

function makeProject(dir, tarball, installArgs, env) {
  fs.mkdirSync(path.join(dir, 'test'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'pack-test', version: '1.0.0', private: true }, null, 2),
  );
  for (const f of ['smoke.test.js', 'smoke-worker.js']) {
    fs.copyFileSync(path.join(root, 'test', 'runtimes', f), path.join(dir, 'test', f));
  }
  return run('npm', ['install', '--no-audit', '--no-fund', ...installArgs, tarball], { cwd: dir, env });
}

// The runtimes named by --compile-under (comma-separated or repeated), node20 by default.
function compileUnder(args) {
  const names = [];
  args.forEach((arg, i) => {
    if (arg === '--compile-under' && args[i + 1]) names.push(...args[i + 1].split(','));
  });
  for (const name of names) {
    if (!RUNTIMES[name] || RUNTIMES[name].kind !== 'node')
      throw new Error(`--compile-under ${name}: not a Node runtime of scripts/runtimes.js`);
  }
  return names.length ? names : ['node20'];
}

// npm install --build-from-source with `name`'s node first on PATH: npm (a `#!/usr/bin/env node`
// script) and the install script run under it, and scripts/build.js points node-gyp at that
// Node's headers. Returns { seconds, headers } and fails unless it compiled against them.
function buildFromSource(dir, tarball, name) {
  const bin = ensureRuntime(name);
  const env = cleanEnv({ npm_config_build_from_source: 'true' });
  env.PATH = `${path.dirname(bin)}${path.delimiter}${env.PATH}`;
  const r = makeProject(dir, tarball, ['--build-from-source', '--foreground-scripts'], env);
  const build = path.join(dir, 'node_modules', 'ssr-native', 'build');
  if (!fs.existsSync(path.join(build, 'Release', 'ssr_native.node')))
    throw new Error(`--build-from-source under ${name} did not compile`);
  const nodedir = (fs.readFileSync(path.join(build, 'config.gypi'), 'utf8').match(/"nodedir": "([^"]*)"/) || [])[1];
  const prefix = path.resolve(path.dirname(bin), '..');
  if (!nodedir || path.resolve(nodedir) !== prefix)
    throw new Error(`--build-from-source under ${name} compiled against ${nodedir}, not ${prefix}`);
  const version = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return {
    seconds: r.seconds,
    headers: `Node ${version}'s headers${process.env.SSR_NATIVE_WERROR === '1' ? ', -Werror' : ''}`,
  };
}

function smoke(dir, name) {
  const bin = ensureRuntime(name);
  const args =
    RUNTIMES[name].kind === 'bun'
      ? ['test', '--timeout', '120000', './test/smoke.test.js']
      : ['--test', '--test-reporter=tap', 'test/smoke.test.js'];
  const env = cleanEnv();
  env.PATH = `${path.dirname(bin)}${path.delimiter}${env.PATH}`;
  const r = spawnSync(bin, args, { cwd: dir, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  const out = (r.stdout || '') + (r.stderr || '');
  const pass = Number((out.match(/^# pass (\d+)$/m) || out.match(/^\s*(\d+) pass$/m) || [])[1] || 0);
  if (r.status !== 0 || pass === 0) {
    process.stdout.write(out);
    throw new Error(`smoke suite failed under ${name} in ${dir}`);
  }
  return pass;
}

// Every file below dir with its size and mtime (the checkout's build/ may be in use by a test
// run or a server while the package is made: npm pack must not touch it).
function snapshot(dir) {
  const lines = [];
  const walk = (d) => {
    let entries;
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const file = path.join(d, e.name);
      const st = fs.lstatSync(file);
      lines.push(`${path.relative(root, file)} ${st.size} ${st.mtimeMs}`);
      if (e.isDirectory()) walk(file);
    }
  };
  walk(dir);
  return lines.sort().join('\n');
}

function diffLines(before, after) {
  const a = new Set(before.split('\n'));
  const b = new Set(after.split('\n'));
  return [
    ...[...a].filter((l) => !b.has(l)).map((l) => `- ${l}`),
    ...[...b].filter((l) => !a.has(l)).map((l) => `+ ${l}`),
  ]
    .slice(0, 20)
    .join('\n');
}

function main() {
  const args = process.argv.slice(2);
  const names = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--compile-under');
  const selected = names.length ? names : Object.keys(RUNTIMES);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-pack-'));
  try {
    const buildBefore = snapshot(path.join(root, 'build'));
    // prepack's prebuilds: a build/Release (or linux-arm64 prebuild) newer than the sources is
    // packed as it is rather than compiled again (scripts/prebuild.js).
    const packed = run('npm', ['pack', '--pack-destination', tmp], {
      cwd: root,
      env: cleanEnv({ SSR_NATIVE_PREBUILD_REUSE: '1' }),
    });
    const buildAfter = snapshot(path.join(root, 'build'));
    if (buildAfter !== buildBefore)
      throw new Error(`npm pack wrote into build/:\n${diffLines(buildBefore, buildAfter)}`);
    const tarball = path.join(
      tmp,
      fs.readdirSync(tmp).find((f) => f.endsWith('.tgz')),
    );
    const size = fs.statSync(tarball).size;
    const listing = run('tar', ['-tzf', tarball]).out.split('\n');
    const prebuilds = listing.filter((f) => /^package\/prebuilds\/.+\.node$/.test(f));
    if (!prebuilds.includes('package/prebuilds/linux-x64/node.napi.node'))
      throw new Error('the tarball lacks prebuilds/linux-x64/node.napi.node');
    if (listing.some((f) => f.startsWith('package/build/'))) throw new Error('the tarball contains build/');
    console.log(
      `pack: ${path.basename(tarball)} ${(size / 1024).toFixed(0)} KiB, ${listing.length - 1} files, prebuilds: ${prebuilds.map((f) => f.slice(8)).join(', ')} (npm pack + prebuild ${packed.seconds.toFixed(0)} s)`,
    );

    const plain = path.join(tmp, 'ignore-scripts');
    const installed = makeProject(plain, tarball, ['--ignore-scripts'], cleanEnv());
    if (fs.existsSync(path.join(plain, 'node_modules', 'ssr-native', 'build')))
      throw new Error('something was compiled');
    console.log(`pack: npm install --ignore-scripts: ${installed.seconds.toFixed(1)} s, no compiler involved`);
    for (const name of selected) console.log(`pack: ${name}: smoke suite ${smoke(plain, name)} passed (prebuild)`);

    // With install scripts on, a matching prebuild means no compiling either.
    const withScripts = path.join(tmp, 'with-scripts');
    const scripted = makeProject(withScripts, tarball, ['--foreground-scripts'], cleanEnv());
    if (fs.existsSync(path.join(withScripts, 'node_modules', 'ssr-native', 'build')))
      throw new Error('the install script compiled although the prebuild loads');
    if (!/using the prebuilt binary/.test(scripted.out))
      throw new Error('the install script did not report the prebuild');
    console.log(`pack: npm install with scripts, prebuild matches: ${scripted.seconds.toFixed(1)} s, nothing compiled`);

    if (!args.includes('--no-compile')) {
      for (const name of compileUnder(args)) {
        const compiled = path.join(tmp, `build-from-source-${name}`);
        const r = buildFromSource(compiled, tarball, name);
        console.log(
          `pack: npm install --build-from-source under ${name} (compiles, ${r.headers}): ${r.seconds.toFixed(1)} s`,
        );
        console.log(`pack: ${name}: smoke suite ${smoke(compiled, name)} passed (compiled)`);
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

try {
  main();
} catch (err) {
  console.error(`pack: ${err.message}`);
  process.exit(1);
}
