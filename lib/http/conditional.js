'use strict';
// Conditional requests (RFC 9110 section 13) over plain values: the request's headers and the
// validators the response carries. No framework object is touched, so every adapter (node's res,
// Koa, Fastify, Hono) asks the same questions of the same strings.
//
// Two peers' readings are drop-in targets and they differ on purpose, so both live here on one
// token scanner and one date parser: send 1.2 (serve-static, and the pack's Koa options) and
// @fastify/send 4 (under @fastify/static), which also makes `Cache-Control: no-cache` stale, lets
// If-None-Match `*` match, refuses a range under an If-Range date that does not parse, and checks
// If-Unmodified-Since even after If-Match. The ETag middlewares' If-None-Match tests are here too:
// @fastify/etag 6 compares the whole header with the tag, hono/etag 4.13 looks for the tag among
// the header's quoted strings. (Express's res.send and koa-conditional-get ask `fresh`, as send's
// isFresh below does.)
//
// ssr-native's own 304 decision is isNotModified, asked by the held response's etag stage,
// Angular's writeResponse and the response cache's hit. Steps 1 and 2 are every caller's:
//   1. only for GET or HEAD;
//   2. only for a 2xx answer (the route's, or a stored one's); a route's own 304 passes as it is;
// then one of three readings, as the peer each caller stands in for reads the validators:
// - 'express' (the held response and writeResponse stand in for Express 5's res.send, which asks
//   `fresh` 2): no 304 without a validator or under a request's `Cache-Control: no-cache`; a
//   non-empty If-None-Match decides alone (`*`, or a listed tag by weak comparison), else
//   If-Modified-Since against a Last-Modified;
// - 'koa' (Koa's response cache on a miss stands in for koa-conditional-get, whose ctx.fresh asks
//   `fresh` 0.5.2): as 'express', but an If-Modified-Since sent with a listed If-None-Match must
//   hold as well;
// - 'shared-cache' (the response cache, as nginx answers from storage; RFC 9110 13.1.2, 13.1.3,
//   13.2.2, 15.4.5): If-None-Match present (even empty) decides alone: `*`, or a listed tag equal
//   by weak comparison; else If-Modified-Since, a date that parses, not earlier than a
//   Last-Modified that parses. A request's no-cache does not change it (the cache does not
//   revalidate with the origin, and the client revalidates its own copy).
const fresh = require('fresh');

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
        if (start !== end && match(str.substring(start, end))) return true;
        start = end = i + 1;
        break;
      default:
        end = i + 1;
        break;
    }
  }
  return start !== end && match(str.substring(start, end));
}

function parseHttpDate(date) {
  const timestamp = date && Date.parse(date);
  return typeof timestamp === 'number' ? timestamp : NaN;
}

/**
 * An If-Range value allows the range: it names this ETag, or is a date not before Last-Modified.
 * `undatedHolds`: the answer when the response has no Last-Modified that parses.
 */
function ifRangeHolds(ifRange, etag, lastModified, undatedHolds) {
  if (ifRange.indexOf('"') !== -1) return Boolean(etag && ifRange.indexOf(etag) !== -1);
  const when = parseHttpDate(ifRange);
  if (isNaN(when)) return false;
  const modified = parseHttpDate(lastModified);
  if (isNaN(modified)) return undatedHolds;
  return modified <= when;
}

// --- send 1.2 ---

/** If-Match / If-Unmodified-Since fail (412), given the response's ETag and Last-Modified. */
function isPreconditionFailure(headers, etag, lastModified) {
  const match = headers['if-match'];
  if (match) {
    return !etag || (match !== '*' && !someToken(match, (m) => m === etag || m === 'W/' + etag || 'W/' + m === etag));
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
  return ifRangeHolds(ifRange, etag, lastModified, false);
}

// --- @fastify/send 4 ---

const fastifySend = {
  /** If-Match fails, or If-Unmodified-Since does (checked even when If-Match passed). */
  isPreconditionFailure(headers, etag, lastModified) {
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
  },

  /** The client's copy is current: a 304 is due. */
  isNotModified(headers, etag, lastModified) {
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
  },

  /** An If-Range header, even an empty one, must hold; a response without a date passes a date. */
  isRangeFresh(headers, etag, lastModified) {
    if (!('if-range' in headers)) return true;
    return ifRangeHolds(headers['if-range'], etag, lastModified, true);
  },
};

// --- RFC 9110 (the response cache: lib/http/cache-rules.js) ---

/**
 * RFC 9110 13.1.2's weak comparison for If-None-Match: `*`, or a listed entity tag whose opaque
 * part equals the response's (either side may be weak). Lists are read as send reads them.
 */
function weakEtagMatches(ifNoneMatch, etag) {
  if (ifNoneMatch.trim() === '*') return true;
  const bare = etag.startsWith('W/') ? etag.slice(2) : etag;
  return someToken(ifNoneMatch, (tag) => tag === bare || tag === 'W/' + bare);
}

/** A header value as one string (node:http2 may give a list as an array). */
function headerText(value) {
  return Array.isArray(value) ? value.join(', ') : String(value);
}

/**
 * The one 304 decision (the rule in the file-top comment): the request (`method`, its headers)
 * holds a current copy of the answer with `status`, `etag` and `lastModified` (either may be
 * undefined), read as `reading` ('express' or 'shared-cache') reads validators.
 */
function isNotModified(method, status, requestHeaders, etag, lastModified, reading) {
  if ((method !== 'GET' && method !== 'HEAD') || !(status >= 200 && status <= 299)) return false;
  if (reading === 'express') return fresh(requestHeaders, { etag, 'last-modified': lastModified });
  if (reading === 'koa') return koaFresh(requestHeaders, { etag, 'last-modified': lastModified });
  const inm = requestHeaders['if-none-match'];
  if (inm !== undefined)
    return typeof etag === 'string' ? weakEtagMatches(headerText(inm), etag) : headerText(inm).trim() === '*';
  const ims = requestHeaders['if-modified-since'];
  if (ims === undefined || lastModified === undefined) return false;
  const since = Date.parse(headerText(ims));
  const modified = Date.parse(lastModified);
  return !Number.isNaN(since) && !Number.isNaN(modified) && modified <= since;
}

// fresh 0.5.2 on fresh 2: fresh 2 lets a non-empty If-None-Match decide alone; 0.5.2 asks a
// sent If-Modified-Since too (after a tag list matched, or beside `*`).
function koaFresh(requestHeaders, validators) {
  if (!fresh(requestHeaders, validators)) return false;
  const ims = requestHeaders['if-modified-since'];
  return !ims || !requestHeaders['if-none-match'] || fresh({ 'if-modified-since': ims }, validators);
}

// --- the ETag middlewares ---

/** @fastify/etag 6: the whole If-None-Match equals the tag, either side possibly weak. */
function fastifyEtagMatches(ifNoneMatch, etag) {
  return (
    ifNoneMatch !== undefined && (ifNoneMatch === etag || 'W/' + ifNoneMatch === etag || ifNoneMatch === 'W/' + etag)
  );
}

/** hono/etag 4.13: `*`, or a quoted string of If-None-Match equals the tag without its W/. */
function honoEtagMatches(ifNoneMatch, tag) {
  if (ifNoneMatch === '*') return true;
  const expected = tag.replace(/^W\//, '');
  return ifNoneMatch?.match(/"[^"]*"/g)?.some((t) => t === expected) ?? false;
}

module.exports = {
  isConditional,
  isPreconditionFailure,
  isFresh,
  isRangeFresh,
  fastifySend,
  weakEtagMatches,
  isNotModified,
  fastifyEtagMatches,
  honoEtagMatches,
};
