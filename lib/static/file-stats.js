'use strict';
// fs.Stats-shaped view of the stat the native FileCache returns ({ size, mode, mtimeMs, ... }),
// for the setHeaders(res, path, stats) callbacks of serveStatic and Koa's serve()/send().
// Built once per cached file version, on demand.
const { constants } = require('fs');

const { S_IFMT, S_IFREG, S_IFDIR, S_IFIFO, S_IFSOCK, S_IFBLK, S_IFCHR } = constants;

class FileStats {
  constructor(stat) {
    Object.assign(this, stat);
    // the native stat has no birth time; ctime is the closest the kernel reports everywhere
    this.birthtimeMs = stat.ctimeMs;
  }
  // Node rounds the fractional milliseconds (fs.Stats: new Date(Math.round(ms))); so do we, or
  // a file modified at x.9995 s would show a Last-Modified one second off serve-static's and koa-send's.
  get atime() { return new Date(Math.round(this.atimeMs)); }
  get mtime() { return new Date(Math.round(this.mtimeMs)); }
  get ctime() { return new Date(Math.round(this.ctimeMs)); }
  get birthtime() { return new Date(Math.round(this.birthtimeMs)); }
  isFile() { return (this.mode & S_IFMT) === S_IFREG; }
  isDirectory() { return (this.mode & S_IFMT) === S_IFDIR; }
  isSymbolicLink() { return false; } // stat follows links
  isFIFO() { return (this.mode & S_IFMT) === S_IFIFO; }
  isSocket() { return (this.mode & S_IFMT) === S_IFSOCK; }
  isBlockDevice() { return (this.mode & S_IFMT) === S_IFBLK; }
  isCharacterDevice() { return (this.mode & S_IFMT) === S_IFCHR; }
}

module.exports = { FileStats };

/** Last-Modified of a native stat, as `fs.Stats#mtime.toUTCString()` gives it (rounded ms). */
function lastModifiedOf(stat) {
  return new Date(Math.round(stat.mtimeMs)).toUTCString();
}

module.exports.lastModifiedOf = lastModifiedOf;
