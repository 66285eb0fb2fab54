'use strict';
// Range requests (RFC 9110 section 14). send and serveStatic (rangeOf, over range-parser): one
// satisfiable range -> 206, several or malformed ones -> the whole body, none satisfiable -> 416.
// @fastify/send (parseBytesRange) and @hono/node-server (nodeServerRange) have parsers of their
// own, kept as each cuts odd headers its own way.
const parseRange = require('range-parser');
const { isRangeFresh, isFresh } = require('./conditional');

const BYTES_RANGE_REGEXP = /^ *bytes=/;
/** rangeOf outcomes besides a { start, end } span (inclusive bounds) */
const WHOLE = 0;
const NODE_SERVER_RANGE = /^(?:bytes=)?(?!-$)(\d*)-(\d*)$/;
const UNSATISFIABLE = -1;

/**
 * What a `Range` header asks of a body of `length` bytes, given the response's validators
 * (If-Range is checked against them): WHOLE, UNSATISFIABLE or { start, end }.
 */
function rangeOf(headers, length, etag, lastModified) {
  const header = headers.range;
  if (header === undefined || !BYTES_RANGE_REGEXP.test(header)) return WHOLE;
  const ranges = parseRange(length, header, { combine: true });
  if (!isRangeFresh(headers['if-range'], etag, lastModified)) return WHOLE;
  if (ranges === -1) return UNSATISFIABLE;
  if (ranges === -2 || ranges.length !== 1) return WHOLE;
  return ranges[0];
}

/**
 * rangeOf for a response a conditional-GET layer in front may still turn into a 304 (Koa's
 * koa-conditional-get): a fresh request gets the WHOLE answer, not a 206.
 */
function rangeUnlessFresh(headers, length, etag, lastModified) {
  if (headers.range === undefined || isFresh(headers, etag, lastModified)) return WHOLE;
  return rangeOf(headers, length, etag, lastModified);
}

/**
 * @hono/node-server's serveStatic reading of a Range header over `size` bytes: one span (a
 * header it cannot parse reads as the whole body, `bytes=0-`), or undefined (416).
 */
function nodeServerRange(header, size) {
  return resolveRange(parseNodeServerRange(header) ?? { type: 'open-ended', start: 0 }, size);
}

function parseNodeServerRange(range) {
  const match = range.match(NODE_SERVER_RANGE);
  if (!match) return undefined;
  const [, start, end] = match;
  if (start === '') return { type: 'suffix', length: Number(end) };
  if (end === '') return { type: 'open-ended', start: Number(start) };
  return { type: 'bounded', start: Number(start), end: Number(end) };
}

function resolveRange(spec, size) {
  if (size === 0) return undefined;
  if (spec.type === 'suffix')
    return spec.length === 0 ? undefined : { start: Math.max(size - spec.length, 0), end: size - 1 };
  const end = spec.type === 'bounded' ? Math.min(spec.end, size - 1) : size - 1;
  if (spec.start >= size || spec.start > end) return undefined;
  return { start: spec.start, end };
}

/** Content-Range of a 206 */
function contentRange(span, length) {
  return 'bytes ' + span.start + '-' + span.end + '/' + length;
}

/** Content-Range of a 416 */
function unsatisfiedRange(length) {
  return 'bytes */' + length;
}

/**
 * The satisfiable ranges of `header` over `size` bytes, overlapping and adjacent ones merged
 * (in request order): [] when none is (416), one -> 206, several -> the whole body.
 */
function parseBytesRange(size, header) {
  const values = header.slice(header.indexOf('=') + 1);
  const len = values.length;
  const ranges = [];
  // The spans are cut at the next ',' and the next '-' as @fastify/send cuts them (a spec
  // without '-' borrows the next one's, or reads as a suffix), so odd headers answer the same.
  let prev = -1;
  let comma = values.indexOf(',');
  let dash = values.indexOf('-');
  for (;;) {
    if (comma === -1) comma = len;
    let start = parseInt(values.slice(prev + 1, dash), 10);
    let end = parseInt(values.slice(dash + 1, comma), 10);
    if (Number.isNaN(start)) {
      start = size - end; // -nnn: the last nnn bytes
      end = size - 1;
    } else if (Number.isNaN(end) || end > size - 1) {
      end = size - 1;
    }
    if (!Number.isNaN(start) && !Number.isNaN(end) && start > -1 && start <= end)
      ranges.push({ start, end, index: ranges.length });
    if (comma === len) break;
    prev = comma++;
    dash = values.indexOf('-', comma);
    comma = values.indexOf(',', comma);
  }
  if (ranges.length < 2) return ranges;
  ranges.sort((a, b) => a.start - b.start);
  const merged = [ranges[0]];
  for (let i = 1; i < ranges.length; i++) {
    const range = ranges[i];
    const current = merged[merged.length - 1];
    if (range.start > current.end + 1) merged.push(range);
    else if (range.end > current.end) {
      current.end = range.end;
      if (current.index > range.index) current.index = range.index;
    }
  }
  return merged.sort((a, b) => a.index - b.index);
}

module.exports = {
  BYTES_RANGE_REGEXP,
  rangeOf,
  rangeUnlessFresh,
  parseBytesRange,
  nodeServerRange,
  contentRange,
  unsatisfiedRange,
  WHOLE,
  UNSATISFIABLE,
};
