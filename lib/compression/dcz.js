'use strict';
// One compression dictionary and its `dcz` encoder (RFC 9842 6.2): the dictionary's bytes, their
// SHA-256 (what browsers send back in Available-Dictionary), and an encoder the content cache can
// use (its id names the dictionary, so each dictionary's compressed pages are cached apart).
// Zstandard with a dictionary comes from the addon (libzstd, loaded at run time), so it works on
// Node 20 too, whose zlib has no zstd; where libzstd is missing, `available` is false and no
// dictionary coding is offered.
const crypto = require('crypto');
const native = require('../native');
const { ownError } = require('../validate');
const { runOnThread, encodeNowThenCall, SYNC_LIMIT } = require('./encoders');

// libzstd is loaded on first use (a dictionary option turned on), not when this file is required.
let status = null;
function zstdStatus() {
  if (status === null) status = native.zstdDictionaryStatus();
  return status;
}
// Bodies up to this size are encoded on the JavaScript thread (one per turn of the event loop
// above SYNC_LIMIT), as the other fast encoders do; larger ones on libuv's pool.
const ON_THREAD_LIMIT = 128 * 1024;
// Preparing a dictionary (zstd's tables for it, and its SHA-256) takes time in proportion to its
// size; up to this size it is prepared where it is asked for (well under a millisecond), larger
// ones through prepare() on libuv's pool.
const PREPARE_ON_THREAD_LIMIT = 128 * 1024;
const DEFAULT_LEVEL = 3;
const subtle = (globalThis.crypto && globalThis.crypto.subtle) || crypto.webcrypto.subtle;

function requireZstd() {
  if (zstdStatus().available) return;
  throw ownError(Error, 'ZSTD_MISSING', `ssr-native: dictionary compression needs libzstd: ${status.error}`);
}

class DczDictionary {
  /**
   * `bytes`: the dictionary (a Buffer, copied); `level`: zstd level 1-19. Prepared on this thread:
   * for a dictionary that may be large, once a server is running, use DczDictionary.prepare.
   */
  constructor(bytes, { level = DEFAULT_LEVEL, method = 'supplied' } = {}, prepared = undefined) {
    requireZstd();
    this.bytes = prepared ? prepared.bytes : Buffer.from(bytes);
    this.hash = prepared ? prepared.hash : crypto.createHash('sha256').update(this.bytes).digest();
    this.hashHex = this.hash.toString('hex');
    // Available-Dictionary carries the hash as a structured-field byte sequence: `:base64:`
    this.availableDictionary = `:${this.hash.toString('base64')}:`;
    this.id = this.hashHex.slice(0, 16);
    this.method = method;
    const handle = prepared ? prepared.handle : native.zstdDictionaryEncoder(this.bytes, level);
    const hash = this.hash;
    const encodeNow = (body) => native.dczEncode(handle, hash, body);
    this.encoder = {
      coding: 'dcz',
      id: `dcz:${level}:${this.hashHex}`,
      canCompressNow: true,
      compressNow: encodeNow,
      compress(body, callback) {
        if (body.length <= SYNC_LIMIT) {
          encodeNowThenCall(encodeNow, body, undefined, callback);
        } else if (body.length <= ON_THREAD_LIMIT) {
          runOnThread(encodeNow, body, undefined, callback);
        } else {
          native.dczEncodeAsync(handle, hash, body, callback);
        }
      },
    };
  }

  /**
   * A DczDictionary of `bytes` (a Buffer, copied), as `new DczDictionary(bytes, options)` makes,
   * to callback(err, dictionary), never on this tick. A large one is hashed and prepared on
   * libuv's pool, so the event loop never waits for it.
   */
  static prepare(bytes, options, callback) {
    let copy;
    try {
      requireZstd();
      if (bytes.length <= PREPARE_ON_THREAD_LIMIT) {
        const dictionary = new DczDictionary(bytes, options);
        process.nextTick(callback, null, dictionary);
        return;
      }
      copy = Buffer.from(bytes);
    } catch (err) {
      process.nextTick(callback, err);
      return;
    }
    const level = options && options.level !== undefined ? options.level : DEFAULT_LEVEL;
    let hash;
    let handle;
    let pending = 2;
    let failed = false;
    // callback runs on a tick of its own: never inside the digest's promise, where a throw
    // would become an unhandled rejection
    const settle = (err) => {
      if (failed) return;
      if (err) {
        failed = true;
        process.nextTick(callback, err);
      } else if (--pending === 0) {
        let dictionary;
        try {
          dictionary = new DczDictionary(copy, options, { bytes: copy, hash, handle });
        } catch (e) {
          process.nextTick(callback, e);
          return;
        }
        process.nextTick(callback, null, dictionary);
      }
    };
    subtle.digest('SHA-256', copy).then((digest) => {
      hash = Buffer.from(digest);
      settle(null);
    }, settle);
    try {
      native.zstdDictionaryEncoderAsync(copy, level, (err, encoder) => {
        handle = encoder;
        settle(err);
      });
    } catch (err) {
      settle(err);
    }
  }
}

/** Decodes a dcz body against `dictionary` (a DczDictionary); throws on anything else. */
function decodeDcz(dictionary, body, maxOutput = 64 * 1024 * 1024) {
  return native.dczDecode(dictionary.bytes, dictionary.hash, body, maxOutput);
}

module.exports = {
  DczDictionary,
  PREPARE_ON_THREAD_LIMIT,
  decodeDcz,
  DEFAULT_LEVEL,
  /** Whether libzstd loads here (loads it). */
  get available() {
    return zstdStatus().available;
  },
  /** Why it does not, or ''. */
  get unavailableReason() {
    return zstdStatus().error;
  },
};
