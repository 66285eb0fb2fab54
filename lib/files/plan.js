'use strict';
// @fastify/send 4's response step over plain values, shared by every adapter that answers as
// @fastify/static does: the headers it sets from its options, its conditional rules (conditional.js,
// fastifySend), its range parser (range.js) and the status, with no framework object touched.
// send 1.2's counterpart is StaticEngine.respond(), which writes through a response port.
const createError = require('http-errors');
const { isConditional, fastifySend } = require('../http/conditional');
const { parseBytesRange, contentRange, unsatisfiedRange, BYTES_RANGE_REGEXP } = require('../http/range');

/**
 * @fastify/send's headers and decision for a file of `length` bytes with validators
 * `lastModified` and `etag`: { status, headers, span } with span undefined (whole), null (no
 * body: 304 or HEAD) or { start, end }; or { error } for a 412 or 416.
 */
function plan(headers, method, config, type, length, lastModified, etag) {
  const out = {};
  if (config.acceptRanges) out['Accept-Ranges'] = 'bytes';
  if (config.cacheControl) out['Cache-Control'] = config.cacheControlValue;
  if (config.lastModified) out['Last-Modified'] = lastModified;
  if (config.etag) out.ETag = etag;
  if (config.contentType) out['Content-Type'] = type;
  if (isConditional(headers)) {
    if (fastifySend.isPreconditionFailure(headers, out.ETag, out['Last-Modified'])) return { error: createError(412) };
    if (fastifySend.isNotModified(headers, out.ETag, out['Last-Modified'])) {
      delete out['Content-Encoding'];
      delete out['Content-Language'];
      delete out['Content-Length'];
      delete out['Content-Range'];
      delete out['Content-Type'];
      return { status: 304, headers: out, span: null };
    }
  }
  let status = 200;
  let span;
  let len = length;
  const range = headers.range;
  if (
    config.acceptRanges &&
    range !== undefined &&
    BYTES_RANGE_REGEXP.test(range) &&
    fastifySend.isRangeFresh(headers, out.ETag, out['Last-Modified'])
  ) {
    const ranges = parseBytesRange(length, range);
    if (ranges.length === 0) {
      out['Content-Range'] = unsatisfiedRange(length);
      return { error: createError(416, { headers: { 'Content-Range': out['Content-Range'] } }) };
    }
    if (ranges.length === 1) {
      status = 206;
      span = { start: ranges[0].start, end: ranges[0].end };
      out['Content-Range'] = contentRange(span, length);
      len = span.end - span.start + 1;
    }
  }
  out['Content-Length'] = len;
  // HEAD: no body to send, but the range it describes (for payload-length checks)
  if (method === 'HEAD') return { status, headers: out, span: null, range: span };
  return { status, headers: out, span };
}

module.exports = { plan };
