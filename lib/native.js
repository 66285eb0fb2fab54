'use strict';
// Loads the addon binary: a local build when there is one (compiled by the install script, or
// by a developer), else the prebuilt binary shipped in the package for this platform.
//
// A build comes first because it only exists when it is wanted: the install script compiles
// only when no prebuild matches or loads here, and a developer who rebuilt after editing C++
// must not get a stale prebuild. Each candidate that exists but fails to load (another libc,
// an older glibc) is skipped, and the error names every attempt and says how to compile: npm 12+,
// pnpm 10+ and Bun skip a dependency's install script until the project approves it, so where no
// prebuild loads the package arrives unbuilt.
//
// SSR_NATIVE_ADDON=<path to a .node file> loads that binary and nothing else (a sanitized build
// made by scripts/sanitize.js): a run meant to test a particular binary must never fall back to
// another one silently, so a path that does not load is an error.
const path = require('path');

const root = path.join(__dirname, '..');

function candidates() {
  return [
    path.join(root, 'build', 'Release', 'ssr_native.node'),
    path.join(root, 'build', 'Debug', 'ssr_native.node'),
    // The file prebuildify writes for --napi (scripts/prebuild.js writes the same): one
    // Node-API binary per platform-arch that every Node version and Bun loads.
    path.join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'node.napi.node'),
  ];
}

function load() {
  const override = process.env.SSR_NATIVE_ADDON;
  if (override) {
    const file = path.resolve(override);
    try {
      return require(file);
    } catch (cause) {
      const err = new Error(`ssr-native: SSR_NATIVE_ADDON=${override} does not load: ${cause && cause.message}`);
      err.code = 'ERR_SSR_NATIVE_NOT_BUILT';
      throw err;
    }
  }
  const failures = [];
  for (const candidate of candidates()) {
    try {
      return require(candidate);
    } catch (err) {
      if (err && err.code !== 'MODULE_NOT_FOUND') failures.push(`${path.relative(root, candidate)}: ${err.message}`);
    }
  }
  const err = new Error(
    `ssr-native: no native addon loads on ${process.platform}-${process.arch}` +
      (failures.length ? ` (${failures.join('; ')})` : '') +
      '. Compile it here (needs a C++17 compiler, make and python3). Package managers now run a' +
      " dependency's install script only once the project approves it: with npm 12 and later," +
      ' `npm install-scripts approve ssr-native`, then `npm rebuild ssr-native` (earlier npm: the' +
      ' rebuild alone); with pnpm, `pnpm approve-builds ssr-native`; with Bun,' +
      ' `bun pm trust ssr-native` (both of these also build it).',
  );
  err.code = 'ERR_SSR_NATIVE_NOT_BUILT';
  throw err;
}

module.exports = load();
