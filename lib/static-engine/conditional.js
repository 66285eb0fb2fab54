'use strict';
// Conditional requests (RFC 9110 section 13) as send 1.2 decides them, over plain values: the
// request's headers and the validators the response carries. No framework object is touched, so
// every adapter (node's res, Koa, Fastify, Hono) asks the same questions of the same strings.
const fresh = require('fresh');

/** If-Match / If-Unmodified-Since fail (412), given the response's ETag and Last-Modified. */
function isPreconditionFailure(headers, etag, lastModified) {
  const match = headers['if-match'];
  if (match) {
    return (
      !etag ||
      (match !== '*' && parseTokenList(match).every((m) => m !== etag && m !== 'W/' + etag && 'W/' + m !== etag))
    );
  }
  const unmodifiedSince = parseHttpDate(headers['if-unmodified-since']);
  if (!isNaN(unmodifiedSince)) {
    const modified = parseHttpDate(lastModified);
    return isNaN(modified) || modified > unmodifiedSince;
  }
  return false;
}

/** The request carries any of the four conditional headers. */
function isConditional(headers) {
  return Boolean(
    headers['if-match'] || headers['if-unmodified-since'] || headers['if-none-match'] || headers['if-modified-since'],
  );
}

/** If-None-Match / If-Modified-Since hold: the client's copy is current (a 304 is due). */
function isFresh(headers, etag, lastModified) {
  return fresh(headers, { etag, 'last-modified': lastModified });
}

/** If-Range allows the range: no If-Range, or it names this ETag or a date not before Last-Modified. */
function isRangeFresh(ifRange, etag, lastModified) {
  if (!ifRange) return true;
  if (ifRange.indexOf('"') !== -1) return Boolean(etag && ifRange.indexOf(etag) !== -1);
  return parseHttpDate(lastModified) <= parseHttpDate(ifRange);
}

function parseHttpDate(date) {
  const timestamp = date && Date.parse(date);
  return typeof timestamp === 'number' ? timestamp : NaN;
}

function parseTokenList(str) {
  let end = 0;
  let start = 0;
  const list = [];
  for (let i = 0, len = str.length; i < len; i++) {
    switch (str.charCodeAt(i)) {
      case 0x20:
        if (start === end) start = end = i + 1;
        break;
      case 0x2c:
        if (start !== end) list.push(str.substring(start, end));
        start = end = i + 1;
        break;
      default:
        end = i + 1;
        break;
    }
  }
  if (start !== end) list.push(str.substring(start, end));
  return list;
}

module.exports = { isConditional, isPreconditionFailure, isFresh, isRangeFresh, parseHttpDate };
