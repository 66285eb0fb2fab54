'use strict';
// The runtime the measured code runs under: `npm run bench -- --runtime bun` (or node22, node24,
// node26) starts every server and micro-benchmark with that executable, while the runner and
// the load generator stay on the machine's Node, so only the server side changes between runs.
// The runner puts the choice in SSR_NATIVE_BENCH_RUNTIME before loading any scenario; the
// runtimes themselves come from scripts/runtimes.js's cache (installed there when missing).
const { spawnSync } = require('child_process');

const ENV = 'SSR_NATIVE_BENCH_RUNTIME';

// What the runner itself runs on: Bun when started as `bun run.js`, else this Node.
function hostName() {
  return process.versions.bun ? 'bun' : `node${process.versions.node.split('.')[0]}`;
}

let memo = null;

/**
 * { name, kind: 'node' | 'bun', bin, label, version, host } of the measured runtime. `host` is
 * true when it is the executable running this process (the default).
 */
function serverRuntime() {
  if (memo) return memo;
  const name = process.env[ENV] || hostName();
  if (name === hostName()) {
    const bun = process.versions.bun;
    memo = {
      name,
      kind: bun ? 'bun' : 'node',
      bin: process.execPath,
      label: bun ? 'Bun' : 'Node.js',
      version: bun || process.version,
      host: true,
    };
    return memo;
  }
  const { RUNTIMES, ensureRuntime } = require('../../../scripts/runtimes');
  const rt = RUNTIMES[name];
  if (!rt) throw new Error(`unknown runtime ${name} (known: ${Object.keys(RUNTIMES).join(', ')})`);
  // ensureRuntime prints its npm progress on stdout: keep the runner's stdout for tables.
  const log = console.log;
  console.log = (...args) => console.error(...args);
  let bin;
  try {
    bin = ensureRuntime(name);
  } finally {
    console.log = log;
  }
  const out = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  const version = out.status === 0 ? out.stdout.trim() : rt.version;
  memo = { name, kind: rt.kind, bin, label: rt.kind === 'bun' ? 'Bun' : 'Node.js', version, host: false };
  return memo;
}

/** True when the measured code runs under Bun (variants that exist only there). */
function underBun() {
  return serverRuntime().kind === 'bun';
}

/** Runs `code` under the measured runtime; true when it exits 0 (feature probes). */
function probe(code) {
  return spawnSync(serverRuntime().bin, ['-e', code], { stdio: 'ignore', timeout: 30000 }).status === 0;
}

module.exports = { ENV, hostName, serverRuntime, underBun, probe };
