'use strict';
// compression(options)'s whole-body stage: the held response's last stage (held-response.js), so
// it sees the body every other stage (critical CSS, the ETag, the response cache) made, whatever
// the order of app.use(). A body handed whole to end() is decided with its length
// (compression-decision.js) and compressed in one shot through the content cache, with the
// CRC-32 the held value took once (whole-body.js); a body seen before is answered with its stored
// compressed bytes. Anything else streams (compression-stream.js).
const { COPY, toNotModified } = require('../http/held-response');
const { encodeWhole } = require('../compression/whole-body');
const { markEncoded } = require('./compression-decision');

const EMPTY = Buffer.alloc(0);

class CompressionStage {
  /**
   * @param {object} shared the middleware's decision, content cache and mount function
   * @param {StreamPath} path the response's streaming path, which holds the response's state
   */
  constructor(shared, req, res, path) {
    this.decision = shared.decision;
    this.cache = shared.cache;
    this.req = req;
    this.res = res;
    this.path = path;
    this.place = 'compression';
    this.maxBuffer = undefined;
    // the dcz choice reads the cookie a session middleware mounted after this one sets at
    // writeHead: the held response runs such listeners before the stages (held-response.js)
    this.headFirst = shared.decision.dictionaries !== null;
    this.propagates = true; // a filter that throws reaches the route's error handler, as in the peer
    this.mount = shared.mount; // a cache hit answered before this middleware ran still goes through it
  }

  // A body handed whole to end() is held as it is, whatever its size (it is in memory already);
  // one that starts with write() is compressed whole only when another stage holds it (COPY),
  // else it streams through below, and the copy is not kept.
  wantsWhole(_res, _req, ending) {
    this.maxBuffer = ending ? Infinity : undefined;
    return ending ? true : COPY;
  }

  tap() {}

  copied() {}

  // The peer's onHeaders step on the head as it now is, with the body's length; a compressed
  // body replaces the value's (a promise while it is compressed off the JavaScript thread).
  run(value) {
    const { res, path } = this;
    if (path.closed) return undefined;
    // The etag stage's 304: decided on its head as sent (no Content-Type or Content-Length)
    // and an empty body, as the peer decides the 304 a route sends (toNotModified, then end())
    if (value.notModified) toNotModified(res);
    path.decided = true;
    if (!res.getHeader('Content-Length')) path.length = value.notModified ? 0 : value.body.length;
    const choice = this.decision.choose(this.req, res, path.length, true);
    path.drainFromResponse();
    // not compressed: end() below sends it as the peer does (its head written first)
    if (choice === null) return undefined;
    markEncoded(res, choice.coding);
    path.passThrough = true;
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
