'use strict';
// Loads the one addon binary (built by `npm install` into build/Release).
const path = require('path');

function load() {
  const root = path.join(__dirname, '..');
  const candidates = ['build/Release/ssr_native.node', 'build/Debug/ssr_native.node'];
  let firstError;
  for (const candidate of candidates) {
    try {
      return require(path.join(root, candidate));
    } catch (err) {
      if (err && err.code !== 'MODULE_NOT_FOUND') throw err;
      firstError = firstError || err;
    }
  }
  const err = new Error(
    'ssr-native: the native addon is not built. Run `npm rebuild ssr-native` (needs a C++17 compiler, make and python3).',
  );
  err.code = 'ERR_SSR_NATIVE_NOT_BUILT';
  err.cause = firstError;
  throw err;
}

module.exports = load();
