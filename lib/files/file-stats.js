'use strict';
// fs.Stats-shaped view of the stat the native FileCache returns ({ size, mode, mtimeMs, ... }),
// for the setHeaders(res, path, stats) callbacks of serveStatic and Koa's serve()/send().
// Built once per cached file version, on demand.
const { constants } = require('fs');

const { S_IFMT, S_IFREG, S_IFDIR, S_IFIFO, S_IFSOCK, S_IFBLK, S_IFCHR } = constants;

// fs.Stats turns its fractional-millisecond times into Dates differently per runtime: Node rounds
// (new Date(Math.round(ms))), Bun truncates (new Date(ms)). Follow the runtime we run on, or a file
// modified at x.9995 s gets a Last-Modified one second off serve-static's and koa-send's.
const dateOf = process.versions.bun ? (ms) => new Date(ms) : (ms) => new Date(Math.round(ms));

class FileStats {
  constructor(stat) {
    Object.assign(this, stat);
    // the native stat has no birth time; ctime is the closest the kernel reports everywhere
    this.birthtimeMs = stat.ctimeMs;
  }
  get atime() {
    return dateOf(this.atimeMs);
  }
  get mtime() {
    return dateOf(this.mtimeMs);
  }
  get ctime() {
    return dateOf(this.ctimeMs);
  }
  get birthtime() {
    return dateOf(this.birthtimeMs);
  }
  isFile() {
    return (this.mode & S_IFMT) === S_IFREG;
  }
  isDirectory() {
    return (this.mode & S_IFMT) === S_IFDIR;
  }
  isSymbolicLink() {
    return false;
  } // stat follows links
  isFIFO() {
    return (this.mode & S_IFMT) === S_IFIFO;
  }
  isSocket() {
    return (this.mode & S_IFMT) === S_IFSOCK;
  }
  isBlockDevice() {
    return (this.mode & S_IFMT) === S_IFBLK;
  }
  isCharacterDevice() {
    return (this.mode & S_IFMT) === S_IFCHR;
  }
}

module.exports = { FileStats };

/** Last-Modified of a native stat, as this runtime's `fs.Stats#mtime.toUTCString()` gives it. */
function lastModifiedOf(stat) {
  return dateOf(stat.mtimeMs).toUTCString();
}

module.exports.lastModifiedOf = lastModifiedOf;
