'use strict';
// Range requests (RFC 9110 section 14) as send and serveStatic answer them: one satisfiable
// range -> 206, several or malformed ones -> the whole body, none satisfiable -> 416.
const parseRange = require('range-parser');
const { isRangeFresh } = require('./conditional');

const BYTES_RANGE_REGEXP = /^ *bytes=/;
/** rangeOf outcomes besides a { start, end } span (inclusive bounds) */
const WHOLE = 0;
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

/** Content-Range of a 206 */
function contentRange(span, length) {
  return 'bytes ' + span.start + '-' + span.end + '/' + length;
}

/** Content-Range of a 416 */
function unsatisfiedRange(length) {
  return 'bytes */' + length;
}

module.exports = { rangeOf, contentRange, unsatisfiedRange, WHOLE, UNSATISFIABLE };
