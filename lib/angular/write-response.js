'use strict';
// writeResponse(response, req, res): the replacement for @angular/ssr/node's
// writeResponseToNodeResponse(response, res) in AngularNodeAppEngine servers.
//
// Angular's function copies status and headers, flushes them, then streams the body: it never
// goes through res.send, so server-rendered pages get no ETag and never a 304, whatever Express's
// etag setting says. Here an HTML response is read whole first (AppEngine's server-rendered body
// is a stream that delivers the finished page in one chunk, so nothing is delayed), given the
// native CRC-32 weak ETag unless it has one, and answered 304 when the request's If-None-Match
// matches on GET/HEAD (the one 304 decision, http/conditional.js). The body then goes out with a Content-Length
// instead of chunked. Anything else (not text/html, no body, or an HTML body past maxBuffer)
// is written exactly as writeResponseToNodeResponse writes it, as of @angular/ssr 22: when the
// client goes away (also while waiting for 'drain') the body is cancelled and the call settles,
// where 19-21's version waits for a 'drain' that never comes and keeps the response, the body and
// its reader alive for good; and a finished or destroyed response is left alone.
const { etag } = require('../etag');
const { invalidType, outOfRange } = require('../validate');
const { isHtml } = require('../http/html');
const { HeldResponse, toNotModified } = require('../http/held-response');
const { isNotModified } = require('../http/conditional');
const { ownOptions } = require('../options');

const DEFAULT_MAX_BUFFER = 8 * 1024 * 1024;
const WRITE_RESPONSE_OPTIONS = ['maxBuffer'];

async function writeResponse(response, req, res, options) {
  if (
    response === null ||
    typeof response !== 'object' ||
    typeof response.status !== 'number' ||
    response.headers === null ||
    typeof response.headers !== 'object'
  ) {
    throw invalidType('response', 'a Response', response);
  }
  if (req === null || typeof req !== 'object' || req.headers === null || typeof req.headers !== 'object') {
    throw invalidType('req', 'an IncomingMessage', req);
  }
  if (res === null || typeof res !== 'object' || typeof res.setHeader !== 'function') {
    throw invalidType('res', 'a ServerResponse', res);
  }
  let maxBuffer = DEFAULT_MAX_BUFFER;
  if (options !== undefined) {
    if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
    ownOptions(options, WRITE_RESPONSE_OPTIONS, 'writeResponse(response, req, res, options)');
    if (options.maxBuffer !== undefined) {
      maxBuffer = options.maxBuffer;
      if (typeof maxBuffer !== 'number' || Number.isNaN(maxBuffer))
        throw invalidType('options.maxBuffer', 'a number', maxBuffer);
      if (maxBuffer < 0) throw outOfRange('options.maxBuffer', '>= 0', maxBuffer);
    }
  }

  if (isFinished(res)) return;
  const { status, headers, body } = response;
  res.statusCode = status;
  copyHeaders(headers, res);
  if (!body || !isHtml(headers.get('content-type'))) {
    if (!body) {
      if ('flushHeaders' in res) res.flushHeaders();
      res.end();
      return;
    }
    const reader = body.getReader();
    return stream(res, reader, watchClient(res, reader), []);
  }

  const reader = body.getReader();
  const watch = watchClient(res, reader);
  const chunks = [];
  let size = 0;
  let strings = true;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      if (typeof value === 'string') size += value.length;
      else if (ArrayBuffer.isView(value)) {
        strings = false;
        size += value.byteLength;
      } else {
        return stream(res, reader, watch, chunks); // res.write decides, as in Angular's function
      }
      if (size > maxBuffer) return stream(res, reader, watch, chunks);
    }
  } catch {
    // what writeResponseToNodeResponse sends when the body fails: what came before, then this
    watch.stop();
    if (isFinished(res)) return;
    for (const chunk of chunks) res.write(chunk);
    res.end('Internal server error.');
    return;
  }
  watch.stop();
  if (isFinished(res)) return; // the client went away meanwhile

  // Encoded once, here: Buffer.from is far quicker than the UTF-8 conversion a native call does
  // on a string, and the same bytes are then hashed and sent.
  const entity = strings
    ? Buffer.from(chunks.length === 1 ? chunks[0] : chunks.join(''), 'utf8')
    : Buffer.concat(chunks.map(toBuffer));
  // node's HTTP/1.1 would add it by itself; its HTTP/2 compatibility API does not
  if (!res.hasHeader('Content-Length')) res.setHeader('Content-Length', entity.length);
  const held = HeldResponse.on(res);
  // a held response (critical CSS, the response cache, compression mounted): the tag is of the
  // body as finally sent, its CRC-32 taken once, and its 304 decided once, there
  if (held !== undefined && held.askTag()) {
    res.end(entity);
    return;
  }
  let tag = headers.get('etag');
  if (!tag) {
    tag = etag(entity);
    res.setHeader('ETag', tag);
  }
  if (isNotModified(req.method, status, req.headers, tag, headers.get('last-modified') ?? undefined, 'express')) {
    toNotModified(res);
    res.end();
    return;
  }
  res.end(entity);
}

// Status aside, the header copy of writeResponseToNodeResponse: every Set-Cookie kept apart.
function copyHeaders(headers, res) {
  let cookieHeaderSet = false;
  for (const [name, value] of headers.entries()) {
    if (name === 'set-cookie') {
      if (cookieHeaderSet) continue;
      res.setHeader(name, headers.getSetCookie());
      cookieHeaderSet = true;
    } else {
      res.setHeader(name, value);
    }
  }
}

// Whether nothing more can be written: the response ended, or the client went away (for an
// HTTP/2 compatibility response, its stream).
function isFinished(res) {
  if (res.destroyed || res.closed || res.writableEnded) return true;
  return 'stream' in res && (!res.stream || res.stream.destroyed || res.stream.closed);
}

// Cancels the body once, when the response closes or fails before the body was read to its end;
// stop() when done with it, so a finished or failed body is not cancelled (and logged) later.
function watchClient(res, reader) {
  const watch = {
    cancelled: false,
    cancel(error) {
      if (watch.cancelled) return;
      watch.cancelled = true;
      watch.stop();
      reader.cancel(error).catch((err) => {
        console.error(`An error occurred while writing the response body for: ${res.req && res.req.url}.`, err);
      });
    },
    stop() {
      res.off('close', watch.cancel);
      res.off('error', watch.cancel);
    },
  };
  res.once('close', watch.cancel);
  res.once('error', watch.cancel);
  return watch;
}

// Resolves on 'drain', or when the response closes or fails (no 'drain' comes after that).
function drained(res) {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      res.off('error', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
    res.once('error', done);
  });
}

// writeResponseToNodeResponse's streaming, after `chunks` were read from the body already: each
// chunk goes out as read, waiting for 'drain' when the socket is full, until the body ends (end
// the response), fails ('Internal server error.' if the response is still open) or the client
// goes away (cancel the body).
async function stream(res, reader, watch, chunks) {
  if ('flushHeaders' in res) res.flushHeaders();
  try {
    for (const chunk of chunks) {
      if (isFinished(res)) return watch.cancel();
      if (res.write(chunk) === false) await drained(res);
    }
    for (;;) {
      if (watch.cancelled || isFinished(res)) return watch.cancel();
      const { done, value } = await reader.read();
      if (watch.cancelled || isFinished(res)) return watch.cancel();
      if (done) {
        res.end();
        return;
      }
      if (res.write(value) === false) await drained(res);
    }
  } catch {
    if (!isFinished(res)) res.end('Internal server error.');
  } finally {
    watch.stop();
  }
}

function toBuffer(chunk) {
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

module.exports = { writeResponse };
