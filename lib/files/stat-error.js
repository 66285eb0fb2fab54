'use strict';
// The error fs.stat would have produced for a failed FileCache load: what send (serveStatic) and
// koa-send see and pass on, message and fields included.
const UV_MESSAGES = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  ENAMETOOLONG: 'name too long',
  EACCES: 'permission denied',
  ELOOP: 'too many symbolic links encountered',
};

function statError(result, filePath) {
  if (result.code === 'ERR_FILE_CACHE_CLOSED') {
    // not a file-system answer: the cache was closed under the request (file-cache.js close())
    const err = new Error(result.message);
    err.code = result.code;
    err.path = filePath;
    return err;
  }
  if (result.status === 'outsideRoot') {
    // a symlink leaving the root of a cache made with allowOutsideRoot: false reads as missing
    result = { code: 'ENOENT', errno: -2 };
  }
  const message = UV_MESSAGES[result.code] || String(result.message || '').toLowerCase();
  const err = new Error(`${result.code}: ${message}, stat '${filePath}'`);
  err.errno = result.errno;
  err.code = result.code;
  err.syscall = 'stat';
  err.path = filePath;
  return err;
}

// The status send 1.2, koa-send 5 and @fastify/send 4 give a failed stat: 404 for a file that
// is not there, 500 for anything else.
const NOT_FOUND_CODES = new Set(['ENOENT', 'ENAMETOOLONG', 'ENOTDIR']);

/** The status for a failed stat (or a FileCache load standing for one). */
function statStatus(code) {
  return NOT_FOUND_CODES.has(code) ? 404 : 500;
}

/** send's status for a failed open of a file it had found: 404 if it vanished, else 500. */
function streamStatus(err) {
  return err.code === 'EISDIR' ? 404 : statStatus(err.code);
}

module.exports = { statError, statStatus, streamStatus };
