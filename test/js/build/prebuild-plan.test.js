'use strict';
// `npm pack` (prepack: scripts/prebuild.js --all) makes every prebuild this machine can make and
// says loudly, on stderr, which ones the package will lack: linux-arm64 is cross-compiled from
// linux-x64 only when the cross toolchain is on PATH, and its absence is a multi-line warning
// naming the file and the package that provides the toolchain.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { plan, freshBinary } = require('../../../scripts/prebuild.js');

const root = path.join(__dirname, '..', '..', '..');
const script = path.join(root, 'scripts', 'prebuild.js');

test('the plan: native for the host, arm64 cross from x64 only with its toolchain', () => {
  const all = plan('linux-x64', () => true);
  assert.deepStrictEqual(
    all.map((s) => [s.target, s.how]),
    [
      ['linux-x64', 'native'],
      ['linux-arm64', 'cross'],
    ],
  );
  const seen = [];
  const without = plan('linux-x64', (tool) => (seen.push(tool), tool !== 'aarch64-linux-gnu-strip'));
  assert.equal(without[1].how, null);
  assert.match(
    without[1].why,
    /no cross toolchain \(aarch64-linux-gnu-strip not on PATH; apt-get install g\+\+-aarch64-linux-gnu\)/,
  );
  assert.ok(seen.includes('aarch64-linux-gnu-g++'));
  // On arm64 the x64 one cannot be made: said, not silently skipped.
  const onArm = plan('linux-arm64', () => true);
  assert.deepStrictEqual(
    onArm.map((s) => [s.target, s.how]),
    [
      ['linux-x64', null],
      ['linux-arm64', 'native'],
    ],
  );
  assert.match(onArm[0].why, /cannot be cross-compiled from linux-arm64/);
});

test(
  'without the cross toolchain on PATH, --all warns on stderr which prebuild is missing',
  { skip: `${process.platform}-${process.arch}` !== 'linux-x64' && 'the cross build is planned from linux-x64' },
  () => {
    // A PATH with node alone: no aarch64-linux-gnu-* tools.
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-path-'));
    try {
      fs.symlinkSync(process.execPath, path.join(bin, 'node'));
      const r = spawnSync(process.execPath, [script, '--all', '--dry-run'], {
        env: { ...process.env, PATH: bin },
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /would make prebuilds\/linux-x64\/node\.napi\.node \(native\)/);
      assert.doesNotMatch(r.stdout, /linux-arm64/);
      const lines = r.stderr.trim().split('\n');
      assert.ok(lines.length >= 5, `a multi-line warning:\n${r.stderr}`);
      assert.ok(
        lines.every((l) => l.startsWith('prebuild: ')),
        r.stderr,
      );
      assert.match(r.stderr, /WARNING: this package will ship WITHOUT/);
      assert.match(r.stderr, /prebuilds\/linux-arm64\/node\.napi\.node: no cross toolchain/);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  },
);

// scripts/pack-test.js packs with SSR_NATIVE_PREBUILD_REUSE=1: a build/Release written after the
// last change to the sources is the prebuild (no second compile); a release (no variable) compiles.
const built = path.join(root, 'build', 'Release', 'ssr_native.node');
test(
  'SSR_NATIVE_PREBUILD_REUSE=1: a build/Release newer than the sources is packed, not compiled again',
  {
    skip:
      (`${process.platform}-${process.arch}` !== 'linux-x64' && 'the plan is checked from linux-x64') ||
      (!freshBinary(built) && 'needs a build/Release newer than src/, include/ and binding.gyp'),
  },
  () => {
    const dryRun = (extra) =>
      spawnSync(process.execPath, [script, '--all', '--dry-run'], {
        env: { ...process.env, SSR_NATIVE_PREBUILD_REUSE: '', ...extra },
        encoding: 'utf8',
      });
    const reused = dryRun({ SSR_NATIVE_PREBUILD_REUSE: '1' });
    assert.equal(reused.status, 0, reused.stderr);
    assert.match(
      reused.stdout,
      /would make prebuilds\/linux-x64\/node\.napi\.node \(native, reusing build\/Release\/ssr_native\.node\)/,
    );
    const release = dryRun({});
    assert.equal(release.status, 0, release.stderr);
    assert.match(release.stdout, /would make prebuilds\/linux-x64\/node\.napi\.node \(native\)/);
  },
);
