'use strict';
// `node -r ssr-native/register server.js` or `node --import ssr-native/register server.mjs`:
// ssr-native's drop-ins replace what Express, body-parser, type-is, negotiator and Koa load,
// with no change to the app's code:
//   content-type  every content-type 1.x copy -> ssr-native/content-type, every 2.x copy ->
//                 ssr-native/content-type/v2 (cached parse/format);
//   etag          Express 4/5's own ETag (setting 'weak'/true or 'strong') -> the CRC-32 one;
//   static        serve-static 2.x (Express 5's express.static) -> ssr-native's serveStatic, all
//                 mounts sharing one FileCache (register/serve-static.js: the memory budget);
//   compression   compression 1.x -> ssr-native/compression (one content cache per process).
// SSR_NATIVE_REGISTER picks the parts (comma list of the names above; 'none'; default all;
// an unknown name throws a RangeError naming the valid ones).
// It prints nothing. `require('ssr-native/register').active` says what was swapped.
//
// How: a wrapper around Module._resolveFilename, the function CommonJS `require` uses to turn a
// request into a file name; only the exact requests 'content-type', 'etag', 'serve-static' and
// 'compression' are considered, decided by the package they resolve to (decide.js), and each
// answer is remembered.
// ESM `import` of those names by the app itself goes through module.register hooks, installed by
// the ESM entry (index.mjs) on Node >= 20.6. Limits: a bundle that inlined these packages never
// asks for them.
const Module = require('module');
const { PARTS, REPLACEMENTS, partsFromEnv, replacementFor } = require('./decide');

const REGISTERED = Symbol.for('ssr-native.register');

function install() {
  // Loaded twice (two copies of ssr-native, or a cleared require cache): the first install stands.
  if (Module[REGISTERED]) return Module[REGISTERED];
  const parts = partsFromEnv(process.env.SSR_NATIVE_REGISTER);
  const active = {};
  for (const part of PARTS) if (parts.has(part)) active[part] = new Set();
  const state = {
    /** part -> Set of the original files swapped so far (only the enabled parts are keys). */
    active,
    /** Our files, by what they replace. */
    replacements: { ...REPLACEMENTS },
    /** The content-type files replaced so far (both majors); same Set as active['content-type']. */
    redirected: active['content-type'] || new Set(),
    /** The 1.x replacement (kept from the first version of register). */
    replacement: REPLACEMENTS['content-type@1'],
    /** Whether the ESM hooks are installed (index.mjs on Node >= 20.6). */
    esmHooks: false,
  };
  Object.defineProperty(Module, REGISTERED, { value: state });
  if (parts.size === 0) return state;

  const originalResolve = Module._resolveFilename;
  // "request\0resolved\0parent package dir" is more than needed: the verdict depends on the
  // resolved file and, for etag, on the requirer's package; key on both files.
  const verdicts = new Map();
  Module._resolveFilename = function resolveFilename(request, parent, ...rest) {
    const resolved = originalResolve.call(this, request, parent, ...rest);
    if (request !== 'content-type' && request !== 'etag' && request !== 'serve-static' && request !== 'compression')
      return resolved;
    const parentFile = parent && typeof parent.filename === 'string' ? parent.filename : undefined;
    const key = request === 'etag' ? `${resolved}\0${parentFile}` : resolved;
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      verdict = replacementFor(request, resolved, parentFile, parts) || null;
      verdicts.set(key, verdict);
    }
    if (verdict === null) return resolved;
    active[verdict.part].add(resolved);
    return verdict.file;
  };
  return state;
}

module.exports = install();
