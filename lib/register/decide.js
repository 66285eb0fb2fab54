'use strict';
// Which file a module request should load instead, under ssr-native/register. Shared by the
// CommonJS hook (index.js, Module._resolveFilename) and the ESM hooks (esm-hooks.mjs), so both
// decide the same way: by the package the requirer would have loaded (its package.json name and
// major version), never by guessing from the API.
//   content-type 1.x           -> ../content-type/index.js
//   content-type 2.x           -> ../content-type/v2.js
//   etag 1.x, required by express 4.x/5.x -> ./etag.js (Express's default ETag becomes CRC-32)
//   serve-static 2.x           -> ./serve-static.js (ssr-native's serveStatic, one shared cache)
//   compression 1.x            -> ../express/compression.js (one shared content cache)
const fs = require('fs');
const path = require('path');

const PARTS = ['content-type', 'etag', 'static', 'compression'];
const REPLACEMENTS = {
  'content-type@1': path.join(__dirname, '..', 'content-type', 'index.js'),
  'content-type@2': path.join(__dirname, '..', 'content-type', 'v2.js'),
  etag: path.join(__dirname, 'etag.js'),
  static: path.join(__dirname, 'serve-static.js'),
  compression: path.join(__dirname, '..', 'express', 'compression.js'),
};

// SSR_NATIVE_REGISTER: unset or empty -> every part; 'none' -> nothing; else a comma list of
// parts. An unknown name throws (a RangeError naming the valid ones) rather than being skipped:
// register prints nothing, so a typo such as 'statc' would otherwise silently swap less than
// asked, and the process is still starting (-r / --import), where stopping is the clear answer.
function partsFromEnv(value) {
  if (value === undefined || value.trim() === '') return new Set(PARTS);
  const names = value.split(',').map((name) => name.trim().toLowerCase());
  const unknown = names.filter((name) => name !== 'none' && !PARTS.includes(name));
  if (unknown.length > 0) {
    const err = new RangeError(
      `SSR_NATIVE_REGISTER names ${unknown.length === 1 ? 'an unknown part' : 'unknown parts'} ` +
        `${unknown.map((name) => JSON.stringify(name)).join(', ')}: use a comma list of ` +
        `${PARTS.join(', ')}, or none (received ${JSON.stringify(value)})`,
    );
    err.code = 'ERR_SSR_NATIVE_REGISTER';
    throw err;
  }
  if (names.includes('none')) return new Set();
  return new Set(PARTS.filter((part) => names.includes(part)));
}

// package directory -> { name, major } (or null), remembered: a hook runs on every require.
const manifests = new Map();

/** The name and major version of the package a file belongs to (nearest package.json). */
function packageOf(file) {
  let dir = path.dirname(file);
  // A package's files sit at most a few folders below its package.json (dist/, lib/).
  for (let i = 0; i < 4; i++) {
    let known = manifests.get(dir);
    if (known === undefined) {
      known = readManifest(path.join(dir, 'package.json'));
      manifests.set(dir, known);
    }
    if (known !== null) return known;
    if (path.basename(dir) === 'node_modules') break;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

function readManifest(manifest) {
  try {
    const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8'));
    if (typeof pkg.name !== 'string') return null;
    return { name: pkg.name, major: Number(/^(\d+)\./.exec(String(pkg.version))?.[1]) };
  } catch {
    return null; // none here, or unreadable: look further up / leave the original in place
  }
}

// The etag and static parts run on the addon; where it is not built (or cannot load), they are
// left alone rather than break the app at its first require (content-type needs no addon).
let nativeLoads;
function nativeAvailable() {
  if (nativeLoads === undefined) {
    try {
      require('../native');
      nativeLoads = true;
    } catch {
      nativeLoads = false;
    }
  }
  return nativeLoads;
}

/**
 * The replacement for `request` (as written in the require/import), which resolved to
 * `resolved`, asked for by the module in `parentFile`; or undefined to keep the original.
 * Returns { part, file }.
 */
function replacementFor(request, resolved, parentFile, parts) {
  if (request === 'content-type') {
    if (!parts.has('content-type')) return undefined;
    const pkg = packageOf(resolved);
    if (pkg === null || pkg.name !== 'content-type') return undefined;
    if (pkg.major === 1) return { part: 'content-type', file: REPLACEMENTS['content-type@1'] };
    if (pkg.major === 2) return { part: 'content-type', file: REPLACEMENTS['content-type@2'] };
    return undefined;
  }
  if (request === 'etag') {
    if (!parts.has('etag') || typeof parentFile !== 'string') return undefined;
    const requirer = packageOf(parentFile);
    if (requirer === null || requirer.name !== 'express' || (requirer.major !== 4 && requirer.major !== 5))
      return undefined;
    const pkg = packageOf(resolved);
    if (pkg === null || pkg.name !== 'etag' || pkg.major !== 1 || !nativeAvailable()) return undefined;
    return { part: 'etag', file: REPLACEMENTS.etag };
  }
  if (request === 'serve-static') {
    if (!parts.has('static')) return undefined;
    const pkg = packageOf(resolved);
    // 1.x (Express 4's express.static) sits on send 0.x, whose headers differ from ours
    // (charset=UTF-8, other precondition handling): left alone.
    if (pkg === null || pkg.name !== 'serve-static' || pkg.major !== 2 || !nativeAvailable()) return undefined;
    return { part: 'static', file: REPLACEMENTS.static };
  }
  if (request === 'compression') {
    if (!parts.has('compression')) return undefined;
    const pkg = packageOf(resolved);
    if (pkg === null || pkg.name !== 'compression' || pkg.major !== 1 || !nativeAvailable()) return undefined;
    return { part: 'compression', file: REPLACEMENTS.compression };
  }
  return undefined;
}

module.exports = { PARTS, REPLACEMENTS, partsFromEnv, packageOf, replacementFor };
