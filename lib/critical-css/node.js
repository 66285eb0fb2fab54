'use strict';
// criticalCss(options): the connect-style middleware (node:http, Express 4/5) that inlines
// critical CSS into every text/html answer the routes after it send, whatever way they send it:
// res.send / res.end(body) (Express, ssr-native's writeResponse, serveStatic, a response cache
// replaying), or flushHeaders() then res.write()s then res.end() (Angular's
// writeResponseToNodeResponse). It holds the head and the body of an HTML answer, runs the page
// through the engine when the body ends, and sends the result in one res.end() with its
// Content-Length, so a compression middleware mounted in front of it sees one whole body.
//
// Left exactly as they are: answers that are not text/html, carry a Content-Encoding, are
// 1xx/204/206/304, or grow past maxBuffer (what was held goes out, then the rest streams
// through). A page whose bytes changed gets an ETag of the bytes sent (when it had one: same
// strength, our CRC-32), and a 304 when the request's If-None-Match names it.
// HEAD: a route that writes the body anyway (writeResponse, serveStatic) is processed like GET;
// one that sends no body (Express's res.send) gets the ETag and Content-Length that a GET of the
// same page was given lately (CriticalCss#headFor: remembered by the route's own tag), and the
// head as the route made it otherwise.
const fresh = require('fresh');
const { etag } = require('../etag');
const { beforeOwnMethods } = require('../response-shape');
const { isHtml } = require('../http/html');

const IDLE = 0; // nothing sent yet: the head is still being decided
const HOLD = 1; // an HTML answer: head and body held
const PASS = 2; // everything goes straight through
const DONE = 3; // the body ended: processing, then sending

function createMiddleware(criticalCss) {
  function criticalCssMiddleware(req, res, next) {
    hold(criticalCss, req, res);
    next();
  }
  criticalCssMiddleware.criticalCss = criticalCss;
  criticalCssMiddleware.stats = () => criticalCss.stats();
  criticalCssMiddleware.close = () => criticalCss.close();
  return criticalCssMiddleware;
}

const TOO_LARGE = 'tooLarge';

/** Whether the answer about to start on `res` is one to inline (its head as set now): true,
 *  false, or TOO_LARGE for an HTML page whose Content-Length is over maxBuffer. */
function isHtmlToInline(res, maxBuffer) {
  const status = res.statusCode;
  if (status < 200 || status === 204 || status === 206 || status === 304) return false;
  const type = res.getHeader('Content-Type');
  if (!isHtml(type)) return false;
  const coding = res.getHeader('Content-Encoding');
  if (coding !== undefined && String(coding).trim().toLowerCase() !== 'identity') return false;
  const length = res.getHeader('Content-Length');
  return length === undefined || !(Number(length) > maxBuffer) ? true : TOO_LARGE;
}

function hold(criticalCss, req, res) {
  beforeOwnMethods(res);
  const _writeHead = res.writeHead;
  const _write = res.write;
  const _end = res.end;
  const _flushHeaders = res.flushHeaders;
  let state = IDLE;
  let headArgs = null; // an explicit writeHead's status (and reason), sent when the body is
  let chunks = [];
  let size = 0;

  function decide() {
    const verdict = isHtmlToInline(res, criticalCss.maxBuffer);
    if (verdict === true) {
      state = HOLD;
    } else {
      state = PASS;
      criticalCss.counts[verdict === TOO_LARGE ? 'tooLarge' : 'passedThrough']++;
    }
  }

  res.writeHead = function writeHead() {
    if (state === PASS || state === DONE) return _writeHead.apply(this, arguments);
    const args = applyHeadArguments(this, arguments);
    if (state === IDLE) decide();
    if (state === PASS) return _writeHead.apply(this, args);
    headArgs = args;
    return this;
  };

  res.flushHeaders = function flushHeaders() {
    if (state === IDLE) decide();
    if (state === PASS || state === DONE) return _flushHeaders.call(this);
    return undefined; // held: the head goes with the body
  };

  res.write = function write(chunk, encoding, callback) {
    if (state === IDLE) decide();
    if (state !== HOLD) return _write.apply(this, arguments);
    if (typeof encoding === 'function') {
      callback = encoding;
      encoding = undefined;
    }
    if (chunk !== undefined && chunk !== null) keep(chunk, encoding);
    if (size > criticalCss.maxBuffer) {
      release();
      if (callback) process.nextTick(callback);
      return true;
    }
    if (callback) process.nextTick(callback);
    return true;
  };

  res.end = function end(chunk, encoding, callback) {
    if (state === IDLE) decide();
    if (state !== HOLD) return _end.apply(this, arguments);
    if (typeof chunk === 'function') {
      callback = chunk;
      chunk = undefined;
    } else if (typeof encoding === 'function') {
      callback = encoding;
      encoding = undefined;
    }
    if (chunk !== undefined && chunk !== null) keep(chunk, encoding);
    if (size > criticalCss.maxBuffer) {
      release();
      return _end.call(this, callback);
    }
    state = DONE;
    if (size === 0) {
      if (req.method === 'HEAD') headOnly();
      if (headArgs !== null) _writeHead.apply(this, headArgs);
      return _end.call(this, callback);
    }
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
    chunks = null;
    const stored = res.getHeader('Last-Modified') !== undefined || isStrongTag(res.getHeader('ETag'));
    const inlined = criticalCss.processBody(body, stored);
    if (inlined instanceof Promise) {
      inlined.then(
        (out) => send(body, out, callback),
        () => send(body, body, callback),
      );
    } else {
      send(body, inlined, callback);
    }
    return this;
  };

  function keep(chunk, encoding) {
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : typeof chunk === 'string'
        ? Buffer.from(chunk, encoding)
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    chunks.push(bytes);
    size += bytes.length;
  }

  // Too large to hold: what was held goes out as it came, and the rest streams through.
  function release() {
    state = PASS;
    criticalCss.counts.tooLarge++;
    if (headArgs !== null) _writeHead.apply(res, headArgs);
    for (const bytes of chunks) _write.call(res, bytes);
    chunks = null;
  }

  // A HEAD answered without a body: the head a GET of the same page got, when known.
  function headOnly() {
    const tag = res.getHeader('ETag');
    const known = typeof tag === 'string' ? criticalCss.headFor(tag) : undefined;
    if (known === undefined) return;
    res.setHeader('ETag', known.tag);
    if (res.getHeader('Content-Length') !== undefined) res.setHeader('Content-Length', known.length);
    if (isFresh(req, res, known.tag)) {
      res.removeHeader('Content-Type');
      res.removeHeader('Content-Length');
      res.removeHeader('Transfer-Encoding');
      res.statusCode = 304;
      if (headArgs !== null) headArgs = [304];
    }
  }

  function send(body, out, callback) {
    if (res.destroyed || res.writableEnded) return;
    if (out !== body && !out.equals(body)) {
      if (res.getHeader('Content-Length') !== undefined) res.setHeader('Content-Length', out.length);
      const tag = res.getHeader('ETag');
      if (tag !== undefined) {
        const retag = etag(out, { weak: !isStrongTag(tag) });
        if (typeof tag === 'string') criticalCss.rememberHead(tag, retag, out.length);
        res.setHeader('ETag', retag);
        if (isFresh(req, res, retag)) {
          // what Express's res.send does for a fresh request
          res.removeHeader('Content-Type');
          res.removeHeader('Content-Length');
          res.removeHeader('Transfer-Encoding');
          res.statusCode = 304;
          if (headArgs !== null) _writeHead.call(res, 304);
          _end.call(res, callback);
          return;
        }
      }
    } else {
      out = body;
    }
    if (headArgs !== null) _writeHead.apply(res, headArgs);
    _end.call(res, out, callback);
  }
}

function isStrongTag(tag) {
  return typeof tag === 'string' && tag.length > 0 && !tag.startsWith('W/');
}

function isFresh(req, res, tag) {
  const status = res.statusCode;
  if ((req.method !== 'GET' && req.method !== 'HEAD') || status < 200 || status >= 300) return false;
  const lastModified = res.getHeader('Last-Modified');
  return fresh(req.headers, { etag: tag, 'last-modified': lastModified === undefined ? undefined : lastModified });
}

// writeHead(status[, reason][, headers]): the headers are set on the response (so the decision
// sees them, as a later real writeHead would send them); returns the status (and reason) left.
function applyHeadArguments(res, args) {
  const headerIndex = args.length > 1 && typeof args[1] === 'string' ? 2 : 1;
  const headers = args.length > headerIndex ? args[headerIndex] : undefined;
  if (typeof args[0] === 'number') res.statusCode = args[0];
  if (Array.isArray(headers)) {
    if (headers.length && Array.isArray(headers[0])) {
      for (const pair of headers) if (pair[0]) res.setHeader(pair[0], pair[1]);
    } else {
      if (headers.length % 2 !== 0) throw new TypeError('headers array is malformed');
      for (let i = 0; i < headers.length; i += 2) res.removeHeader(headers[i]);
      for (let i = 0; i < headers.length; i += 2) {
        const prev = res.getHeader(headers[i]);
        const value = headers[i + 1];
        res.setHeader(headers[i], prev === undefined ? value : [].concat(prev, value));
      }
    }
  } else if (headers) {
    for (const name of Object.keys(headers)) if (name) res.setHeader(name, headers[name]);
  }
  return Array.prototype.slice.call(args, 0, Math.min(args.length, headerIndex));
}

module.exports = { createMiddleware, isHtmlToInline, isStrongTag };
