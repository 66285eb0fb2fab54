'use strict';
// compression(options)'s whole-body stage: the held response's last stage (held-response.js), so
// it sees the body every other stage (critical CSS, the ETag, the response cache) made, whatever
// the order of app.use(). A body handed whole to end() is decided with its length
// (compression-decision.js) and compressed in one shot through the content cache, with the
// CRC-32 the held value took once (whole-body.js); a body seen before is answered with its stored
// compressed bytes. Anything else streams (compression-stream.js).
//
// One CompressionStage per response holds all of the response's compression state: the stage's
// face for the held response, and what the streaming path keeps (its fields are all set here, so
// every instance has one shape).
const { COPY, toNotModified } = require('../http/held-response');
const { encodeWhole } = require('../compression/whole-body');
const { markEncoded } = require('./compression-decision');
const { streamThrough, drainFromResponse } = require('./compression-stream');

const EMPTY = Buffer.alloc(0);

class CompressionStage {
  /**
   * @param {object} shared the middleware's decision, content cache and mount function
   * @param {object} below the response's methods below the held response (HeldResponse#below)
   */
  constructor(shared, req, res, below) {
    // read by the held response
    this.place = 'compression';
    this.maxBuffer = undefined;
    // the dcz choice reads the cookie a session middleware mounted after this one sets at
    // writeHead: the held response runs such listeners before the stages (held-response.js)
    this.headFirst = shared.decision.dictionaries !== null;
    this.propagates = true; // a filter that throws reaches the route's error handler, as in the peer
    this.mount = shared.mount; // a cache hit answered before this middleware ran still goes through it
    this.decision = shared.decision;
    this.cache = shared.cache;
    this.req = req;
    this.res = res;
    this.below = below;
    // the streaming path's (compression-stream.js): the methods it wraps, as they were
    this.resOn = res.on;
    this.belowWrite = null; // set with the two others once the body streams (streamThrough)
    this.belowEnd = null;
    this.belowWriteHead = null;
    this.stream = null; // the zlib stream, once the decision chose a coding for a streamed body
    this.ended = false; // end() reached the stream: later writes and ends are dropped, as the peer's
    this.closed = false; // the response closed: no stream is made, one made is released
    this.decided = false; // the head's decision ran (here or on the streaming path), or never will
    this.passThrough = false; // the stage decided the head and made the body: what follows goes out
    this.length = undefined; // the body's length, when end() brought all of it
    this.listeners = []; // 'drain' listeners held until it is known where drain comes from
  }

  // A body handed whole to end() is held as it is, whatever its size (it is in memory already);
  // one that starts with write() streams through below (the streaming path is put there now), and
  // is compressed whole only when another stage holds it (COPY); the copy is not kept.
  wantsWhole(_res, _req, ending) {
    if (ending) {
      this.maxBuffer = Infinity;
      return true;
    }
    this.maxBuffer = undefined;
    streamThrough(this);
    return COPY;
  }

  tap() {}

  copied() {}

  /** The body started before this stage joined: the peer leaves such a response alone. */
  leaveAlone() {
    streamThrough(this);
    this.decided = true;
    drainFromResponse(this);
  }

  // The peer's onHeaders step on the head as it now is, with the body's length; a compressed
  // body replaces the value's (a promise while it is compressed off the JavaScript thread).
  run(value) {
    const res = this.res;
    if (this.closed) return undefined;
    // The etag stage's 304: decided on its head as sent (no Content-Type or Content-Length)
    // and an empty body, as the peer decides the 304 a route sends (toNotModified, then end())
    if (value.notModified) toNotModified(res);
    this.decided = true;
    if (!res.getHeader('Content-Length')) this.length = value.notModified ? 0 : value.body.length;
    let choice;
    try {
      choice = this.decision.choose(this.req, res, this.length, true);
    } catch (err) {
      streamThrough(this); // the app's error response goes out below as a decided one
      throw err;
    }
    drainFromResponse(this);
    if (choice === null) {
      // not compressed: the streaming path's end() sends it as the peer does (its head written
      // first, so HTTP/1.1 sends it chunked) and, with dictionaries on, learns from it
      streamThrough(this);
      return undefined;
    }
    markEncoded(res, choice.coding);
    this.passThrough = true;
    // no body goes out with these: nothing to compress, and no Content-Length to state
    if (res.statusCode === 204 || res.statusCode === 304) return value.replace(EMPTY);
    return this.encode(value, choice);
  }

  // Encodes the value's body through the content cache: synchronously when it can, else the
  // held response waits for the promise.
  encode(value, choice) {
    const original = value.body;
    let settle = null;
    let settled = false;
    const encoded = encodeWhole(
      this.cache,
      choice.encoder,
      original,
      this.res.getHeader('ETag'),
      (err, result) => {
        this.encoded(value, choice, original, err, result);
        settled = true;
        if (settle !== null) settle();
      },
      value.crc,
    );
    if (encoded !== undefined) return this.encoded(value, choice, original, null, encoded);
    if (settled) return undefined;
    return new Promise((resolve) => {
      settle = resolve;
    });
  }

  encoded(value, choice, original, err, encoded) {
    const { res, decision } = this;
    if (err) {
      // the body goes out as it came rather than not at all
      res.removeHeader('Content-Encoding');
      encoded = original;
    }
    value.replace(encoded);
    res.setHeader('Content-Length', encoded.length);
    if (decision.dictionaries !== null) {
      const dcz = choice.coding === 'dcz' && encoded !== original;
      if (dcz) decision.dictionaries.record(original.length, encoded.length);
      decision.learn(this.req, res, original, dcz ? choice.dictionary : null);
    }
  }
}

module.exports = { CompressionStage };
