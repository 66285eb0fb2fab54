'use strict';
// The static answer step: once an adapter has resolved a URL to a file, what its peer answers
// with that file, as a value: answer(flavour, request, file, options, response) returns
//   { status, headers, span }
// `status`: 200 (the whole representation), 206, 304, or 412 / 416 (the adapter raises its
// framework's error). `headers`: what the response must carry, in the order the peer sets them;
// a name mapped to undefined is removed. `span`: WHOLE, NONE (no content: 304, 412, 416) or the
// { start, end } (inclusive) the headers describe. HEAD gets the same status and headers as GET
// unless the flavour says otherwise; the adapter writes no body for it. 200 means the whole
// representation: an adapter whose peer keeps an earlier status (send, @fastify/static) keeps it.
//
// The peers differ on purpose in which headers they set, how they read conditional headers and
// Range, what a 304 drops and what HEAD changes, so each is a named flavour over the shared
// readings of http/conditional.js and http/range.js, side by side as compression/negotiate.js
// keeps its peers:
// - 'send': send 1.2 (under serve-static 2 and express.static): sets a header only where the
//   response has none, reads its validators and status off the response, strips the content
//   headers from a 304, cuts ranges with range-parser.
// - 'fastify-send': @fastify/send 4 (under @fastify/static): sets every header it knows, reads
//   the conditional headers its own way (conditional.js fastifySend), its own range parser, a
//   304 drops only the Content-Type it set.
// - 'koa-send': koa-send 5 (under koa-static) and what ssr-native adds to it (the ETag, ranges):
//   no conditional step (koa-conditional-get in front makes the 304), so a fresh request is
//   answered whole rather than with a 206.
// - 'node-server': @hono/node-server 2.1's serveStatic: no conditional step, its own Range
//   reading (any non-empty header), HEAD answered whole without reading Range.
//
// Nothing here touches a framework object; `response` (a node ServerResponse, read only) is
// read by the flavours whose peer looks at the headers already set.
const createError = require('http-errors');
const { invalidValue } = require('../validate');
const { isConditional, isPreconditionFailure, isFresh, fastifySend } = require('../http/conditional');
const {
  rangeOf,
  rangeUnlessFresh,
  nodeServerRange,
  parseBytesRange,
  contentRange,
  unsatisfiedRange,
  BYTES_RANGE_REGEXP,
  WHOLE: WHOLE_RANGE,
  UNSATISFIABLE,
} = require('../http/range');

/** span: the whole representation */
const WHOLE = 'whole';
/** span: no content (304, 412, 416) */
const NONE = 'none';

// the headers a 304 must not carry (send's removeContentHeaderFields)
const CONTENT_HEADERS = ['Content-Encoding', 'Content-Language', 'Content-Length', 'Content-Range', 'Content-Type'];

/**
 * send 1.2 (SendStream.setHeader, then the rest of SendStream.send). `options`: send's options as
 * files/send-config.js reads them. `response`: the response so far (node's ServerResponse,
 * read only: getHeader, statusCode): a header it already has is left alone and, for ETag and
 * Last-Modified, is the validator the conditional and If-Range tests read; only a 2xx (or 304)
 * turns into a 304, which removes every content header, whoever set it. A file with an
 * `encoding` (ours: an in-memory compressed variant, a dcz delta) gets its Content-Encoding.
 */
function sendAnswer(request, file, config, response) {
  const requestHeaders = request.headers;
  const headers = {};
  if (config.acceptRanges && !response.getHeader('Accept-Ranges')) headers['Accept-Ranges'] = 'bytes';
  if (config.cacheControl && !response.getHeader('Cache-Control')) headers['Cache-Control'] = config.cacheControlValue;
  let lastModified = response.getHeader('Last-Modified');
  if (config.lastModified && !lastModified) headers['Last-Modified'] = lastModified = file.lastModified;
  let etag = response.getHeader('ETag');
  if (config.etag && !etag) headers.ETag = etag = file.etag;
  if (!response.getHeader('Content-Type')) headers['Content-Type'] = file.type;
  if (file.encoding !== undefined) headers['Content-Encoding'] = file.encoding;
  if (isConditional(requestHeaders)) {
    if (isPreconditionFailure(requestHeaders, etag, lastModified)) return { status: 412, headers, span: NONE };
    const status = response.statusCode;
    if (((status >= 200 && status < 300) || status === 304) && isFresh(requestHeaders, etag, lastModified)) {
      for (let i = 0; i < CONTENT_HEADERS.length; i++) headers[CONTENT_HEADERS[i]] = undefined;
      return { status: 304, headers, span: NONE };
    }
  }
  const size = file.size;
  let status = 200;
  let span = WHOLE;
  let length = size;
  if (config.acceptRanges && requestHeaders.range !== undefined) {
    const range = rangeOf(requestHeaders, size, etag, lastModified);
    if (range === UNSATISFIABLE) {
      headers['Content-Range'] = unsatisfiedRange(size);
      return { status: 416, headers, span: NONE };
    }
    if (range !== WHOLE_RANGE) {
      status = 206;
      headers['Content-Range'] = contentRange(range, size);
      length = range.end - range.start + 1;
      span = range;
    }
  }
  headers['Content-Length'] = length;
  return { status, headers, span };
}

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

/**
 * koa-send 5. `options`: { cacheControl (the header's value), etag (set the file's ETag),
 * acceptRanges }. `response`: ctx.res, read as koa-send reads ctx.response: Last-Modified,
 * Cache-Control, ETag and Accept-Ranges only where absent; Content-Length always. The
 * Content-Type is Koa's (ctx.type = the extension), so the adapter sets it.
 */
function koaSendAnswer(request, file, options, response) {
  const size = file.size;
  const headers = { 'Content-Length': String(size) };
  let lastModified = response.getHeader('Last-Modified');
  if (!lastModified) headers['Last-Modified'] = lastModified = file.lastModified;
  if (!response.getHeader('Cache-Control')) headers['Cache-Control'] = options.cacheControl;
  if (file.encoding !== undefined) headers['Content-Encoding'] = file.encoding;
  let etag = response.getHeader('ETag');
  if (options.etag && !etag) headers.ETag = etag = file.etag;
  if (!options.acceptRanges) return { status: 200, headers, span: WHOLE };
  if (!response.getHeader('Accept-Ranges')) headers['Accept-Ranges'] = 'bytes';
  // a fresh conditional request is koa-conditional-get's 304, not a 206
  const range = rangeUnlessFresh(request.headers, size, etag, lastModified);
  if (range === UNSATISFIABLE) {
    headers['Content-Range'] = unsatisfiedRange(size);
    return { status: 416, headers, span: NONE };
  }
  if (range === WHOLE_RANGE) return { status: 200, headers, span: WHOLE };
  headers['Content-Range'] = contentRange(range, size);
  headers['Content-Length'] = String(range.end - range.start + 1);
  return { status: 206, headers, span: range };
}

/**
 * @hono/node-server 2.1's serveStatic. No options, no response read: Content-Type, the
 * Content-Encoding of a precompressed sibling and Last-Modified are always set (the adapter
 * appends its Vary); HEAD and a request without a Range (or with an empty one) get the whole
 * length and 200; a Range gets Accept-Ranges and node-server's reading (http/range.js
 * nodeServerRange: a header it cannot parse reads as the whole body, as a 206).
 */
function nodeServerAnswer(request, file) {
  const headers = { 'Content-Type': file.type };
  if (file.encoding !== undefined) headers['Content-Encoding'] = file.encoding;
  headers['Last-Modified'] = file.lastModified;
  const size = file.size;
  const range = request.headers.range;
  if (request.method === 'HEAD' || !range) {
    headers['Content-Length'] = String(size);
    return { status: 200, headers, span: WHOLE };
  }
  headers['Accept-Ranges'] = 'bytes';
  const span = nodeServerRange(range, size);
  if (span === undefined) {
    headers['Content-Range'] = unsatisfiedRange(size);
    return { status: 416, headers, span: NONE };
  }
  headers['Content-Length'] = String(span.end - span.start + 1);
  headers['Content-Range'] = contentRange(span, size);
  return { status: 206, headers, span };
}

// no prototype: a flavour name is a key here, never an inherited 'constructor'
const FLAVOURS = {
  __proto__: null,
  send: sendAnswer,
  'fastify-send': fastifySendAnswer,
  'koa-send': koaSendAnswer,
  'node-server': nodeServerAnswer,
};

/**
 * The answer `flavour`'s peer gives `request` ({ method, headers }: node's IncomingMessage or
 * the same shape, header names in lower case) for `file` ({ size, etag, lastModified, type }:
 * the representation to send) under `options` (the flavour's), given `response` (what the
 * response already holds, for the flavours that read it).
 */
function answer(flavour, request, file, options, response) {
  const step = FLAVOURS[flavour];
  if (step === undefined) throw invalidValue('flavour', `one of ${Object.keys(FLAVOURS).join(', ')}`, flavour);
  return step(request, file, options, response);
}

/** The error a 412 or 416 answer is raised as (http-errors; a 416 carries its Content-Range), as the peers raise it. */
function errorOf(answered) {
  if (answered.status === 412) return createError(412);
  return createError(416, { headers: { 'Content-Range': answered.headers['Content-Range'] } });
}

module.exports = { answer, errorOf, WHOLE, NONE, FLAVOURS: Object.keys(FLAVOURS) };
