'use strict';
// A CPU with the instructions gets the fast path: the features the addon detected, and the
// CRC-32 path it chose, checked against the kernel's view in /proc/cpuinfo (which also drops
// AVX/AVX-512 flags when the OS does not save their registers). A regression to the portable
// path would pass every equality test; this one fails. On arm64 Linux the same for AT_HWCAP (read
// from /proc/self/auxv, which qemu-user emulates too). And every path the CPU has, forced with
// crc32WithPath, gives the same CRC as every other and as zlib on the same seeded inputs. Skips
// say why.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const zlib = require('node:zlib');
const native = require('../../../lib/native');
const { mulberry32 } = require('../helpers/seeded-random');

function cpuinfoFlags() {
  if (process.platform !== 'linux' || !['x64', 'ia32'].includes(process.arch)) return null;
  let text;
  try {
    text = fs.readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return null;
  }
  const line = text.split('\n').find((l) => l.startsWith('flags'));
  return line
    ? new Set(
        line
          .slice(line.indexOf(':') + 1)
          .trim()
          .split(/\s+/),
      )
    : null;
}

const flags = cpuinfoFlags();
const skip = flags
  ? false
  : `no x86 /proc/cpuinfo flags here (${process.platform}/${process.arch}): cannot check the dispatch`;

// Our feature name -> the kernel's flag name.
const FLAG_OF = {
  sse41: 'sse4_1',
  pclmulqdq: 'pclmulqdq',
  avx2: 'avx2',
  avx512f: 'avx512f',
  avx512bw: 'avx512bw',
  avx512vl: 'avx512vl',
  vpclmulqdq: 'vpclmulqdq',
  avx512vbmi2: 'avx512_vbmi2',
};

test('detected CPU features agree with /proc/cpuinfo', { skip }, () => {
  const detected = native.cpuFeatures();
  assert.deepEqual(Object.keys(detected).sort(), Object.keys(FLAG_OF).sort());
  for (const [feature, flag] of Object.entries(FLAG_OF)) {
    // vpclmulqdq is reported by CPUID alone; the kernel lists it whenever the CPU has it.
    assert.equal(detected[feature], flags.has(flag), `${feature} (cpuinfo flag ${flag})`);
  }
});

test('the CRC-32 path in use is the fastest one /proc/cpuinfo allows', { skip }, (t) => {
  const has = (...names) => names.every((n) => flags.has(n));
  let expected;
  if (has('sse4_1', 'pclmulqdq', 'avx512f', 'avx512bw', 'avx512vl', 'vpclmulqdq')) expected = 'vpclmul512';
  else if (has('sse4_1', 'pclmulqdq', 'avx2', 'vpclmulqdq')) expected = 'vpclmul256';
  else if (has('sse4_1', 'pclmulqdq')) expected = 'pclmul';
  const { active, available } = native.crc32Paths();
  if (expected === undefined) {
    t.diagnostic('this CPU has neither PCLMULQDQ nor VPCLMULQDQ: only the portable path can run');
    assert.ok(!available.some((p) => p.includes('pclmul')), `available: ${available}`);
    return;
  }
  assert.equal(active, expected, `flags allow ${expected}; available: ${available}`);
  assert.ok(available.includes('pclmul'), 'PCLMULQDQ path must be available');
  // The 256-bit fold needs AVX2 state and VPCLMULQDQ only: present on every AVX-512 machine too.
  assert.equal(available.includes('vpclmul256'), has('avx2', 'vpclmulqdq'), `available: ${available}`);
  assert.equal(available.includes('vpclmul512'), expected === 'vpclmul512', `available: ${available}`);
  assert.ok(!available.includes('armv8_crc32') && !available.includes('armv8_pmull'));
});

// AT_HWCAP from /proc/self/auxv: (type, value) pairs of 64-bit words, ending with type 0.
function arm64Hwcap() {
  if (process.platform !== 'linux' || process.arch !== 'arm64') return null;
  let auxv;
  try {
    auxv = fs.readFileSync('/proc/self/auxv');
  } catch {
    return null;
  }
  for (let at = 0; at + 16 <= auxv.length; at += 16) {
    const type = auxv.readBigUInt64LE(at);
    if (type === 0n) break;
    if (type === 16n) return auxv.readBigUInt64LE(at + 8); // AT_HWCAP
  }
  return null;
}

const hwcap = arm64Hwcap();
test(
  'on arm64 the CRC-32 path follows AT_HWCAP (PMULL and CRC32)',
  { skip: hwcap === null && `not arm64 Linux with a readable /proc/self/auxv (${process.platform}/${process.arch})` },
  () => {
    const pmull = (hwcap & (1n << 4n)) !== 0n; // HWCAP_PMULL
    const crc = (hwcap & (1n << 7n)) !== 0n; // HWCAP_CRC32
    const { active, available } = native.crc32Paths();
    assert.equal(available.includes('armv8_crc32'), crc, `available: ${available}`);
    assert.equal(available.includes('armv8_pmull'), crc && pmull, `available: ${available}`);
    assert.equal(active, crc && pmull ? 'armv8_pmull' : crc ? 'armv8_crc32' : 'portable');
    assert.ok(!available.some((p) => p.includes('pclmul')), `available: ${available}`);
  },
);

test('every CRC-32 path this CPU has agrees with every other and with zlib (seeded inputs)', (t) => {
  const { available } = native.crc32Paths();
  t.diagnostic(`paths: ${available.join(', ')}`);
  const seed = 2424;
  const next = mulberry32(seed);
  const data = Buffer.alloc((1 << 20) + 64);
  for (let i = 0; i < data.length; i++) data[i] = Math.floor(next() * 256);
  // Every length 0..4096 at alignments 0..63 (a prime stride through them, to stay quick), each
  // with a random running value.
  for (let length = 0; length <= 4096; length++) {
    const offset = (length * 7) % 64;
    const view = data.subarray(offset, offset + length);
    const start = Math.floor(next() * 2 ** 32);
    const expected = zlib.crc32(view, start);
    for (const path of available) {
      const got = native.crc32WithPath(path, view, start);
      if (got !== expected)
        assert.fail(
          `${path}: length ${length} offset ${offset} start ${start} seed ${seed}: ${got} != zlib ${expected}`,
        );
    }
  }
  // 1 MB, whole and as a running value over random pieces.
  const mb = data.subarray(0, 1 << 20);
  const whole = zlib.crc32(mb);
  for (const path of available) {
    assert.equal(native.crc32WithPath(path, mb), whole, `${path}: 1 MB`);
    let running = 0;
    for (let at = 0; at < mb.length;) {
      const piece = Math.min(Math.floor(next() * 5000), mb.length - at);
      running = native.crc32WithPath(path, mb.subarray(at, at + piece), running);
      at += piece;
    }
    assert.equal(running, whole, `${path}: 1 MB in pieces, seed ${seed}`);
  }
});

test('a CPU with AVX2 hashes argon2 with a SIMD kernel, not the portable one', { skip }, (t) => {
  const { kernel } = native.argon2PoolStats();
  if (!flags.has('avx2')) {
    t.diagnostic('this CPU has no AVX2: the portable argon2 kernel is expected');
    assert.equal(kernel, 'portable');
    return;
  }
  // AVX-512 is chosen only where it measurably beats AVX2 (src/core/argon2.cc), so either.
  assert.ok(kernel === 'avx2' || kernel === 'avx512', `kernel ${kernel} on a CPU with AVX2`);
});
