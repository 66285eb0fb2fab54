'use strict';
// A CPU with the instructions gets the fast path: the features the addon detected, and the
// CRC-32 path it chose, checked against the kernel's view in /proc/cpuinfo (which also drops
// AVX/AVX-512 flags when the OS does not save their registers). A regression to the portable
// path would pass every equality test; this one fails. Skips say why.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const native = require('../../lib/native');

function cpuinfoFlags() {
  if (process.platform !== 'linux' || !['x64', 'ia32'].includes(process.arch)) return null;
  let text;
  try {
    text = fs.readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return null;
  }
  const line = text.split('\n').find((l) => l.startsWith('flags'));
  return line ? new Set(line.slice(line.indexOf(':') + 1).trim().split(/\s+/)) : null;
}

const flags = cpuinfoFlags();
const skip = flags ? false : `no x86 /proc/cpuinfo flags here (${process.platform}/${process.arch}): cannot check the dispatch`;

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
  else if (has('sse4_1', 'pclmulqdq')) expected = 'pclmul';
  const { active, available } = native.crc32Paths();
  if (expected === undefined) {
    t.diagnostic('this CPU has neither PCLMULQDQ nor VPCLMULQDQ: only the portable path can run');
    assert.ok(!available.includes('pclmul') && !available.includes('vpclmul512'), `available: ${available}`);
    return;
  }
  assert.equal(active, expected, `flags allow ${expected}; available: ${available}`);
  assert.ok(available.includes('pclmul'), 'PCLMULQDQ path must be available');
  if (expected === 'vpclmul512') assert.ok(available.includes('vpclmul512'));
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
