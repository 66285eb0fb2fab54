'use strict';
// FileSender: koa-send 5.0.1 step by step, with its stat/access calls answered by the native
// FileCache (lib/files/file-cache.js) and cached files sent as zero-copy Buffers. The same decoding,
// resolve-path checks, hidden-file rule, .br/.gz siblings, extensions, directory format, headers
// and thrown errors as koa-send; serve() (koa-static) and send() (koa-send) are built on it.
//
// A resolution that ends on a cached file is remembered per URL path and Accept-Encoding outcome
// until the cache generation moves (any change in a watched directory, an eviction), so a warm
// hit makes no system call at all.
//
// Beyond koa-send: the ETag is set from the cache (the content's CRC-32, so etag() in front
// hashes nothing and every machine agrees), `compress` (in-memory gzip/br), `acceptRanges`
// (206/416), `maxBytes`/`maxFileSize`, and `cache` (one FileCache shared by several mounts and
// serveStatic). Files over maxFileSize are streamed from the descriptor that was fstat'ed.
const assert = require('assert');
const path = require('path');
const createError = require('http-errors');
const mime = require('mime-types');
const resolvePath = require('resolve-path');
const { FileCache } = require('../files/file-cache');
const { isCompressible } = require('../files/encoding');
const { invalidType } = require('../validate');
const { ClearingMap } = require('../bounded/clearing-map');
const { peerOptions } = require('../options');

// koa-send 5's options, then ssr-native's; koa-send ignores other names, so they draw one warning
const SEND_OPTIONS = [
  ...['index', 'root', 'maxage', 'maxAge', 'immutable', 'hidden', 'format', 'extensions', 'brotli', 'gzip'],
  ...['setHeaders', 'acceptRanges', 'etag', 'cache', 'dictionary', 'compress', 'maxBytes', 'maxFileSize', 'watch'],
];
const { FileStats } = require('../files/file-stats');
const { statError: fsStatError, statStatus } = require('../files/stat-error');
const { StaticEngine } = require('../files/engine');
const { prepareSend } = require('../files/respond');
const { decodePath, isHidden } = require('../files/paths');
const { KoaFileResponse, setContentEncoding, typeOf } = require('./respond');
const { AssetDictionaries } = require('../compression/asset-dictionaries');

const { basename, normalize, parse, resolve } = path;

// Accept-Encoding outcomes that change koa-send's answer: a route is remembered per outcome.
const ACCEPTS_BR = 1;
const ACCEPTS_GZIP = 2;
// Bounds on the Accept-Encoding memo (attackers choose headers); the route memo bounds itself.
const MAX_ACCEPT_HEADERS = 256;
const MAX_ACCEPT_LENGTH = 256;
// stat errors koa-send turns into 404; fs.access also fails on ELOOP
const ABSENT = new Set(['ENOENT', 'ENAMETOOLONG', 'ENOTDIR', 'ELOOP']);

class FileSender extends KoaFileResponse {
  /** `opts`: koa-send's options (read once: koa-send reads them per call) plus ours. */
  constructor(opts, cache) {
    super();
    this.root = opts.root ? normalize(resolve(opts.root)) : '';
    this.index = opts.index;
    const maxage = opts.maxage || opts.maxAge || 0;
    this.cacheControl = `max-age=${(maxage / 1000) | 0}` + (opts.immutable ? ',immutable' : '');
    this.hidden = opts.hidden || false;
    this.format = opts.format !== false;
    this.extensions = Array.isArray(opts.extensions) ? opts.extensions : false;
    this.brotli = opts.brotli !== false;
    this.gzip = opts.gzip !== false;
    this.setHeaders = opts.setHeaders;
    // ours
    this.setEtag = opts.etag !== false;
    this.compress = Boolean(opts.compress);
    this.acceptRanges = Boolean(opts.acceptRanges);
    this.cache = cache;
    // URL path -> [record per Accept-Encoding outcome]; loads name no top directory (koa-send
    // memoises no misses)
    this.engine = new StaticEngine(cache, { routeSlots: 4, compress: this.compress });
    // files/respond.js's steps: the 'koa-send' flavour's options, Vary and setHeaders first
    const options = { cacheControl: this.cacheControl, etag: this.setEtag, acceptRanges: this.acceptRanges };
    this.how = { options, engine: this.engine, prepare: prepareSend(this.setHeaders) };
    // koa-send's own answer (sendAsKoaSend): no ETag, no ranges
    const asKoaSend = { cacheControl: this.cacheControl, etag: false, acceptRanges: false };
    this.howAsKoaSend = { options: asKoaSend, engine: this.engine, prepare: this.how.prepare };
    this.routes = this.engine.routes;
    this.acceptOutcomes = new ClearingMap(MAX_ACCEPT_HEADERS); // Accept-Encoding header -> ACCEPTS_* bits
    // `dictionary`: hashed files offered as dictionaries, dcz deltas (lib/koa/asset-delta.js)
    this.assets = AssetDictionaries.from(opts.dictionary, 'koa');
  }

  /** Which of koa-send's sibling encodings the request accepts (ACCEPTS_* bits). */
  encodingBits(ctx) {
    if (!this.brotli && !this.gzip) return 0;
    const header = ctx.headers['accept-encoding'];
    const key = header === undefined ? null : header;
    let bits = this.acceptOutcomes.get(key);
    if (bits === undefined) {
      // the context's own negotiation, exactly as koa-send asks it
      bits =
        (this.brotli && ctx.acceptsEncodings('br', 'identity') === 'br' ? ACCEPTS_BR : 0) |
        (this.gzip && ctx.acceptsEncodings('gzip', 'identity') === 'gzip' ? ACCEPTS_GZIP : 0);
      if (key === null || key.length <= MAX_ACCEPT_LENGTH) {
        this.acceptOutcomes.set(key, bits);
      }
    }
    return bits;
  }

  /** Answers from a remembered resolution (memory only, no system call); false if there is none. */
  sendRemembered(ctx, urlPath, bits) {
    const record = this.routes.get(urlPath, bits);
    if (record === undefined) return false;
    if (record.encoding !== undefined) setContentEncoding(ctx, record.encoding);
    // a promise when a dcz delta is on its way (`dictionary`)
    const pending = this.sendRecord(ctx, record);
    return pending === undefined ? true : pending;
  }

  // memory first (no system call, no thread hop), then a load on the libuv pool
  load(filePath) {
    return this.engine.get(filePath);
  }

  // koa-send's exists(): fs.access(path) succeeds
  async exists(filePath) {
    const result = await this.load(filePath);
    if (result.status === 'outsideRoot') return false;
    // a cache closed under the request knows nothing of siblings: koa-send's 500, not "exists"
    if (result.code === 'ERR_FILE_CACHE_CLOSED') throw statError(result, filePath);
    return result.status !== 'error' || !ABSENT.has(result.code);
  }

  // koa-send's stat(): the load result, or the error koa-send throws
  async stat(filePath) {
    const result = await this.load(filePath);
    if (result.status === 'error' || result.status === 'outsideRoot') throw statError(result, filePath);
    return result;
  }

  /**
   * koa-send(ctx, urlPath, opts): answers with the file `urlPath` names and returns its path, or
   * returns undefined (hidden, or a directory it will not index), or throws as koa-send throws.
   */
  async send(ctx, urlPath, bits = this.encodingBits(ctx)) {
    assert(ctx, 'koa context required');
    assert(urlPath, 'pathname required');
    const { root, index, setHeaders } = this;
    const trailingSlash = urlPath[urlPath.length - 1] === '/';
    let p = urlPath.substr(parse(urlPath).root.length);
    if (setHeaders && typeof setHeaders !== 'function') {
      throw new TypeError('option setHeaders must be function');
    }
    p = decodePath(p);
    if (p === null) return ctx.throw(400, 'failed to decode');
    if (index && trailingSlash) p += index;
    p = resolvePath(root, p);
    if (!this.hidden && isHidden(root, p)) return undefined;

    const generation = this.cache.generation();
    let encoding;
    let encodingExt = '';
    if (bits & ACCEPTS_BR && (await this.exists(p + '.br'))) {
      p += '.br';
      encoding = 'br';
      encodingExt = '.br';
      setContentEncoding(ctx, encoding);
    } else if (bits & ACCEPTS_GZIP && (await this.exists(p + '.gz'))) {
      p += '.gz';
      encoding = 'gzip';
      encodingExt = '.gz';
      setContentEncoding(ctx, encoding);
    }

    if (this.extensions && !/\./.exec(basename(p))) {
      const list = [].concat(this.extensions);
      for (let i = 0; i < list.length; i++) {
        let ext = list[i];
        if (typeof ext !== 'string') throw new TypeError('option extensions must be array of strings or false');
        if (!/^\./.exec(ext)) ext = `.${ext}`;
        if (await this.exists(`${p}${ext}`)) {
          p = `${p}${ext}`;
          break;
        }
      }
    }

    let result = await this.stat(p);
    let throughDirectory = false;
    if (result.status === 'directory') {
      if (!(this.format && index)) return undefined;
      p += `/${index}`;
      result = await this.stat(p);
      // the answer also depends on names in the parent directory, which may not be watched
      throughDirectory = true;
    }

    if (result.body !== undefined) {
      const record = this.makeRecord(p, encodingExt, encoding, result);
      if (result.cached && !throughDirectory) this.routes.set(urlPath, bits, record, generation);
      const pending = this.sendRecord(ctx, record);
      if (pending !== undefined) await pending;
    } else if (result.status === 'tooLarge') {
      await this.sendStream(ctx, p, encodingExt);
    } else {
      this.sendAsKoaSend(ctx, p, encodingExt, new FileStats(result.stat));
    }
    return p;
  }

  makeRecord(filePath, encodingExt, encoding, result) {
    const type = typeOf(filePath, encodingExt);
    const compressibleType = this.compress && isCompressible(mime.lookup(type) || '');
    // `type` is the extension koa-send gives ctx.type; compress: in-memory variants of an
    // identity file, and Vary on whatever depends on Accept-Encoding
    const record = this.engine.record(filePath, result, type, encoding, compressibleType);
    record.vary = compressibleType || (this.compress && encoding !== undefined);
    return record;
  }
}

/** The FileCache for these options: `cache` (shared), or a new one bounded by maxBytes/maxFileSize. */
function cacheFor(opts, root) {
  if (opts.cache !== undefined) {
    if (!(opts.cache instanceof FileCache)) throw invalidType('options.cache', 'a FileCache', opts.cache);
    return opts.cache;
  }
  // FileCache validates maxBytes/maxFileSize itself, with the same messages as serveStatic.
  const settings = { root: root || undefined, maxBytes: opts.maxBytes, maxFileSize: opts.maxFileSize };
  if (opts.watch !== undefined) settings.watch = Boolean(opts.watch);
  return new FileCache(settings);
}

// send(ctx, path, opts): koa-send's own API. One sender per options object (koa-send reads the
// options on every call; a sender reads them once, so an options object is not to be changed
// after its first use) and, unless `opts.cache` names one, one FileCache for every send() call.
const senders = new WeakMap();
let sharedCache;
function send(ctx, urlPath, opts = {}) {
  let sender = senders.get(opts);
  if (sender === undefined) {
    if (opts === null || typeof opts !== 'object') throw invalidType('opts', 'an object', opts);
    peerOptions(opts, SEND_OPTIONS, 'send(ctx, path, opts)');
    const cache = opts.cache !== undefined ? cacheFor(opts) : sharedCache || (sharedCache = new FileCache());
    sender = new FileSender(opts, cache);
    senders.set(opts, sender);
  }
  if (ctx && urlPath) {
    const bits = sender.encodingBits(ctx);
    const sent = sender.sendRemembered(ctx, urlPath, bits);
    if (sent) {
      const filePath = sender.routes.get(urlPath, bits).path;
      return sent === true ? Promise.resolve(filePath) : sent.then(() => filePath);
    }
    return sender.send(ctx, urlPath, bits);
  }
  return sender.send(ctx, urlPath, 0); // rejects with koa-send's AssertionError
}

// The error koa-send throws when fs.stat fails: 404 for a missing file, the fs error with
// status 500 otherwise.
function statError(result, filePath) {
  const err = fsStatError(result, filePath);
  if (statStatus(err.code) === 404) return createError(404, err);
  err.status = 500;
  return err;
}

module.exports = { FileSender, cacheFor, send, SEND_OPTIONS };
