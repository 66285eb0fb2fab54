'use strict';
// npm run prebuild: the stripped Node-API binary that ships in the npm package, written where
// lib/native.js and node-gyp-build look for it (prebuildify's --napi name):
//   prebuilds/<platform>-<arch>/node.napi.node      e.g. prebuilds/linux-x64/node.napi.node
//
//   node scripts/prebuild.js                 compile for this machine (offline, scripts/build.js),
//                                            strip, check symbols, load it once
//   node scripts/prebuild.js --arch arm64 --binary <file.node> --strip aarch64-linux-gnu-strip
//                                            place a binary built elsewhere (cross-compiled)
// Binaries are never committed (.gitignore); `npm pack` runs this through `prepack`.
const { spawnSync } = require('child_process');
const fs = require('fs');
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
  if (!binary) {
    if (!native) throw new Error('--binary is needed for another platform or arch');
    run(process.execPath, [path.join(__dirname, 'build.js')]);
    binary = path.join(root, 'build', 'Release', 'ssr_native.node');
  }
  const dest = path.join(root, 'prebuilds', `${platform}-${arch}`, 'node.napi.node');
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  fs.copyFileSync(binary, dest);
  // --strip-unneeded keeps the dynamic symbol table the loader needs; drops debug info.
  run(option('strip', 'strip'), ['--strip-unneeded', dest]);
  run(process.execPath, [path.join(__dirname, 'check-symbols.js'), dest]);
  if (native) {
    // It must load and answer here, outside this process's module cache.
    run(process.execPath, ['-e', `if (require(${JSON.stringify(dest)}).crc32('123456789') !== 0xcbf43926) process.exit(1)`]);
  }
  const size = fs.statSync(dest).size;
  console.log(`prebuild: ${path.relative(root, dest)} (${(size / 1024).toFixed(0)} KiB, from ${path.relative(root, binary) || binary})`);
}

try {
  main();
} catch (err) {
  console.error(`prebuild: ${err.message}`);
  process.exit(1);
}
