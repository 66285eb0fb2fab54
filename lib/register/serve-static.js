'use strict';
// What `require('serve-static')` (2.x, so Express 5's express.static) gets under
// ssr-native/register: ssr-native's serveStatic with every mount sharing one process-wide
// FileCache, so the memory budget is per process, not per mount.
//   SSR_NATIVE_STATIC_MAX_BYTES  total bytes of file bodies held (default 64 MiB)
//   SSR_NATIVE_STATIC_MAX_FILE_SIZE  larger files are streamed from disk (default 4 MiB)
const serveStatic = require('../express/serve-static');
const { FileCache } = require('../files/file-cache');

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_FILE_SIZE = 4 * 1024 * 1024;

function sizeFromEnv(name, fallback) {
  const value = Number(process.env[name]);
  return Number.isSafeInteger(value) && value >= 0 ? value : fallback;
}

let shared;

/** The process-wide cache of every mount (made on first use). */
function sharedCache() {
  if (shared === undefined) {
    shared = new FileCache({
      name: 'ssr-native/register',
      maxBytes: sizeFromEnv('SSR_NATIVE_STATIC_MAX_BYTES', DEFAULT_MAX_BYTES),
      maxFileSize: sizeFromEnv('SSR_NATIVE_STATIC_MAX_FILE_SIZE', DEFAULT_MAX_FILE_SIZE),
    });
  }
  return shared;
}

function registeredServeStatic(root, options) {
  // serveStatic reads options through a prototype link, so the user's object is not modified.
  const opts = Object.create(options || null);
  opts.cache = sharedCache();
  const middleware = serveStatic(root, opts);
  // serve-static's middleware has no close(); ours would close the cache every mount shares.
  delete middleware.close;
  return middleware;
}

registeredServeStatic.sharedCache = sharedCache;
module.exports = registeredServeStatic;
