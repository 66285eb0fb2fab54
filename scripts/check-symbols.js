'use strict';
// Fails when an addon binary needs a dynamic symbol that only some host runtimes provide.
//
// An undefined symbol is bound lazily, at its first call: a `crc32` that Node's binary happens
// to export (from its bundled zlib) loaded fine under Bun and killed the process at the first
// etag() (issue 8). Allowed: Node-API (`napi_*`, `node_api_*`, which every runtime that loads
// addons provides) and symbols versioned by the system libraries the binary declares as NEEDED
// (glibc's libc/libm/libpthread/libdl/ld.so, libstdc++, libgcc_s). Weak undefined symbols
// (`__gmon_start__`, `_ITM_*`) resolve to null when absent and are allowed too.
//   node scripts/check-symbols.js [file.node ...]
// Without arguments: build/Release/ssr_native.node and every prebuilds/*/*.node present.
// Also prints the newest glibc / libstdc++ symbol versions each binary needs (what a deploy
// image must have at least).
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');

const ALLOWED_LIBRARIES = new Set([
  'libc.so.6',
  'libm.so.6',
  'libpthread.so.0',
  'libdl.so.2',
  'libstdc++.so.6',
  'libgcc_s.so.1',
  'ld-linux-x86-64.so.2',
  'ld-linux-aarch64.so.1',
]);
// Symbol version namespaces of those libraries.
const ALLOWED_VERSIONS = /^(GLIBC|GLIBCXX|CXXABI|GCC)_[0-9.]+$/;
const NODE_API = /^(napi|node_api)_[A-Za-z0-9_]+$/;

function readelf(args) {
  const result = spawnSync('readelf', ['-W', ...args], { encoding: 'utf8' });
  if (result.error) throw new Error(`readelf is needed (Debian: binutils): ${result.error.message}`);
  if (result.status !== 0) throw new Error(`readelf ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

// [{ name, version, weak }] for every undefined dynamic symbol.
function undefinedSymbols(file) {
  const symbols = [];
  for (const line of readelf(['--dyn-syms', file]).split('\n')) {
    // "  3: 0000000000000000  0 FUNC  GLOBAL DEFAULT  UND memcpy@GLIBC_2.14 (3)"
    const m = line.match(/^\s*\d+:\s+[0-9a-f]+\s+\d+\s+\w+\s+(\w+)\s+\w+\s+UND\s+(\S+)/);
    if (!m) continue;
    const [full, version = ''] = m[2].split(/@+/);
    symbols.push({ name: full, version, weak: m[1] === 'WEAK' });
  }
  return symbols;
}

function neededLibraries(file) {
  return [...readelf(['-d', file]).matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);
}

function compareVersions(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if ((pa[i] || 0) !== (pb[i] || 0)) return (pa[i] || 0) - (pb[i] || 0);
  }
  return 0;
}

function newestVersion(symbols, prefix) {
  let newest = null;
  for (const { version } of symbols) {
    if (!version.startsWith(prefix + '_')) continue;
    const v = version.slice(prefix.length + 1);
    if (newest === null || compareVersions(v, newest) > 0) newest = v;
  }
  return newest;
}

// { file, problems: [string], napi: [names], glibc, glibcxx }
function checkBinary(file) {
  const symbols = undefinedSymbols(file);
  const problems = [];
  for (const lib of neededLibraries(file)) {
    if (!ALLOWED_LIBRARIES.has(lib)) problems.push(`needs library ${lib}`);
  }
  for (const s of symbols) {
    if (s.weak || NODE_API.test(s.name)) continue;
    if (s.version && ALLOWED_VERSIONS.test(s.version)) continue;
    problems.push(`undefined symbol ${s.name}${s.version ? '@' + s.version : ''}`);
  }
  return {
    file,
    problems,
    napi: symbols
      .filter((s) => NODE_API.test(s.name))
      .map((s) => s.name)
      .sort(),
    glibc: newestVersion(symbols, 'GLIBC'),
    glibcxx: newestVersion(symbols, 'GLIBCXX'),
  };
}

function defaultBinaries() {
  const files = [];
  const built = path.join(root, 'build', 'Release', 'ssr_native.node');
  if (fs.existsSync(built)) files.push(built);
  const prebuilds = path.join(root, 'prebuilds');
  if (fs.existsSync(prebuilds)) {
    for (const platform of fs.readdirSync(prebuilds)) {
      const dir = path.join(prebuilds, platform);
      if (!fs.statSync(dir).isDirectory()) continue;
      for (const f of fs.readdirSync(dir)) if (f.endsWith('.node')) files.push(path.join(dir, f));
    }
  }
  return files;
}

function main() {
  const files = process.argv.length > 2 ? process.argv.slice(2) : defaultBinaries();
  if (files.length === 0) {
    console.error('check-symbols: no addon binary found (run `npm run build` first)');
    process.exit(1);
  }
  let failed = false;
  for (const file of files) {
    const r = checkBinary(file);
    const rel = path.relative(root, file) || file;
    if (r.problems.length) {
      failed = true;
      console.error(`check-symbols: ${rel}: FAIL\n  ${r.problems.join('\n  ')}`);
    } else {
      console.log(
        `check-symbols: ${rel}: ok (${r.napi.length} Node-API functions, glibc >= ${r.glibc}, libstdc++ GLIBCXX_${r.glibcxx})`,
      );
    }
  }
  process.exit(failed ? 1 : 0);
}

if (require.main === module) main();

module.exports = { checkBinary, defaultBinaries };
