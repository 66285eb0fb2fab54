'use strict';
// Where @fastify/send 4 (under @fastify/static 10) decides differently from pillarjs/send, as
// small named steps over plain values (the request's headers, the response's validators):
// `Cache-Control: no-cache` makes a request stale, If-None-Match `*` matches, an If-Range date
// that does not parse refuses the range, If-Unmodified-Since is checked even after If-Match, and
// its own bytes-range parser (an empty list is 416, malformed ranges included).
const mime = require('mime-types');

/** A token list (`a, b`) has a token for which `match(token)` is true. */
function someToken(str, match) {
  let end = 0;
  let start = 0;
  for (let i = 0, len = str.length; i < len; i++) {
    switch (str.charCodeAt(i)) {
      case 0x20:
        if (start === end) start = end = i + 1;
        break;
      case 0x2c:
        if (start !== end && match(str.slice(start, end))) return true;
        start = end = i + 1;
        break;
      default:
        end = i + 1;
        break;
    }
  }
  return start !== end && match(str.slice(start, end));
}

function isPreconditionFailure(headers, etag, lastModified) {
  const ifMatch = headers['if-match'];
  if (ifMatch && ifMatch !== '*' && !someToken(ifMatch, (m) => m === etag || 'W/' + m === etag)) return true;
  if ('if-unmodified-since' in headers) {
    const unmodifiedSince = Date.parse(headers['if-unmodified-since']);
    if (!Number.isNaN(unmodifiedSince)) {
      const modified = Date.parse(lastModified);
      if (Number.isNaN(modified) || modified > unmodifiedSince) return true;
    }
  }
  return false;
}

/** The client's copy is current: a 304 is due. */
function isNotModified(headers, etag, lastModified) {
  const cacheControl = headers['cache-control'];
  if (cacheControl !== undefined && cacheControl.indexOf('no-cache') !== -1) return false;
  if ('if-none-match' in headers) {
    const ifNoneMatch = headers['if-none-match'];
    if (ifNoneMatch === '*') return true;
    if (typeof etag !== 'string') return false;
    return someToken(
      ifNoneMatch,
      (m) => (etag.length === m.length && m === etag) || (etag.length > m.length && 'W/' + m === etag),
    );
  }
  if ('if-modified-since' in headers) {
    return Boolean(lastModified) && Date.parse(lastModified) <= Date.parse(headers['if-modified-since']);
  }
  return false;
}

function isRangeFresh(headers, etag, lastModified) {
  if (!('if-range' in headers)) return true;
  const ifRange = headers['if-range'];
  if (ifRange.indexOf('"') !== -1) return Boolean(etag && ifRange.indexOf(etag) !== -1);
  const when = Date.parse(ifRange);
  if (Number.isNaN(when)) return false;
  const modified = Date.parse(lastModified);
  return Number.isNaN(modified) || modified <= when;
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

/** @fastify/send's Content-Type: the type, with `; charset=utf-8` for text, JavaScript and JSON. */
function contentTypeOf(filePath) {
  const type = mime.lookup(filePath) || 'application/octet-stream';
  return isUtf8MimeType(type) ? type + '; charset=utf-8' : type;
}

function isUtf8MimeType(type) {
  return (
    (type.length > 21 && type.startsWith('application/javascript')) ||
    (type.length > 14 && type.startsWith('application/json')) ||
    (type.length > 5 && type.startsWith('text/'))
  );
}

module.exports = { isPreconditionFailure, isNotModified, isRangeFresh, parseBytesRange, contentTypeOf };
