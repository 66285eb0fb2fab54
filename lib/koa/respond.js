'use strict';
// koa-send's answer step over the shared engine (lib/files/engine.js), once FileSender (send.js) has
// found the file: its headers (setHeaders, Content-Length, Last-Modified, Cache-Control, ctx.type)
// and, beyond koa-send, the cache's ETag, the in-memory compressed variant and ranges. A cached
// file's body is its Buffer; a file past maxFileSize streams from the descriptor that was fstat'ed.
const fs = require('fs');
const { basename, extname } = require('path');
const createError = require('http-errors');
const { etag: entityTag } = require('../etag');
const { fileRangeStream } = require('../files/file-stream');
const { statsOf, streamStatus } = require('../files/engine');
const { varyAppend } = require('../http/vary');
const { sendAsset } = require('./asset-delta');
const { rangeUnlessFresh, contentRange, unsatisfiedRange, WHOLE, UNSATISFIABLE } = require('../http/range');

/**
 * FileSender's answering half. Reads the sender's engine, setHeaders, cacheControl, setEtag
 * (ETag wanted) and acceptRanges.
 */
class KoaFileResponse {
  // koa-send's header step for a file held in memory (identity, sibling or compressed variant).
  // Returns undefined, or a promise when `dictionary` answers a delta (asset-delta.js); `plain`
  // skips that (the file itself).
  sendRecord(ctx, record, plain = false) {
    if (this.assets !== null && !plain) {
      const pending = sendAsset(this, ctx, record);
      if (pending !== undefined) return pending;
    }
    const response = ctx.response;
    let body = record.body;
    let tag = record.etag;
    let variant;
    if (record.compressible) {
      variant = this.engine.variant(record, ctx.headers['accept-encoding']);
      if (variant !== undefined) {
        body = variant.body;
        tag = variant.etag;
      }
    }
    if (record.vary) {
      const vary = varyAppend(response.get('Vary'));
      if (vary !== undefined) response.set('Vary', vary);
    }
    const setHeaders = this.setHeaders;
    if (setHeaders) setHeaders(ctx.res, record.path, statsOf(record));
    response.set('Content-Length', String(body.length));
    if (!response.get('Last-Modified')) response.set('Last-Modified', record.lastModified);
    if (!response.get('Cache-Control')) response.set('Cache-Control', this.cacheControl);
    if (!response.type) setType(response, record);
    if (variant !== undefined) response.set('Content-Encoding', variant.encoding);
    if (this.setEtag && !response.get('ETag')) response.set('ETag', tag);
    if (this.acceptRanges) {
      const span = this.rangeOf(ctx, body.length);
      if (span !== undefined) body = body.subarray(span.start, span.end + 1);
    }
    response.body = body;
    return undefined;
  }

  // Files over maxFileSize: read from the descriptor whose fstat gave the headers, exactly the
  // announced length; a file that shrinks meanwhile closes the connection (lib/files/file-stream.js).
  async sendStream(ctx, filePath, encodingExt) {
    const { fd, stats } = await this.engine.openStreamAsync(filePath).catch(streamError);
    let stream;
    try {
      this.setDiskHeaders(ctx, filePath, encodingExt, stats);
      // the stat-based tag koa-etag would have made from the stream's path
      if (this.setEtag && !ctx.response.get('ETag')) ctx.set('ETag', entityTag(stats, { weak: true }));
      let span = { start: 0, end: stats.size - 1 };
      if (this.acceptRanges) {
        const range = this.rangeOf(ctx, stats.size);
        if (range !== undefined) {
          span = range;
          ctx.set('Content-Length', String(span.end - span.start + 1));
        }
      }
      // a short read (the file shrank) destroys ctx.res: Koa would leave the connection waiting
      stream = fileRangeStream(fd, { start: span.start, end: span.end, res: ctx.res });
    } catch (err) {
      fs.close(fd, () => {});
      throw err;
    }
    ctx.body = stream;
  }

  // koa-send's own streaming, kept for what the cache does not hold as a regular file (FIFOs,
  // an index that is a directory...): same headers, same stream, same errors.
  sendAsKoaSend(ctx, filePath, encodingExt, stats) {
    this.setDiskHeaders(ctx, filePath, encodingExt, stats);
    ctx.body = fs.createReadStream(filePath);
  }

  // koa-send's header step for a file read from disk (stats: its fs.Stats)
  setDiskHeaders(ctx, filePath, encodingExt, stats) {
    if (this.setHeaders) this.setHeaders(ctx.res, filePath, stats);
    ctx.set('Content-Length', String(stats.size));
    if (!ctx.response.get('Last-Modified')) ctx.set('Last-Modified', stats.mtime.toUTCString());
    if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', this.cacheControl);
    if (!ctx.type) ctx.type = typeOf(filePath, encodingExt);
  }

  // Range (acceptRanges: true), as serveStatic: one range -> 206, several or malformed -> the
  // whole body, unsatisfiable -> 416 unless the client's copy is fresh. Returns { start, end }.
  rangeOf(ctx, length) {
    if (!ctx.response.get('Accept-Ranges')) ctx.set('Accept-Ranges', 'bytes');
    // a fresh conditional request is koa-conditional-get's 304, not a 206
    const span = rangeUnlessFresh(ctx.headers, length, ctx.response.get('ETag'), ctx.response.get('Last-Modified'));
    if (span === UNSATISFIABLE) throw createError(416, { headers: { 'Content-Range': unsatisfiedRange(length) } });
    if (span === WHOLE) return undefined;
    ctx.status = 206;
    ctx.set('Content-Range', contentRange(span, length));
    return { start: span.start, end: span.end };
  }
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
