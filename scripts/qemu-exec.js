'use strict';
// Preloaded (--require) into arm64 Node running under qemu-user by scripts/arm64.js. The test
// suites start child processes with process.execPath, an arm64 binary that the x86-64 kernel
// cannot execute (qemu-user emulates one process; without binfmt_misc an exec of another arm64
// binary fails). This routes exactly those spawns through the same qemu command line, and
// stretches their `timeout` option by the emulation's slowdown; every other spawn is left
// alone. Test harness only: never loaded by the package.
const childProcess = require('child_process');

const qemu = process.env.SSR_NATIVE_QEMU ? JSON.parse(process.env.SSR_NATIVE_QEMU) : [];
// Emulated arm64 code runs 10-20x slower than native; a child's time limit is about the work
// it does, not about the machine, so it scales by as much.
const SLOWDOWN = 10;

function stretch(options) {
  if (!options || typeof options !== 'object' || typeof options.timeout !== 'number') return options;
  return { ...options, timeout: options.timeout * SLOWDOWN };
}

function wrap(original) {
  return function (file, args, ...rest) {
    if (qemu.length && file === process.execPath) {
      const list = Array.isArray(args) ? args : [];
      const tail = Array.isArray(args) ? rest : [args, ...rest].filter((a) => a !== undefined);
      if (tail.length > 0) tail[0] = stretch(tail[0]);
      return original.call(this, qemu[0], [...qemu.slice(1), process.execPath, ...list], ...tail);
    }
    return original.call(this, file, args, ...rest);
  };
}

for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync']) {
  childProcess[name] = wrap(childProcess[name]);
}
