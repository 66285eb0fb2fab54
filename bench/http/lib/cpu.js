'use strict';
// CPU pinning: the server gets one CPU, the load generator another, when taskset exists and
// the machine has at least two CPUs. Otherwise everything runs unpinned (and the table says so).
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');

const hasTaskset = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;
const cpuCount = os.cpus().length;
const pinning = hasTaskset && cpuCount >= 2;

const SERVER_CPU = 0;
const LOAD_CPU = 1;

/** Prefix for a command so it runs on `cpu` (or unchanged when pinning is unavailable). */
function pinnedCommand(cpu, command, args) {
  return pinning ? ['taskset', ['-c', String(cpu), command, ...args]] : [command, args];
}

/** Moves every thread of a running process onto `cpu`. */
function pinProcess(pid, cpu) {
  if (!pinning) return false;
  return spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' }).status === 0;
}

function npmVersion() {
  const out = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['--version'], { encoding: 'utf8' });
  return out.status === 0 ? out.stdout.trim() : 'unknown';
}

// The CPU flags the SIMD paths choose by: x86 from /proc/cpuinfo "flags", arm64 from "Features".
const SIMD_FLAGS = [
  'sse4_1',
  'pclmulqdq',
  'avx2',
  'avx512f',
  'avx512bw',
  'avx512vl',
  'vpclmulqdq',
  'avx512_vbmi2',
  'pmull',
  'crc32',
];

function simdFlags() {
  let text;
  try {
    text = fs.readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return [];
  }
  const line = text.split('\n').find((l) => /^(flags|Features)\s*:/.test(l));
  if (!line) return [];
  const present = new Set(
    line
      .slice(line.indexOf(':') + 1)
      .trim()
      .split(/\s+/),
  );
  return SIMD_FLAGS.filter((f) => present.has(f));
}

// The CRC-32 path the addon's dispatcher chose here, and the ones it can force (null if the addon
// is not built).
function crc32Dispatch() {
  try {
    const native = require('../../../lib/native');
    return native.crc32Paths();
  } catch {
    return null;
  }
}

/** "pclmulqdq avx2 ...; CRC-32 path vpclmul512 (of portable, pclmul, ...)": for results headers. */
function describeSimd(machine) {
  const flags = machine.cpuFlags && machine.cpuFlags.length ? machine.cpuFlags.join(' ') : 'none read';
  const crc = machine.crc32
    ? `; CRC-32 path ${machine.crc32.active} (available: ${machine.crc32.available.join(', ')})`
    : '';
  return `CPU flags: ${flags}${crc}`;
}

function describeMachine() {
  const cpus = os.cpus();
  const runtime = require('./runtime').serverRuntime();
  return {
    cpu: cpus[0] ? cpus[0].model.trim() : 'unknown',
    cpus: cpus.length,
    cpuFlags: simdFlags(),
    crc32: crc32Dispatch(),
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    kernel: os.release(),
    arch: process.arch,
    node: process.version,
    // what the servers and micro-benchmarks ran under (--runtime); the load generator runs on `node`
    runtime: runtime.label,
    runtimeVersion: runtime.version,
    runtimeName: runtime.name,
    npm: npmVersion(),
    pinning: pinning
      ? `server on CPU ${SERVER_CPU}, load generator on CPU ${LOAD_CPU}`
      : 'none (no taskset or a single CPU)',
  };
}

module.exports = { pinning, SERVER_CPU, LOAD_CPU, pinnedCommand, pinProcess, describeMachine, describeSimd };
