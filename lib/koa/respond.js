'use strict';
// koa-send's answer step over the shared engine, once FileSender (send.js) has found the file:
// files/respond.js's decision (the in-memory compressed variant, Vary and setHeaders, then the
// 'koa-send' flavour: Content-Length, Last-Modified, Cache-Control and, beyond koa-send, the
// cache's ETag and ranges) copied onto the response, and Koa's ctx.type. A cached file's body is its Buffer;
// a file past maxFileSize streams from the descriptor that was fstat'ed.
const fs = require('fs');
const { basename, extname } = require('path');
const createError = require('http-errors');
const { etag: entityTag } = require('../etag');
const { fileRangeStream } = require('../files/file-stream');
const { streamStatus } = require('../files/engine');
const { errorOf, WHOLE } = require('../files/answer');
const { respond } = require('../files/respond');
const { sendAsset } = require('./asset-delta');

/**
 * FileSender's answering half. Reads the sender's `how` (files/respond.js: the engine,
 * prepareSend's step and the 'koa-send' flavour's options: cacheControl, etag, acceptRanges) and
 * `howAsKoaSend` (the same without ETag and ranges).
 */
class KoaFileResponse {
  // a file held in memory (identity, sibling or compressed variant). Returns undefined, or a
  // promise when `dictionary` answers a delta (asset-delta.js); `plain` skips that (the file
  // itself).
  sendRecord(ctx, record, plain = false) {
    if (this.assets !== null && !plain) {
      const pending = sendAsset(this, ctx, record);
      if (pending !== undefined) return pending;
    }
    const response = ctx.response;
    const a = respond('koa-send', ctx.req, ctx.res, record, this.how);
    copyAnswer(ctx, a);
    if (!response.type) setType(response, record);
    response.body = a.body;
    return undefined;
  }

  // Files over maxFileSize: read from the descriptor whose fstat gave the headers, exactly the
  // announced length; a file that shrinks meanwhile closes the connection (lib/files/file-stream.js).
  async sendStream(ctx, filePath, encodingExt) {
    const { fd, stats } = await this.engine.openStreamAsync(filePath).catch(streamError);
    let stream;
    try {
      // the stat-based tag koa-etag would have made from the stream's path
      const etag = entityTag(stats, { weak: true });
      const lastModified = stats.mtime.toUTCString();
      // no record: setHeaders gets the file's path and the descriptor's own stats
      const file = { path: filePath, stats, size: stats.size, etag, lastModified };
      const a = respond('koa-send', ctx.req, ctx.res, null, this.how, file);
      copyAnswer(ctx, a);
      if (!ctx.type) ctx.type = typeOf(filePath, encodingExt);
      const span = a.span === WHOLE ? { start: 0, end: stats.size - 1 } : a.span;
      // a short read (the file shrank) destroys ctx.res: Koa would leave the connection waiting
      stream = fileRangeStream(fd, { start: span.start, end: span.end, res: ctx.res });
    } catch (err) {
      fs.close(fd, () => {});
      throw err;
    }
    ctx.body = stream;
  }

  // koa-send's own streaming, kept for what the cache does not hold as a regular file (FIFOs,
  // devices, an index that is a directory...): koa-send's headers, its stream, its errors.
  // koa-send's order is respond()'s: setHeaders (no Vary: a file passed gets none), then
  // Content-Length always, Last-Modified and Cache-Control where absent. `howAsKoaSend` adds no
  // ETag and no ranges, as koa-send does not; the size and date are read from the stats once
  // setHeaders has run, as koa-send reads them.
  sendAsKoaSend(ctx, filePath, encodingExt, stats) {
    const file = {
      path: filePath,
      stats,
      get size() {
        return stats.size;
      },
      get lastModified() {
        return stats.mtime.toUTCString();
      },
    };
    copyAnswer(ctx, respond('koa-send', ctx.req, ctx.res, null, this.howAsKoaSend, file));
    if (!ctx.type) ctx.type = typeOf(filePath, encodingExt);
    ctx.body = fs.createReadStream(filePath);
  }
}

// An answer's headers and status onto Koa's response; a 416 is thrown as koa-send's errors are.
function copyAnswer(ctx, a) {
  const response = ctx.response;
  const headers = a.headers;
  for (const name in headers) response.set(name, headers[name]);
  if (a.status === 206) ctx.status = 206;
  else if (a.status === 416) throw errorOf(a);
}

// a failed open of a file that was found: koa-send's 404 if it vanished, else the fs error as a 500
function streamError(err) {
  if (streamStatus(err) === 404) throw createError(404, err);
  err.status = 500;
  throw err;
}

// `ctx.type = extension`, as koa-send does, once per file and app: the Content-Type it produced
// (Koa 3 looks the extension up in mime-types on every call) is kept on the record.
function setType(response, record) {
  const app = response.app;
  if (record.typeMemoOwner === app) {
    if (record.typeMemo) response.set('Content-Type', record.typeMemo);
    else response.remove('Content-Type');
    return;
  }
  response.type = record.type;
  record.typeMemo = response.get('Content-Type');
  record.typeMemoOwner = app;
}

function setContentEncoding(ctx, encoding) {
  ctx.set('Content-Encoding', encoding);
  ctx.res.removeHeader('Content-Length');
}

// koa-send's file type: the extension, under a .br/.gz suffix
function typeOf(file, encodingExt) {
  return encodingExt !== '' ? extname(basename(file, encodingExt)) : extname(file);
}

module.exports = { KoaFileResponse, setContentEncoding, typeOf };
