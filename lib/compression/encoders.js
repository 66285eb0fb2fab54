'use strict';
// The compressors, one per coding and settings: a one-shot form for a body known whole (the
// window sized to the body; on the JavaScript thread up to a size that holds the loop well under
// a millisecond, on libuv's thread pool above it) and the streaming form
// the peers use for everything else (a zlib stream per response, with the peer's options).
//
// Why one-shot with a sized window: a streaming Brotli encoder at its default window (4 MiB,
// lgwin 22) allocates and clears that much state per response whatever the body's size; told
// the size (BROTLI_PARAM_SIZE_HINT) and given a window just larger than the body, it does the
// same work on a fraction of the memory. A window at least as large as the body changes no match
// the encoder can find, so the output is the peer's within a few bytes (the header records the
// window).
const os = require('os');
const zlib = require('zlib');

// Below this size the thread-pool hop (a task, a wake-up, a callback) costs more CPU than the
// compression itself, and the event loop is held for well under a millisecond.
const SYNC_LIMIT = 4 * 1024;
// For the fast settings (the peers' defaults: Brotli quality 4, zstd level 3, deflate level 6 and
// below), bodies up to these sizes are compressed on the JavaScript thread too: each holds the
// loop for under a millisecond, and on a busy server the pool hop costs more CPU than the
// compression it carries (the worker and the JavaScript thread evicting each other's state from
// the caches, the wake-ups, the copies; figures in CONTRIBUTING.md). Slower settings keep
// SYNC_LIMIT.
const FAST_SYNC_LIMIT = { br: 128 * 1024, zstd: 128 * 1024, gzip: 32 * 1024, deflate: 32 * 1024 };
const FAST_BROTLI_QUALITY = 4;
const FAST_ZSTD_LEVEL = 3;
const FAST_DEFLATE_LEVEL = 6;

const BROTLI_MIN_LGWIN = zlib.constants.BROTLI_MIN_WINDOW_BITS;
const BROTLI_MAX_LGWIN = zlib.constants.BROTLI_MAX_WINDOW_BITS;
// zlib's encoder keeps MIN_LOOKAHEAD (262) bytes of the window out of reach of a match.
const DEFLATE_LOOKAHEAD = 262;

// The Brotli window of a streamed response whose options do not set one: 256 KiB - 16 bytes.
const STREAM_LGWIN = 18;

const hasZstd = typeof zlib.zstdCompress === 'function';

// At most one compression per CPU on libuv's pool at a time, the rest waiting in order: twenty
// Brotli encoders at once on a small machine spend their CPU evicting each other's state from
// the caches (CONTRIBUTING.md), and the pool stays free for file system work. The queue is bounded by the requests in flight.
const MAX_ACTIVE = Math.max(
  1,
  typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length,
);
let active = 0;
const waiting = [];

function dispatch(job, body, settings, callback) {
  if (active >= MAX_ACTIVE) {
    waiting.push([job, body, settings, callback]);
    return;
  }
  active++;
  const done = (err, encoded) => {
    active--;
    if (waiting.length > 0) {
      const next = waiting.shift();
      dispatch(next[0], next[1], next[2], next[3]);
    }
    callback(err, encoded);
  };
  try {
    job(body, settings, done);
  } catch (err) {
    // invalid zlib options throw before any work is queued
    process.nextTick(done, err);
  }
}

// The smallest Brotli window (1 << lgwin) - 16 that holds `length` bytes.
function brotliWindowFor(length) {
  let lgwin = BROTLI_MIN_LGWIN;
  while (lgwin < BROTLI_MAX_LGWIN && (1 << lgwin) - 16 < length) lgwin++;
  return lgwin;
}

// The smallest deflate window (9..15 bits; zlib turns 8 into 9) that holds `length` bytes.
function deflateWindowFor(length) {
  let bits = 9;
  while (bits < 15 && 1 << bits < length + DEFLATE_LOOKAHEAD) bits++;
  return bits;
}

let anonymousSettings = 0;
// A zlib implementation other than Node's (@fastify/compress's `zlib` option) -> its number, so
// its encoders never share content-cache entries with Node's or another one's.
const implementations = new WeakMap();

// A string that names these settings in the content cache; settings that cannot be named
// (a preset dictionary) get one of their own, so they never share entries.
function settingsId(coding, options, impl) {
  if (options.dictionary !== undefined) return `${coding}#${++anonymousSettings}`;
  let prefix = coding;
  if (impl !== zlib) {
    if (!implementations.has(impl)) implementations.set(impl, ++anonymousSettings);
    prefix = `${coding}@${implementations.get(impl)}`;
  }
  if (coding === 'br' || coding === 'zstd') return `${prefix}${JSON.stringify(options.params || {})}`;
  return `${prefix}:${options.level}:${options.memLevel}:${options.strategy}:${options.windowBits}`;
}

const METHODS = {
  br: ['createBrotliCompress', 'brotliCompress', 'brotliCompressSync'],
  zstd: ['createZstdCompress', 'zstdCompress', 'zstdCompressSync'],
  gzip: ['createGzip', 'gzip', 'gzipSync'],
  deflate: ['createDeflate', 'deflate', 'deflateSync'],
};

/**
 * An encoder for `coding` ('br', 'gzip', 'deflate', 'zstd') with the zlib options the peer would
 * pass to its stream constructor. `impl` is a zlib-like module to take the functions from
 * (default: Node's zlib); with another one, its functions get the options exactly as given (no
 * window sized to the body: what it does with them is its own), and a method it lacks is taken
 * from Node's zlib as @fastify/compress does, except that a one-shot form is never taken from
 * Node's when it has its own stream constructor (its stream is collected instead).
 */
function createEncoder(coding, options, impl = zlib) {
  const [streamName, asyncName, syncName] = METHODS[coding];
  // anything but an object is no implementation at all (the peer falls back to Node's for each method)
  const custom = impl !== zlib && impl !== null && (typeof impl === 'object' || typeof impl === 'function');
  if (!custom) impl = zlib;
  const id = settingsId(coding, options, impl);
  const stream = impl[streamName] || zlib[streamName];
  let async = impl[asyncName];
  let sync = impl[syncName];
  if (custom && typeof impl[streamName] === 'function') {
    // its own stream, so never Node's one-shot in its place
    if (typeof sync !== 'function') sync = undefined;
    if (typeof async !== 'function') async = sync === undefined ? collectFrom(impl[streamName]) : undefined;
  } else {
    if (typeof sync !== 'function') sync = zlib[syncName];
    if (typeof async !== 'function') async = zlib[asyncName];
  }
  let sized = () => options;
  let streamOptions = options;
  if (coding === 'br') {
    const params = options.params || {};
    const fixedWindow =
      params[zlib.constants.BROTLI_PARAM_LGWIN] !== undefined ||
      params[zlib.constants.BROTLI_PARAM_LARGE_WINDOW] !== undefined;
    const hinted = params[zlib.constants.BROTLI_PARAM_SIZE_HINT] !== undefined;
    if (!custom) {
      sized = (length) => {
        const own = { ...params };
        if (!fixedWindow) own[zlib.constants.BROTLI_PARAM_LGWIN] = brotliWindowFor(length);
        if (!hinted) own[zlib.constants.BROTLI_PARAM_SIZE_HINT] = length;
        return { ...options, params: own };
      };
    }
    if (!fixedWindow && !custom)
      streamOptions = { ...options, params: { ...params, [zlib.constants.BROTLI_PARAM_LGWIN]: STREAM_LGWIN } };
  } else if (coding === 'zstd') {
    if (!custom && options.pledgedSrcSize === undefined) sized = (length) => ({ ...options, pledgedSrcSize: length });
  } else if (!custom && options.windowBits === undefined) {
    // One options object per window size, made once: the common case allocates nothing.
    const byWindow = [];
    sized = (length) => {
      const bits = deflateWindowFor(length);
      return byWindow[bits] || (byWindow[bits] = { ...options, windowBits: bits });
    };
  }

  const syncLimit = sync !== undefined && isFast(coding, options) ? FAST_SYNC_LIMIT[coding] : SYNC_LIMIT;
  return {
    coding,
    id,
    /** A new zlib stream with the peer's options (Brotli: a bounded window), for a streamed response. */
    stream: () => stream(streamOptions),
    /** Whether compressNow() can compress here and now (it has a synchronous form). */
    canCompressNow: sync !== undefined,
    /** Compresses a whole body on the calling thread, at once (throws what zlib throws). */
    compressNow: (body) => sync(body, sized(body.length)),
    /** Compresses a whole body; callback(err, encoded), never synchronously. */
    compress(body, callback) {
      const settings = sized(body.length);
      if (sync !== undefined && body.length > SYNC_LIMIT && (body.length <= syncLimit || async === undefined)) {
        runOnThread(sync, body, settings, callback);
        return;
      }
      if (sync !== undefined && body.length <= SYNC_LIMIT) {
        encodeNowThenCall(sync, body, settings, callback);
        return;
      }
      dispatch(async, body, settings, callback);
    },
  };
}

/** A small body encoded at once; callback(err, encoded) on the next tick, never synchronously. */
function encodeNowThenCall(encode, body, settings, callback) {
  let encoded;
  try {
    encoded = encode(body, settings);
  } catch (err) {
    process.nextTick(callback, err);
    return;
  }
  process.nextTick(callback, null, encoded);
}

// A one-shot form made of a stream constructor: the body written at once, the output collected.
function collectFrom(createStream) {
  return (body, settings, callback) => {
    const chunks = [];
    const stream = createStream(settings);
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('error', (err) => callback(err));
    stream.on('end', () => callback(null, Buffer.concat(chunks)));
    stream.end(body);
  };
}

// The on-thread compressions of bodies above SYNC_LIMIT run one per turn of the event loop
// (setImmediate), in order: a burst of them never holds timers and I/O for more than one.
const onThread = [];
let onThreadScheduled = false;
function runOnThread(sync, body, settings, callback) {
  onThread.push([sync, body, settings, callback]);
  if (!onThreadScheduled) {
    onThreadScheduled = true;
    setImmediate(runNextOnThread);
  }
}
function runNextOnThread() {
  const [sync, body, settings, callback] = onThread.shift();
  if (onThread.length > 0) setImmediate(runNextOnThread);
  else onThreadScheduled = false;
  let encoded;
  try {
    encoded = sync(body, settings);
  } catch (err) {
    callback(err);
    return;
  }
  callback(null, encoded);
}

// Whether `options` are among the cheap settings whose compression of FAST_SYNC_LIMIT bytes
// takes well under a millisecond.
function isFast(coding, options) {
  const params = options.params || {};
  if (coding === 'br') {
    const quality = params[zlib.constants.BROTLI_PARAM_QUALITY];
    return quality !== undefined && quality <= FAST_BROTLI_QUALITY && !params[zlib.constants.BROTLI_PARAM_LARGE_WINDOW];
  }
  if (coding === 'zstd') {
    const level = params[zlib.constants.ZSTD_c_compressionLevel];
    return level === undefined ? hasZstd : level <= FAST_ZSTD_LEVEL;
  }
  const level = options.level === undefined ? -1 : options.level;
  return level <= FAST_DEFLATE_LEVEL && options.dictionary === undefined;
}

/** Compressions on the pool now and waiting for it (for stats). */
function poolStats() {
  return { active, waiting: waiting.length, maxActive: MAX_ACTIVE };
}

module.exports = {
  createEncoder,
  encodeNowThenCall,
  hasZstd,
  brotliWindowFor,
  deflateWindowFor,
  poolStats,
  runOnThread,
  SYNC_LIMIT,
  STREAM_LGWIN,
};
