'use strict';
// Streams a file from disk with exactly the length its headers announced, however the file changes
// meanwhile. The descriptor is opened first and the headers are built from ITS fstat, so a file
// replaced by rename keeps being sent whole (the old inode stays readable). A file that grows is
// sent up to the announced length; one that shrinks (truncated in place) cannot make the length
// good, so the response is destroyed at once: the client sees a clean connection error instead of
// waiting on a keep-alive connection for bytes that will never come, and no later response on
// that connection is read as the rest of this body.
//
//   openFileForStream(path, callback(err, fd, stats))   open (non-blocking for FIFOs) + fstat
//   fileRangeStream(fd, { start, end, res })             Readable of bytes start..end (inclusive),
//                                                        errors with code 'ERR_FILE_SHRANK' if the
//                                                        file ends first (and then destroys `res`
//                                                        if given); closes fd when done
//   sendFileStream(fd, stats, { start, end }, res, cb?) pipes that range into `res`; destroys `res`
//                                                        on a short or failed read; cb(err) once
//
// serveStatic (lib/express/serve-static.js) uses it for files over maxFileSize. For Koa, set
// ctx.body = fileRangeStream(fd, { start, end, res: ctx.res }): Koa only reports a body stream's
// error once headers are sent and would leave the connection waiting; `res` is destroyed instead.
const fs = require('fs');
const { Readable } = require('stream');
const onFinished = require('on-finished');
const { outOfRange } = require('../validate');

const CHUNK = 64 * 1024;
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK || 0) | (fs.constants.O_CLOEXEC || 0);

/** open + fstat: the stats describe the very file the descriptor reads. */
function openFileForStream(filePath, callback) {
  fs.open(filePath, OPEN_FLAGS, (err, fd) => {
    if (err) return callback(err);
    fs.fstat(fd, (statErr, stats) => {
      if (statErr) {
        fs.close(fd, () => callback(statErr));
        return;
      }
      callback(null, fd, stats);
    });
  });
}

function shrankError(expected, sent) {
  const err = new Error(`file ended after ${sent} of ${expected} bytes: it shrank while being sent`);
  err.code = 'ERR_FILE_SHRANK';
  return err;
}

/** Exactly the bytes start..end (inclusive) of `fd`, read by position; never more, never fewer. */
class FileRangeStream extends Readable {
  constructor(fd, { start = 0, end, res, highWaterMark = CHUNK } = {}) {
    super({ highWaterMark });
    if (!Number.isSafeInteger(start) || start < 0) throw outOfRange('start', 'an integer >= 0', start);
    if (end === undefined || end === Infinity) throw outOfRange('end', 'a finite integer', end);
    if (!Number.isSafeInteger(end) || end < start - 1) throw outOfRange('end', 'an integer >= start - 1', end);
    this.fd = fd;
    this.position = start;
    this.expected = end - start + 1;
    this.remaining = this.expected;
    this.reading = false;
    this.closeWhenRead = null; // _destroy waits for a read in flight before closing fd
    this.res = res;
  }

  _read(size) {
    if (this.remaining === 0) {
      this.push(null);
      return;
    }
    const want = Math.min(Math.max(size, CHUNK), this.remaining);
    const buffer = Buffer.allocUnsafeSlow(want);
    this.reading = true;
    fs.read(this.fd, buffer, 0, want, this.position, (err, bytesRead) => {
      this.reading = false;
      if (this.closeWhenRead) return this.closeWhenRead();
      if (err) return this.destroy(err);
      if (bytesRead === 0) return this.destroy(shrankError(this.expected, this.expected - this.remaining));
      this.position += bytesRead;
      this.remaining -= bytesRead;
      this.push(bytesRead === want ? buffer : buffer.subarray(0, bytesRead));
      if (this.remaining === 0) this.push(null);
    });
  }

  _destroy(err, callback) {
    // A body cut short: the response it was announced on can only be ended by closing it.
    if (err && this.res && !this.res.destroyed) this.res.destroy();
    const close = () => {
      if (this.fd === null) return callback(err);
      const fd = this.fd;
      this.fd = null;
      fs.close(fd, () => callback(err));
    };
    if (this.reading) this.closeWhenRead = close;
    else close();
  }
}

function fileRangeStream(fd, range) {
  return new FileRangeStream(fd, range);
}

/**
 * Sends bytes start..end of `fd` as the body of `res` (headers already set, Content-Length =
 * end - start + 1) and closes `fd`. A short or failed read destroys `res`. `callback(err)` is
 * called once, when the body was sent (err null) or the response ended otherwise.
 */
function sendFileStream(fd, stats, { start = 0, end = stats.size - 1 } = {}, res, callback) {
  let stream;
  try {
    stream = new FileRangeStream(fd, { start, end });
  } catch (err) {
    fs.close(fd, () => {});
    throw err;
  }
  let done = false;
  const finish = (err) => {
    if (done) return;
    done = true;
    if (callback) callback(err || null);
  };
  stream.on('error', (err) => {
    // Headers (and maybe part of the body) are out: nothing but closing the connection keeps
    // its framing honest.
    res.destroy();
    finish(err);
  });
  // The client went away (or the response ended): stop reading, close the descriptor.
  onFinished(res, (err) => {
    stream.destroy();
    finish(err);
  });
  stream.pipe(res);
  return stream;
}

module.exports = { openFileForStream, fileRangeStream, sendFileStream, FileRangeStream };
