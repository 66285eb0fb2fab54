'use strict';
// The package's install script: use the prebuilt binary when one ships for this platform and
// loads here; otherwise compile as before (scripts/build.js, offline against Node's headers).
// `npm install --build-from-source` (npm_config_build_from_source) always compiles.
// Installs with scripts disabled never run this (--ignore-scripts, and npm 12+ by default until
// `npm install-scripts approve ssr-native`): lib/native.js then loads the prebuild directly.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
// Same path as lib/native.js.
const prebuild = path.join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'node.napi.node');

function prebuildLoads() {
  if (!fs.existsSync(prebuild)) return { ok: false, why: `no prebuild for ${process.platform}-${process.arch}` };
  // In a child process: a binary for another libc must not take the installer down with it.
  const r = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(prebuild)}).crc32('123456789')`], {
    encoding: 'utf8',
    timeout: 60000,
  });
  if (r.status === 0) return { ok: true };
  return { ok: false, why: `the prebuild does not load here: ${(r.stderr || '').trim().split('\n')[0]}` };
}

function main() {
  const fromSource = /^(true|1|)$/.test(process.env.npm_config_build_from_source || 'no');
  if (!fromSource) {
    const check = prebuildLoads();
    if (check.ok) {
      console.log(`ssr-native: using the prebuilt binary ${path.relative(root, prebuild)}`);
      return;
    }
    console.log(`ssr-native: ${check.why}; compiling (needs g++, make, python3)`);
  }
  const r = spawnSync(process.execPath, [path.join(__dirname, 'build.js')], { cwd: root, stdio: 'inherit' });
  process.exit(r.status === null ? 1 : r.status);
}

main();
