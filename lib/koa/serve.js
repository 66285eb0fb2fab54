'use strict';
// serve(root, options): a drop-in for koa-static 5 (over koa-send 5) on Koa 2 and 3, serving
// files from the native FileCache (lib/file-cache.js) as zero-copy Buffers.
//
// The slow path, send(), is koa-send 5.0.1 step by step: the same decoding, resolve-path checks,
// hidden-file rule, .br/.gz siblings, extensions, directory format, headers and thrown errors;
// only its stat/access calls are answered by the cache. A resolution that ends on a cached file
// is remembered per URL path and Accept-Encoding outcome until the cache generation moves (any
// change in a watched directory, an eviction), so a warm hit makes no system call at all.
//
// Beyond koa-static: the ETag is set from the cache (the content's CRC-32, so etag() in front
// hashes nothing and every machine agrees), `compress` (in-memory gzip/br), `acceptRanges`
// (206/416), `maxBytes`/`maxFileSize`, and `cache` (one FileCache shared by several mounts and
// serveStatic). Files over maxFileSize are streamed from the descriptor that was fstat'ed.
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const createError = require('http-errors');
const fresh = require('fresh');
const mime = require('mime-types');
const parseRange = require('range-parser');
const resolvePath = require('resolve-path');
const { etag: entityTag } = require('../etag');
const { FileCache } = require('../file-cache');
const { chooseEncoding, isCompressible, compressVariants } = require('../static-encoding');
const { openFileForStream, fileRangeStream } = require('../static/send-file-stream');
const { invalidType, outOfRange } = require('../validate');
const { FileStats } = require('./file-stats');

const { basename, extname, normalize, parse, resolve, sep } = path;

// Accept-Encoding outcomes that change koa-send's answer: a route is remembered per outcome.
const ACCEPTS_BR = 1;
const ACCEPTS_GZIP = 2;
// Bounds on the memos (attackers choose paths and headers).
const MAX_ROUTES = 8192;
const MAX_ACCEPT_HEADERS = 256;
// stat errors koa-send turns into 404; fs.access fails on these (and on ELOOP/EACCES on the way)
const NOT_FOUND = new Set(['ENOENT', 'ENAMETOOLONG', 'ENOTDIR']);
const ABSENT = new Set(['ENOENT', 'ENAMETOOLONG', 'ENOTDIR', 'ELOOP']);
const BYTES_RANGE_REGEXP = /^ *bytes=/;

function serve(root, options) {
  // koa-static 5
  const opts = Object.assign({}, options);
  assert(root, 'root directory is required to serve files');
  opts.root = resolve(root);
  if (opts.index !== false) opts.index = opts.index || 'index.html';

  // koa-send 5 (it reads these per call; they cannot change after koa-static copied them)
  const rootDir = normalize(resolve(opts.root));
  const index = opts.index;
  const maxage = opts.maxage || opts.maxAge || 0;
  const cacheControl = `max-age=${(maxage / 1000) | 0}` + (opts.immutable ? ',immutable' : '');
  const hidden = opts.hidden || false;
  const format = opts.format !== false;
  const extensions = Array.isArray(opts.extensions) ? opts.extensions : false;
  const brotli = opts.brotli !== false;
  const gzip = opts.gzip !== false;
  const setHeaders = opts.setHeaders;
  const defer = Boolean(opts.defer);

  // ours
  const setEtag = opts.etag !== false;
  const compress = Boolean(opts.compress);
  const acceptRanges = Boolean(opts.acceptRanges);
  const cache = cacheOf(opts, rootDir);

  const routes = new Map(); // URL path -> [record per Accept-Encoding outcome]
  let routesGeneration = cache.generation();
  const acceptOutcomes = new Map(); // Accept-Encoding header -> ACCEPTS_* bits

  function encodingBits(ctx) {
    if (!brotli && !gzip) return 0;
    const header = ctx.headers['accept-encoding'];
    const key = header === undefined ? null : header;
    let bits = acceptOutcomes.get(key);
    if (bits === undefined) {
      // the context's own negotiation, exactly as koa-send asks it
      bits =
        (brotli && ctx.acceptsEncodings('br', 'identity') === 'br' ? ACCEPTS_BR : 0) |
        (gzip && ctx.acceptsEncodings('gzip', 'identity') === 'gzip' ? ACCEPTS_GZIP : 0);
      if (acceptOutcomes.size >= MAX_ACCEPT_HEADERS) acceptOutcomes.clear();
      acceptOutcomes.set(key, bits);
    }
    return bits;
  }

  // A remembered resolution, if still valid: memory only, no system call.
  function remembered(urlPath, bits) {
    const slots = routes.get(urlPath);
    const record = slots === undefined ? undefined : slots[bits];
    if (record === undefined) return undefined;
    const generation = cache.touch(record.file.id);
    if (generation === routesGeneration) return record;
    routes.clear();
    routesGeneration = generation;
    return undefined;
  }

  function remember(urlPath, bits, record, generation) {
    if (routesGeneration !== generation) {
      routes.clear();
      routesGeneration = generation;
    }
    if (routes.size >= MAX_ROUTES) routes.clear();
    let slots = routes.get(urlPath);
    if (slots === undefined) routes.set(urlPath, (slots = [undefined, undefined, undefined, undefined]));
    slots[bits] = record;
  }

  // memory first (no system call, no thread hop), then a load on the libuv pool
  function load(filePath) {
    const hit = cache.lookup(filePath);
    return hit.status === 'hit' ? hit : cache.get(filePath);
  }

  // koa-send's exists(): fs.access(path) succeeds
  async function exists(filePath) {
    const result = await load(filePath);
    if (result.status === 'outsideRoot') return false;
    return result.status !== 'error' || !ABSENT.has(result.code);
  }

  // koa-send's stat(): the load result, or the error koa-send throws
  async function stat(filePath) {
    const result = await load(filePath);
    if (result.status === 'error' || result.status === 'outsideRoot') throw statError(result, filePath);
    return result;
  }

  // koa-send(ctx, urlPath, opts): resolves `urlPath` and answers, or returns undefined (not
  // served: hidden, or a directory it will not index) or throws as koa-send throws.
  async function send(ctx, urlPath, bits) {
    assert(ctx, 'koa context required');
    assert(urlPath, 'pathname required');
    const trailingSlash = urlPath[urlPath.length - 1] === '/';
    let p = urlPath.substr(parse(urlPath).root.length);
    if (setHeaders && typeof setHeaders !== 'function') {
      throw new TypeError('option setHeaders must be function');
    }
    p = decode(p);
    if (p === -1) return ctx.throw(400, 'failed to decode');
    if (index && trailingSlash) p += index;
    p = resolvePath(rootDir, p);
    if (!hidden && isHidden(rootDir, p)) return undefined;

    const generation = cache.generation();
    let encoding;
    let encodingExt = '';
    if (bits & ACCEPTS_BR && (await exists(p + '.br'))) {
      p += '.br';
      encoding = 'br';
      encodingExt = '.br';
      setContentEncoding(ctx, encoding);
    } else if (bits & ACCEPTS_GZIP && (await exists(p + '.gz'))) {
      p += '.gz';
      encoding = 'gzip';
      encodingExt = '.gz';
      setContentEncoding(ctx, encoding);
    }

    if (extensions && !/\./.exec(basename(p))) {
      const list = [].concat(extensions);
      for (let i = 0; i < list.length; i++) {
        let ext = list[i];
        if (typeof ext !== 'string') throw new TypeError('option extensions must be array of strings or false');
        if (!/^\./.exec(ext)) ext = `.${ext}`;
        if (await exists(`${p}${ext}`)) {
          p = `${p}${ext}`;
          break;
        }
      }
    }

    let result = await stat(p);
    let throughDirectory = false;
    if (result.status === 'directory') {
      if (!(format && index)) return undefined;
      p += `/${index}`;
      result = await stat(p);
      // the answer also depends on names in the parent directory, which may not be watched
      throughDirectory = true;
    }

    if (result.body !== undefined) {
      const record = makeRecord(p, encodingExt, encoding, result);
      if (result.cached && !throughDirectory && cache.generation() === generation) remember(urlPath, bits, record, generation);
      sendRecord(ctx, record);
    } else if (result.status === 'tooLarge') {
      await sendStream(ctx, p, encodingExt);
    } else {
      sendAsKoaSend(ctx, p, encodingExt, new FileStats(result.stat));
    }
    return p;
  }

  function makeRecord(filePath, encodingExt, encoding, result) {
    const type = typeOf(filePath, encodingExt);
    return {
      path: filePath,
      encoding, // of a .br/.gz sibling
      file: result,
      body: result.body,
      etag: result.etag,
      stats: undefined, // built on demand for setHeaders
      type,
      compressible: compress && encoding === undefined && isCompressible(mime.lookup(type) || ''),
      lastModified: new Date(Math.round(result.stat.mtimeMs)).toUTCString(), // as fs.Stats#mtime
    };
  }

  // koa-send's header step for a file held in memory (identity, sibling or compressed variant)
  function sendRecord(ctx, record) {
    let body = record.body;
    let tag = record.etag;
    let variant;
    if (record.compressible) {
      variant = chooseVariant(ctx, record);
      appendVary(ctx);
      if (variant !== undefined) {
        body = variant.body;
        tag = variant.etag;
      }
    }
    if (setHeaders) setHeaders(ctx.res, record.path, record.stats || (record.stats = new FileStats(record.file.stat)));
    ctx.set('Content-Length', String(body.length));
    if (!ctx.response.get('Last-Modified')) ctx.set('Last-Modified', record.lastModified);
    if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', cacheControl);
    if (!ctx.type) ctx.type = record.type;
    if (variant !== undefined) ctx.set('Content-Encoding', variant.encoding);
    if (setEtag && !ctx.response.get('ETag')) ctx.set('ETag', tag);
    if (acceptRanges) {
      const span = rangeOf(ctx, body.length);
      if (span !== undefined) body = body.subarray(span.start, span.end + 1);
    }
    ctx.body = body;
  }

  // Files over maxFileSize: read from the descriptor whose fstat gave the headers, exactly the
  // announced length; a file that shrinks meanwhile closes the connection (lib/static).
  async function sendStream(ctx, filePath, encodingExt) {
    const { fd, stats } = await openForStream(filePath);
    let stream;
    try {
      if (setHeaders) setHeaders(ctx.res, filePath, stats);
      ctx.set('Content-Length', String(stats.size));
      if (!ctx.response.get('Last-Modified')) ctx.set('Last-Modified', stats.mtime.toUTCString());
      if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', cacheControl);
      if (!ctx.type) ctx.type = typeOf(filePath, encodingExt);
      // the stat-based tag koa-etag would have made from the stream's path
      if (setEtag && !ctx.response.get('ETag')) ctx.set('ETag', entityTag(stats, { weak: true }));
      let span = { start: 0, end: stats.size - 1 };
      if (acceptRanges) span = rangeOf(ctx, stats.size) || span;
      stream = fileRangeStream(fd, span);
    } catch (err) {
      fs.close(fd, () => {});
      throw err;
    }
    const res = ctx.res;
    // Before the headers are out Koa answers the error (500); after, only closing the
    // connection keeps its framing honest.
    stream.on('error', () => {
      if (res.headersSent) res.destroy();
    });
    ctx.body = stream;
  }

  // koa-send's own streaming, kept for what the cache does not hold as a regular file (FIFOs,
  // an index that is a directory...): same headers, same stream, same errors.
  function sendAsKoaSend(ctx, filePath, encodingExt, stats) {
    if (setHeaders) setHeaders(ctx.res, filePath, stats);
    ctx.set('Content-Length', stats.size);
    if (!ctx.response.get('Last-Modified')) ctx.set('Last-Modified', stats.mtime.toUTCString());
    if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', cacheControl);
    if (!ctx.type) ctx.type = typeOf(filePath, encodingExt);
    ctx.body = fs.createReadStream(filePath);
  }

  // Range (acceptRanges: true), as serveStatic: one range -> 206, several or malformed -> the
  // whole body, unsatisfiable -> 416 unless the client's copy is fresh. Returns { start, end }.
  function rangeOf(ctx, length) {
    if (!ctx.response.get('Accept-Ranges')) ctx.set('Accept-Ranges', 'bytes');
    const header = ctx.headers.range;
    if (header === undefined || !BYTES_RANGE_REGEXP.test(header)) return undefined;
    const etag = ctx.response.get('ETag');
    const lastModified = ctx.response.get('Last-Modified');
    if (fresh(ctx.headers, { etag, 'last-modified': lastModified })) return undefined;
    if (!isRangeFresh(ctx.headers['if-range'], etag, lastModified)) return undefined;
    const ranges = parseRange(length, header, { combine: true });
    if (ranges === -1) {
      throw createError(416, { headers: { 'Content-Range': `bytes */${length}` } });
    }
    if (ranges === -2 || ranges.length !== 1) return undefined;
    const { start, end } = ranges[0];
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${start}-${end}/${length}`);
    return { start, end };
  }

  function chooseVariant(ctx, record) {
    const variants = cache.variantsOf(record.file.id);
    if (variants === undefined) {
      compressVariants(cache, record.file);
      return undefined;
    }
    const encoding = chooseEncoding(ctx.headers['accept-encoding'], variants);
    return encoding ? variants[encoding] : undefined;
  }

  // koa-static's middleware around send()
  async function serveSlowly(ctx, next, urlPath, bits) {
    let done;
    try {
      done = await send(ctx, urlPath, bits);
    } catch (err) {
      if (err.status !== 404) throw err;
    }
    if (!done) await next();
  }

  function answer(ctx, record) {
    if (record.encoding !== undefined) setContentEncoding(ctx, record.encoding);
    sendRecord(ctx, record);
  }

  const middleware = defer
    ? async function serve(ctx, next) {
        await next();
        if (ctx.method !== 'HEAD' && ctx.method !== 'GET') return;
        // response is already handled
        if (ctx.body != null || ctx.status !== 404) return;
        const bits = encodingBits(ctx);
        const urlPath = ctx.path;
        const record = remembered(urlPath, bits);
        if (record !== undefined) return answer(ctx, record);
        try {
          await send(ctx, urlPath, bits);
        } catch (err) {
          if (err.status !== 404) throw err;
        }
      }
    : function serve(ctx, next) {
        const method = ctx.method;
        if (method !== 'HEAD' && method !== 'GET') return next();
        const bits = encodingBits(ctx);
        const urlPath = ctx.path;
        const record = remembered(urlPath, bits);
        if (record === undefined) return serveSlowly(ctx, next, urlPath, bits);
        answer(ctx, record);
        return undefined;
      };

  middleware.cache = cache;
  middleware.stats = () => cache.stats();
  middleware.close = () => cache.close();
  return middleware;
}

function cacheOf(opts, rootDir) {
  if (opts.cache !== undefined) {
    if (!(opts.cache instanceof FileCache)) throw invalidType('options.cache', 'a FileCache', opts.cache);
    return opts.cache;
  }
  const settings = { root: rootDir };
  for (const name of ['maxBytes', 'maxFileSize']) {
    const value = opts[name];
    if (value === undefined) continue;
    if (typeof value !== 'number' || Number.isNaN(value)) throw invalidType(`options.${name}`, 'a number', value);
    if (value < 0) throw outOfRange(`options.${name}`, '>= 0', value);
    settings[name] = value;
  }
  if (opts.watch !== undefined) settings.watch = Boolean(opts.watch);
  return new FileCache(settings);
}

function openForStream(filePath) {
  return new Promise((resolvePromise, reject) => {
    openFileForStream(filePath, (err, fd, stats) => {
      if (!err) return resolvePromise({ fd, stats });
      if (NOT_FOUND.has(err.code)) return reject(createError(404, err));
      err.status = 500;
      reject(err);
    });
  });
}

function setContentEncoding(ctx, encoding) {
  ctx.set('Content-Encoding', encoding);
  ctx.res.removeHeader('Content-Length');
}

function appendVary(ctx) {
  const vary = ctx.response.get('Vary');
  if (!vary) ctx.set('Vary', 'Accept-Encoding');
  else if (!/(?:^|,)\s*(?:accept-encoding|\*)\s*(?:,|$)/i.test(String(vary))) ctx.set('Vary', vary + ', Accept-Encoding');
}

function isRangeFresh(ifRange, etag, lastModified) {
  if (!ifRange) return true;
  if (ifRange.indexOf('"') !== -1) return Boolean(etag && ifRange.indexOf(etag) !== -1);
  return Date.parse(lastModified) <= Date.parse(ifRange);
}

// The error koa-send throws when fs.stat fails: 404 for a missing file, the fs error with
// status 500 otherwise.
const UV_MESSAGES = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  ENAMETOOLONG: 'name too long',
  EACCES: 'permission denied',
  ELOOP: 'too many symbolic links encountered',
};
function statError(result, filePath) {
  // a symlink leaving the root of a cache made with allowOutsideRoot: false reads as missing
  const code = result.status === 'outsideRoot' ? 'ENOENT' : result.code;
  const errno = result.status === 'outsideRoot' ? -2 : result.errno;
  const message = UV_MESSAGES[code] || String(result.message || '').toLowerCase();
  const err = new Error(`${code}: ${message}, stat '${filePath}'`);
  err.errno = errno;
  err.code = code;
  err.syscall = 'stat';
  err.path = filePath;
  if (NOT_FOUND.has(code)) return createError(404, err);
  err.status = 500;
  return err;
}

// koa-send's file type: the extension, under a .br/.gz suffix
function typeOf(file, encodingExt) {
  return encodingExt !== '' ? extname(basename(file, encodingExt)) : extname(file);
}

function isHidden(root, filePath) {
  const parts = filePath.substr(root.length).split(sep);
  for (let i = 0; i < parts.length; i++) {
    if (parts[i][0] === '.') return true;
  }
  return false;
}

function decode(p) {
  try {
    return decodeURIComponent(p);
  } catch {
    return -1;
  }
}

module.exports = { serve };
