'use strict';
// compression(options)'s streaming path: a body that does not arrive whole (res.write, Server-Sent
// Events, res.flush(), an explicit res.writeHead before the body, a body too large to hold)
// streams through a zlib stream per response exactly as compression 1.8 does. Every response gets
// res.flush, res.on for 'drain' (a pipe waits for the stream's drain, not the socket's) and a
// close listener (watchResponse); the methods below the held response (held-response.js: below()),
// where the body goes out after every stage, are wrapped only once a body streams, started
// before compression joined, or goes out uncompressed (streamThrough): a body handed whole to
// end() and compressed by the stage never meets them. The
// response's state is its CompressionStage (compression-stage.js); once the stage has decided a
// response, the path only passes through.
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

/** What every response compression joins gets: res.flush, res.on for 'drain', a close listener. */
function watchResponse(state) {
  const res = state.res;
  res.flush = function flush() {
    if (state.stream !== null) state.stream.flush();
  };
  res.on = function on(type, listener) {
    if (state.listeners === null || type !== 'drain') return state.resOn.call(this, type, listener);
    if (state.stream !== null) return state.stream.on(type, listener);
    state.listeners.push(listener);
    return this;
  };
  state.resOn.call(res, 'close', () => {
    state.closed = true;
    release(state.stream);
  });
}

/** Wraps the methods below the held response (once per response): the body streams through. */
function streamThrough(state) {
  if (state.belowEnd !== null) return;
  const below = state.below;
  state.belowWrite = below.write;
  state.belowEnd = below.end;
  state.belowWriteHead = below.writeHead;
  below.write = function write(chunk, encoding, callback) {
    if (state.passThrough) return state.belowWrite.apply(this, arguments);
    if (state.ended) return false;
    if (!headersSent(this)) this.writeHead(this.statusCode);
    if (state.stream === null) return state.belowWrite.apply(this, arguments);
    if (typeof encoding === 'function') {
      callback = encoding;
      encoding = undefined;
    }
    return state.stream.write(toBuffer(chunk, encoding), callback);
  };
  below.end = function end(chunk, encoding, callback) {
    if (state.passThrough) return state.belowEnd.apply(this, arguments);
    if (state.ended) return false;
    if (typeof chunk === 'function') {
      callback = chunk;
      chunk = undefined;
      encoding = undefined;
    } else if (typeof encoding === 'function') {
      callback = encoding;
      encoding = undefined;
    }
    return endStreamed(state, this, chunk, encoding, callback);
  };
  below.writeHead = function writeHead() {
    if (state.passThrough) return state.belowWriteHead.apply(this, arguments);
    // what on-headers does with writeHead's arguments, read the one way the held response reads
    // them: headers given to writeHead are set first (the decision sees them)
    const head = applyWriteHead(this, arguments);
    if (!state.decided) {
      state.decided = true;
      decideStream(state);
      if (typeof head[0] === 'number' && this.statusCode !== head[0]) {
        head[0] = this.statusCode;
        head.length = 1;
      }
    }
    return state.belowWriteHead.apply(this, head);
  };
}

function endStreamed(state, res, chunk, encoding, callback) {
  const first = !headersSent(res);
  if (first) {
    if (!res.getHeader('Content-Length')) state.length = chunkLength(chunk, encoding);
    res.writeHead(res.statusCode);
  }
  if (state.stream === null) {
    // a body the decision left alone; with dictionaries on, a whole one is also learnt from
    const result = state.belowEnd.call(res, chunk, encoding, callback);
    const decision = state.decision;
    if (decision.dictionaries !== null && first && chunk) {
      // copied only if sampled
      decision.learn(state.req, res, typeof chunk === 'string' && !encoding ? chunk : toBuffer(chunk, encoding));
    }
    return result;
  }
  state.ended = true;
  if (callback) res.once('finish', callback);
  return chunk ? state.stream.end(toBuffer(chunk, encoding)) : state.stream.end();
}

// The peer's onHeaders step for a streamed body: a zlib stream between the response's methods and
// the socket, when the decision chose a coding.
function decideStream(state) {
  const res = state.res;
  const choice = state.decision.choose(state.req, res, state.length, false);
  if (choice === null) return drainFromResponse(state);
  // the client left before the head: no stream (and no drain listener) for it
  if (state.closed) return undefined;
  const stream = choice.encoder.stream();
  state.stream = stream;
  attachListeners(state, stream, stream.on);
  markEncoded(res, choice.coding);
  stream.on('data', (chunk) => {
    if (state.belowWrite.call(res, chunk) === false) stream.pause();
  });
  stream.on('end', () => {
    state.belowEnd.call(res);
  });
  state.resOn.call(res, 'drain', () => {
    stream.resume();
  });
  return undefined;
}

/** No stream will come: 'drain' listeners go to the response, now and later. */
function drainFromResponse(state) {
  attachListeners(state, state.res, state.resOn);
}

// Hands the 'drain' listeners buffered so far to where drain will come from; a compressing stream
// keeps receiving later ones (res.on), the response takes them directly.
function attachListeners(state, target, on) {
  const listeners = state.listeners;
  if (listeners === null) return;
  for (let i = 0; i < listeners.length; i++) on.call(target, 'drain', listeners[i]);
  if (target === state.res) state.listeners = null;
}

module.exports = { watchResponse, streamThrough, drainFromResponse };
