'use strict';
// The held response: the one place that intercepts a node:http (or node:http2 compatibility)
// response for the stages that want its body whole. It reads writeHead's arguments one way,
// holds the body once (up to the largest maxBuffer a stage asked for), and hands the stages one
// value, { res, method, body, crc } (held-value.js), whose CRC-32 is computed once, by the first
// stage that reads it. The held response is the pipeline of node:http and Express
// (http/pipeline.js: the stages' order, a hit entering after the store, `mount(req, res)`); a
// second middleware that mounts a stage on the same response joins the held response that is
// there (HeldResponse.of). A body that outgrows the bound, or that is streamed (flushHeaders
// then writes, as Angular's writeResponseToNodeResponse does, beyond the bound), is let go: what
// was held goes out as it came and the rest streams through; each stage hears it (released).
//
// A stage is { place, maxBuffer, wantsWhole(res, req, ending), run(value, held), released(),
// tap(bytes), copied(), propagates, headFirst }: wantsWhole is asked once, on the head as the route set it,
// when the body starts (`ending`: with the whole body, in end()); run may return a Promise (the
// held response waits; a rejection sends the value as it stands); a stage that throws leaves the
// value as it stood, unless it `propagates` (compression's filter): its exception then reaches
// the route, out of end(), when it runs there. A stage that only needs a copy
// (the response cache) answers COPY: held whole when another stage holds it, else it streams
// through and the stage is handed each chunk (tap) and told when it ended (copied), so that a
// streamed answer (Server-Sent Events) is never held back for it. A stage that is `headFirst`
// (compression's dcz choice) decides on the headers that writeHead listeners mounted after the
// held response set (on-headers: express-session, cookie-session): when the body ends whole,
// writeHead is called through them first, and the held response keeps what it is given.
const { isNotModified } = require('./conditional');
const { beforeOwnMethods } = require('../response-shape');
const { HeldValue } = require('./held-value');
const { Pipeline, PLACES, isAfterStore } = require('./pipeline');

const HELD = Symbol('ssrNative.heldResponse');
const DEFAULT_MAX_BUFFER = 8 * 1024 * 1024;
const EMPTY = Buffer.alloc(0);
// What the held responses did, for tests: bodies held whole
const counts = { bodiesHeld: 0 };

const COPY = 'copy';
const IDLE = 0; // nothing sent yet: the head is still being decided
const HOLD = 1; // head and body held for the stages
const PASS = 2; // everything goes straight through
const DONE = 3; // the body ended: the stages run, then it is sent

/** writeHead(status[, reason][, headers]): the headers set on `res` (object, [[name, value], ...]
 *  or Node's flat raw array, whose repeated names are joined as Node joins them); returns the
 *  arguments left for the real writeHead: status (and reason). */
function applyWriteHead(res, args) {
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
        if (!headers[i]) continue;
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

// a rejected stage leaves the value as it stood
function ignore() {}

class HeldResponse extends Pipeline {
  /** The held response of `res`, made (and `res` intercepted) by the first stage mounted on it. */
  static of(req, res) {
    return res[HELD] || new HeldResponse(req, res);
  }

  /** The held response of `res` if a stage made one, else undefined. */
  static on(res) {
    return res[HELD];
  }

  constructor(req, res) {
    super();
    this.req = req;
    this.res = res;
    this.state = IDLE;
    this.headArgs = null; // an explicit writeHead's status (and reason), sent with the body
    this.chunks = [];
    this.size = 0;
    this.limit = 0;
    this.up = null;
    this.wanting = new Set(); // the stages that asked for the body whole (or a copy)
    this.taps = null; // the stages copying a body that streams through
    this.askedTag = false; // the route asked for the ETag of what is sent (writeResponse)
    this.sending = false; // send() is handing the value to the methods below
    this.inEnd = false; // the stages' first pass runs inside the route's end()
    this.wholeBody = false; // a stage (the response cache's fill) needs the route's whole body
    this.lending = false; // the response's `req` is a view lent to a framework's send (lendRequest)
    this.ownRequest = undefined; // the response's `req` while it is lent
    beforeOwnMethods(res);
    res[HELD] = this;
    intercept(this);
  }

  /** Adds a stage at its place (Pipeline#use); false when the body has started (too late). */
  use(stage) {
    if (this.state !== IDLE) return false;
    super.use(stage);
    return true;
  }

  /**
   * The response's own methods under the held response, { writeHead, write, end, flushHeaders }
   * (each called with the response as `this`), for the last stage to wrap in place: what it does
   * to a body (compression, also of bodies that stream) then comes after every other stage,
   * whatever the order of app.use().
   */
  below() {
    return this.up;
  }

  /** The route asks that what is sent carries its ETag (when it has none) and gets the 304;
   *  false when the body has started (the route then tags it itself) or on a cache hit. */
  askTag() {
    if (this.state !== IDLE || this.afterStore) return false;
    this.askedTag = true;
    useEtagStage(this);
    return true;
  }

  /** A stage needs the route's whole body, also for a conditional request or a HEAD: the
   *  etag stage then makes the 304 decision on the route's own ETag as well. */
  wantsWholeBody() {
    this.wholeBody = true;
    useEtagStage(this);
  }

  /**
   * Lends the response's `req` a view while a framework's send reads it (the response cache's
   * fill asks Express's res.send for the whole GET body): the response's own request is given
   * back when the first call reaches the held response (send has read its request by then), so
   * nothing below it, the runtime's own methods included, ever sees the view.
   */
  lendRequest(view) {
    this.ownRequest = this.res.req;
    this.lending = true;
    this.res.req = view;
  }

  /** Gives the response its own `req` back, if it is lent. */
  giveBackRequest() {
    if (!this.lending) return;
    this.lending = false;
    this.res.req = this.ownRequest;
    this.ownRequest = undefined;
  }

  decide(ending) {
    let wanted = this.askedTag;
    let limit = wanted ? DEFAULT_MAX_BUFFER : 0;
    let copying = null;
    for (const stage of this.stages) {
      if (stage.wantsWhole === undefined) continue;
      const answer = stage.wantsWhole(this.res, this.req, ending);
      if (!answer) continue;
      this.wanting.add(stage);
      if (answer === COPY) {
        (copying = copying || []).push(stage);
        continue;
      }
      wanted = true;
      limit = Math.max(limit, stage.maxBuffer === undefined ? DEFAULT_MAX_BUFFER : stage.maxBuffer);
    }
    // A body that ends whole for a stage that needs the route's whole body (a fill: Express's
    // res.send answered whole, not 304) is held even when no stage keeps it (a page not stored),
    // for the one 304 decision on the client's validators.
    if (!wanted && ending && this.wholeBody) {
      wanted = true;
      limit = Math.max(limit, DEFAULT_MAX_BUFFER);
    }
    if (wanted && copying !== null) {
      for (const stage of copying) limit = Math.max(limit, stage.maxBuffer === undefined ? 0 : stage.maxBuffer);
    }
    this.state = wanted ? HOLD : PASS;
    this.limit = limit;
    if (!wanted) {
      this.chunks = null;
      this.taps = copying;
    }
  }

  // A chunk streaming through, for the stages that copy it.
  tap(chunk, encoding) {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const bytes =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8')
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (const stage of this.taps) stage.tap(bytes);
  }

  keep(chunk, encoding) {
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : typeof chunk === 'string'
        ? Buffer.from(chunk, encoding)
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.chunks.push(bytes);
    this.size += bytes.length;
  }

  // Too large to hold: what was held goes out as it came, and the rest streams through.
  release(up) {
    this.state = PASS;
    for (const stage of this.stages) if (stage.released !== undefined) stage.released();
    if (this.headArgs !== null) up.writeHead.apply(this.res, this.headArgs);
    for (const bytes of this.chunks) up.write.call(this.res, bytes);
    this.chunks = null;
  }

  // The body ended whole: the stages in their order, then one send.
  runStages(up, callback) {
    const body =
      this.chunks.length === 0
        ? EMPTY
        : this.chunks.length === 1
          ? this.chunks[0]
          : Buffer.concat(this.chunks, this.size);
    this.chunks = null;
    counts.bodiesHeld++;
    const value = new HeldValue(this.res, body, this.req.method);
    let ran;
    this.inEnd = true;
    try {
      ran = this.run(value);
    } finally {
      this.inEnd = false;
    }
    if (ran === undefined) this.send(up, value, callback);
    else ran.then(() => this.send(up, value, callback));
  }

  // One stage over the held value: a stage that did not ask for the body is passed by; one that
  // fails leaves the value as it stood, unless its errors are the app's (compression's filter):
  // they are thrown out of the route's end(), as its peer does, while that is where it runs.
  runStage(stage, value) {
    if (this.res.destroyed) return undefined; // send() then sends nothing either
    if (stage.wantsWhole !== undefined && !this.wanting.has(stage)) return undefined;
    let result;
    try {
      result = stage.run(value, this);
    } catch (err) {
      if (stage.propagates && this.inEnd) {
        this.state = PASS; // the app's error response goes straight out
        throw err;
      }
      return undefined;
    }
    if (result !== undefined && result !== null && typeof result.then === 'function')
      return result.then(undefined, ignore);
    return undefined;
  }

  // One end(body) with no explicit writeHead: the status and headers are on the response
  // already (applyWriteHead), and what is below (compression) sees one whole body.
  send(up, value, callback) {
    const res = this.res;
    if (res.destroyed || res.writableEnded) return;
    if (value.notModified) {
      toNotModified(res);
      up.end.call(res, callback);
      return;
    }
    const args = this.headArgs;
    if (args !== null && args.length > 1 && args[0] === res.statusCode) res.statusMessage = args[1];
    // node:http2's end(chunk) writes the chunk through res.write, which must let it by
    this.sending = true;
    try {
      if (value.body.length === 0) up.end.call(res, callback);
      else up.end.call(res, value.body, callback);
    } finally {
      this.sending = false;
    }
  }

  /** The one 304 decision (http/conditional.js) on the client's validators and `tag`. */
  isFresh(tag) {
    const res = this.res;
    const lastModified = res.getHeader('Last-Modified');
    // the client's validators as it sent them: no piece changes the request's headers (the
    // response cache's fills ask for the whole body through the response, not the request)
    return isNotModified(this.req.method, res.statusCode, this.req.headers, tag, lastModified, 'express');
  }
}

/** The head of a 304 for a fresh request, as Express's res.send makes it (no entity headers). */
function toNotModified(res) {
  res.removeHeader('Content-Type');
  res.removeHeader('Content-Length');
  res.removeHeader('Transfer-Encoding');
  res.statusCode = 304;
}

function intercept(held) {
  const res = held.res;
  // read at each call: a stage that works below the held response (compression's streaming)
  // replaces these (HeldResponse#below)
  const up = { writeHead: res.writeHead, write: res.write, end: res.end, flushHeaders: res.flushHeaders };
  held.up = up;

  const ownWriteHead = function writeHead() {
    if (held.lending) held.giveBackRequest();
    if (held.state === PASS || held.state === DONE) return up.writeHead.apply(this, arguments);
    const args = applyWriteHead(this, arguments);
    if (held.state === IDLE) held.decide(false);
    if (held.state === PASS) return up.writeHead.apply(this, args);
    held.headArgs = args;
    return this;
  };
  res.writeHead = ownWriteHead;

  if (typeof up.flushHeaders === 'function') {
    res.flushHeaders = function flushHeaders() {
      if (held.lending) held.giveBackRequest();
      if (held.state === IDLE) held.decide(false);
      if (held.state === PASS || held.state === DONE) return up.flushHeaders.call(this);
      return undefined; // held: the head goes with the body
    };
  }

  // After the route's end(), while the stages run: a write or an end is refused (false, as
  // compression 1.8 answers them), not sent ahead of the held body.
  res.write = function write(chunk, encoding, callback) {
    if (held.lending) held.giveBackRequest();
    if (held.state === DONE && !held.sending) return false;
    if (held.state === IDLE) held.decide(false);
    if (held.state !== HOLD) {
      if (held.taps !== null && held.state === PASS) held.tap(chunk, encoding);
      return up.write.apply(this, arguments);
    }
    if (typeof encoding === 'function') {
      callback = encoding;
      encoding = undefined;
    }
    if (chunk !== undefined && chunk !== null) held.keep(chunk, encoding);
    if (held.size > held.limit) held.release(up);
    if (callback) process.nextTick(callback);
    return true;
  };

  res.end = function end(chunk, encoding, callback) {
    if (held.lending) held.giveBackRequest();
    if (held.state === DONE && !held.sending) return false;
    if (held.state === IDLE) held.decide(true);
    if (held.state !== HOLD) {
      if (held.taps === null || held.state !== PASS) return up.end.apply(this, arguments);
      const taps = held.taps;
      held.tap(chunk, encoding);
      held.taps = null;
      const result = up.end.apply(this, arguments);
      for (const stage of taps) stage.copied();
      return result;
    }
    if (typeof chunk === 'function') {
      callback = chunk;
      chunk = undefined;
    } else if (typeof encoding === 'function') {
      callback = encoding;
      encoding = undefined;
    }
    if (chunk !== undefined && chunk !== null) held.keep(chunk, encoding);
    if (held.size > held.limit) {
      held.release(up);
      return up.end.call(this, callback);
    }
    if (held.headArgs === null && this.writeHead !== ownWriteHead && anyHeadFirst(held.stages))
      this.writeHead(this.statusCode); // held (HOLD): only the listeners above run
    held.state = DONE;
    held.runStages(up, callback);
    return this;
  };
}

/** The etag stage: the ETag of the body as the stages before it left it, and the 304 decision. */
const etagStage = {
  place: 'etag',
  run(value, held) {
    const res = value.res;
    const tag = res.getHeader('ETag');
    if (tag === undefined) {
      if (!held.askedTag || value.body.length === 0) return;
      value.retag(true);
    } else if (value.changed && !value.tagged) {
      value.retag(typeof tag !== 'string' || tag.startsWith('W/'));
    } else if (!value.tagged && !held.askedTag && !held.wholeBody) {
      return; // the route's own tag on its own body: its own 304 rules stand
    }
    if (held.isFresh(res.getHeader('ETag'))) value.notModified = true;
  },
};

function anyHeadFirst(stages) {
  for (let i = 0; i < stages.length; i++) if (stages[i].headFirst) return true;
  return false;
}

/** Mounts the etag stage once on `held`. */
function useEtagStage(held) {
  held.use(etagStage);
}

module.exports = {
  COPY,
  HeldResponse,
  HeldValue,
  toNotModified,
  applyWriteHead,
  useEtagStage,
  isAfterStore,
  PLACES,
  counts,
};
