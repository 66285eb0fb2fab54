'use strict';
// `node -r ssr-native/register server.js` (or require it before anything else): every
// `require('content-type')` in the process that would load a content-type 1.x copy loads
// ssr-native/content-type instead, so Express 4/5, body-parser, type-is and Koa use the cached
// parser without any change to their code.
//
// How: a wrapper around Module._resolveFilename, the function CommonJS `require` uses to turn a
// request into a file name. Only the exact request 'content-type' is considered, only when it
// resolves to a package named content-type whose major version is 1 (2.x/3.x have another API),
// and the answer per resolved file is remembered. Limits (see docs/content-type.md): ESM
// `import 'content-type'` does not go through this hook, and a bundle that inlined Express and
// content-type never calls require for it.
const fs = require('fs');
const Module = require('module');
const path = require('path');

const REGISTERED = Symbol.for('ssr-native.register');
const replacement = require.resolve('./content-type/index.js');

function isContentTypeV1(resolved) {
  try {
    let dir = path.dirname(resolved);
    // index.js sits at the package root; walk up a little in case of a nested main.
    for (let i = 0; i < 3; i++) {
      const manifest = path.join(dir, 'package.json');
      if (fs.existsSync(manifest)) {
        const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8'));
        return pkg.name === 'content-type' && /^1\./.test(String(pkg.version));
      }
      dir = path.dirname(dir);
    }
  } catch {
    // unreadable or unparsable manifest: leave the original in place
  }
  return false;
}

function install() {
  if (Module[REGISTERED]) return Module[REGISTERED];
  const originalResolve = Module._resolveFilename;
  const verdicts = new Map(); // resolved file -> replace it?
  const state = { redirected: new Set(), replacement };

  Module._resolveFilename = function resolveFilename(request, ...rest) {
    const resolved = originalResolve.call(this, request, ...rest);
    if (request !== 'content-type') return resolved;
    let replace = verdicts.get(resolved);
    if (replace === undefined) {
      replace = isContentTypeV1(resolved);
      verdicts.set(resolved, replace);
    }
    if (!replace) return resolved;
    state.redirected.add(resolved);
    return replacement;
  };
  Object.defineProperty(Module, REGISTERED, { value: state });
  return state;
}

/** { redirected: Set of the content-type files replaced so far, replacement: our file } */
module.exports = install();
