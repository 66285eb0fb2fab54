'use strict';
// compression(options)'s streaming path: a body that does not arrive whole (res.write, Server-Sent
// Events, res.flush(), an explicit res.writeHead before the body, a body too large to hold)
// streams through a zlib stream per response exactly as compression 1.8 does. It wraps the
// response's methods below the held response (held-response.js: below()), where the body goes
// out after every stage, and res.on for 'drain' (a pipe waits for the stream's drain, not the
// socket's). Once the whole-body stage (compression-stage.js) has decided a response, the path
// only passes through.
const { applyWriteHead } = require('../http/held-response');
const { markEncoded } = require('./compression-decision');

function chunkLength(chunk, encoding) {
  if (!chunk) return 0;
  return Buffer.isBuffer(chunk) ? chunk.length : Buffer.byteLength(chunk, encoding);
}

function toBuffer(chunk, encoding) {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, encoding);
}

function headersSent(res) {
  return typeof res.headersSent !== 'boolean' ? Boolean(res._header) : res.headersSent;
}

// Releases a zlib stream's native handle, also when the client left before it finished.
function release(stream) {
  if (stream === null) return;
  stream.destroy();
  if (typeof stream.close === 'function') stream.close();
}

/** One response's streaming path: all its state, and the methods it puts below the holder. */
class StreamPath {
  constructor(decision, req, res, below) {
    this.decision = decision;
    this.req = req;
    this.res = res;
    // the methods wrapped, as they were
    this.write = below.write;
    this.end = below.end;
    this.writeHead = below.writeHead;
    this.on = res.on;
    this.stream = null; // the zlib stream, once the decision chose a coding for a streamed body
    this.ended = false; // end() reached the stream: later writes and ends are dropped, as the peer's
    this.closed = false; // the response closed: no stream is made, one made is released
    this.decided = false; // the head's decision ran (here or in the stage), or never will
    this.passThrough = false; // the stage decided the head and made the body: what follows goes out
    this.length = undefined; // the body's length, when end() brought all of it
    this.listeners = []; // 'drain' listeners held until it is known where drain comes from
  }

  /** Puts the path's methods below the held response and on res. */
  install(below) {
    const path = this;
    const res = this.res;
    res.flush = function flush() {
      if (path.stream !== null) path.stream.flush();
    };
    below.write = function write(chunk, encoding, callback) {
      return path.onWrite(this, arguments, chunk, encoding, callback);
    };
    below.end = function end(chunk, encoding, callback) {
      return path.onEnd(this, arguments, chunk, encoding, callback);
    };
    below.writeHead = function writeHead() {
      return path.onWriteHead(this, arguments);
    };
    res.on = function on(type, listener) {
      return path.onOn(this, type, listener);
    };
    this.on.call(res, 'close', () => {
      path.closed = true;
      release(path.stream);
    });
  }

  onWrite(res, args, chunk, encoding, callback) {
    if (this.passThrough) return this.write.apply(res, args);
    if (this.ended) return false;
    if (!headersSent(res)) res.writeHead(res.statusCode);
    if (this.stream === null) return this.write.apply(res, args);
    if (typeof encoding === 'function') {
      callback = encoding;
      encoding = undefined;
    }
    return this.stream.write(toBuffer(chunk, encoding), callback);
  }

  onEnd(res, args, chunk, encoding, callback) {
    if (this.passThrough) return this.end.apply(res, args);
    if (this.ended) return false;
    if (typeof chunk === 'function') {
      callback = chunk;
      chunk = undefined;
      encoding = undefined;
    } else if (typeof encoding === 'function') {
      callback = encoding;
      encoding = undefined;
    }
    const first = !headersSent(res);
    if (first) {
      if (!res.getHeader('Content-Length')) this.length = chunkLength(chunk, encoding);
      res.writeHead(res.statusCode);
    }
    if (this.stream === null) return this.endUncompressed(res, first, chunk, encoding, callback);
    this.ended = true;
    if (callback) res.once('finish', callback);
    return chunk ? this.stream.end(toBuffer(chunk, encoding)) : this.stream.end();
  }

  // A body the decision left alone; with dictionaries on, a whole one is also learnt from.
  endUncompressed(res, first, chunk, encoding, callback) {
    const result = this.end.call(res, chunk, encoding, callback);
    if (this.decision.dictionaries !== null && first && chunk) {
      // copied only if sampled
      this.decision.learn(this.req, res, typeof chunk === 'string' && !encoding ? chunk : toBuffer(chunk, encoding));
    }
    return result;
  }

  onWriteHead(res, args) {
    if (this.passThrough) return this.writeHead.apply(res, args);
    // what on-headers does with writeHead's arguments, read the one way the held response reads
    // them: headers given to writeHead are set first (the decision sees them)
    const head = applyWriteHead(res, args);
    if (!this.decided) {
      this.decided = true;
      this.decide();
      if (typeof head[0] === 'number' && res.statusCode !== head[0]) {
        head[0] = res.statusCode;
        head.length = 1;
      }
    }
    return this.writeHead.apply(res, head);
  }

  onOn(res, type, listener) {
    if (this.listeners === null || type !== 'drain') return this.on.call(res, type, listener);
    if (this.stream !== null) return this.stream.on(type, listener);
    this.listeners.push([type, listener]);
    return res;
  }

  // The peer's onHeaders step for a streamed body: a zlib stream between the response's
  // methods and the socket, when the decision chose a coding.
  decide() {
    const res = this.res;
    const choice = this.decision.choose(this.req, res, this.length, false);
    if (choice === null) return this.drainFromResponse();
    // the client left before the head: no stream (and no drain listener) for it
    if (this.closed) return undefined;
    const stream = choice.encoder.stream();
    this.stream = stream;
    this.attachListeners(stream, stream.on);
    markEncoded(res, choice.coding);
    stream.on('data', (chunk) => {
      if (this.write.call(res, chunk) === false) stream.pause();
    });
    stream.on('end', () => {
      this.end.call(res);
    });
    this.on.call(res, 'drain', () => {
      stream.resume();
    });
    return undefined;
  }

  /** No stream will come: 'drain' listeners go to the response, now and later. */
  drainFromResponse() {
    this.attachListeners(this.res, this.on);
  }

  /** The head was decided elsewhere, or never will be: this path does nothing more for it. */
  leaveAlone() {
    this.decided = true;
    this.drainFromResponse();
  }

  // Hands the 'drain' listeners buffered so far to where drain will come from; a compressing
  // stream keeps receiving later ones (onOn), the response takes them directly.
  attachListeners(target, on) {
    for (const [type, listener] of this.listeners) on.call(target, type, listener);
    if (target === this.res) this.listeners = null;
  }
}

module.exports = { StreamPath };
