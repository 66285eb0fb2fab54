'use strict';
// The static answer step: once an adapter has resolved a URL to a file, what its peer answers
// with that file, as a value: answer(flavour, request, file, options, response) returns
//   { status, headers, span }
// `status`: 200 (the whole representation), 206, 304, or 412 / 416 (the adapter raises its
// framework's error). `headers`: what the response must carry, in the order the peer sets them;
// a name mapped to undefined is removed. `span`: WHOLE, NONE (no content: 304, 412, 416) or the
// { start, end } (inclusive) the headers describe. HEAD gets the same status and headers as GET
// unless the flavour says otherwise; the adapter writes no body for it.
//
// The peers differ on purpose in which headers they set, how they read conditional headers and
// Range, what a 304 drops and what HEAD changes, so each is a named flavour over the shared
// readings of http/conditional.js and http/range.js, side by side as compression/negotiate.js
// keeps its peers:
// - 'fastify-send': @fastify/send 4 (under @fastify/static).
//
// Nothing here touches a framework object; `response` (a node ServerResponse, read only) is
// read by the flavours whose peer looks at the headers already set.
const { isConditional, fastifySend } = require('../http/conditional');
const { parseBytesRange, contentRange, unsatisfiedRange, BYTES_RANGE_REGEXP } = require('../http/range');

/** span: the whole representation */
const WHOLE = 'whole';
/** span: no content (304, 412, 416) */
const NONE = 'none';

/**
 * @fastify/send 4. `options`: @fastify/send's options as fastify/static-options.js configOf
 * reads them (acceptRanges, cacheControl + cacheControlValue, lastModified, etag, contentType).
 * Every header is set (a reply's earlier ones are overwritten); If-Match / If-None-Match /
 * If-Range as conditional.js's fastifySend reads them; the range parser is parseBytesRange;
 * a 304 drops only the content headers it set itself.
 */
function fastifySendAnswer(request, file, config) {
  const requestHeaders = request.headers;
  const headers = {};
  if (config.acceptRanges) headers['Accept-Ranges'] = 'bytes';
  if (config.cacheControl) headers['Cache-Control'] = config.cacheControlValue;
  if (config.lastModified) headers['Last-Modified'] = file.lastModified;
  if (config.etag) headers.ETag = file.etag;
  if (config.contentType) headers['Content-Type'] = file.type;
  if (isConditional(requestHeaders)) {
    if (fastifySend.isPreconditionFailure(requestHeaders, headers.ETag, headers['Last-Modified']))
      return { status: 412, headers, span: NONE };
    if (fastifySend.isNotModified(requestHeaders, headers.ETag, headers['Last-Modified'])) {
      delete headers['Content-Type'];
      return { status: 304, headers, span: NONE };
    }
  }
  const size = file.size;
  let status = 200;
  let span = WHOLE;
  let length = size;
  const range = requestHeaders.range;
  if (
    config.acceptRanges &&
    range !== undefined &&
    BYTES_RANGE_REGEXP.test(range) &&
    fastifySend.isRangeFresh(requestHeaders, headers.ETag, headers['Last-Modified'])
  ) {
    const ranges = parseBytesRange(size, range);
    if (ranges.length === 0) {
      headers['Content-Range'] = unsatisfiedRange(size);
      return { status: 416, headers, span: NONE };
    }
    if (ranges.length === 1) {
      status = 206;
      span = { start: ranges[0].start, end: ranges[0].end };
      headers['Content-Range'] = contentRange(span, size);
      length = span.end - span.start + 1;
    }
  }
  headers['Content-Length'] = length;
  return { status, headers, span };
}

const FLAVOURS = {
  'fastify-send': fastifySendAnswer,
};

/**
 * The answer `flavour`'s peer gives `request` ({ method, headers }: node's IncomingMessage or
 * the same shape, header names in lower case) for `file` ({ size, etag, lastModified, type }:
 * the representation to send) under `options` (the flavour's), given `response` (what the
 * response already holds, for the flavours that read it).
 */
function answer(flavour, request, file, options, response) {
  const step = FLAVOURS[flavour];
  if (step === undefined) throw new TypeError(`unknown static answer flavour: ${flavour}`);
  return step(request, file, options, response);
}

module.exports = { answer, WHOLE, NONE, FLAVOURS: Object.keys(FLAVOURS) };
