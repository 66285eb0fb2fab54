'use strict';
// serveStatic(root, options): a drop-in for serve-static 2.x (express.static in Express 5) that
// serves files from native memory (lib/static/file-cache.js over the C++ FileCache). The request flow,
// options, headers, statuses and errors follow serve-static 2.2.1 + send 1.2.1 step by step;
// what differs is where the bytes come from and the ETag (a CRC-32 of the content, the same on
// every machine, instead of size + mtime). Files over maxFileSize are streamed from disk.
const fs = require('fs');
const path = require('path');
const url = require('url');
const encodeUrl = require('encodeurl');
const escapeHtml = require('escape-html');
const fresh = require('fresh');
const createError = require('http-errors');
const mime = require('mime-types');
const ms = require('ms');
const parseRange = require('range-parser');
const parseUrl = require('parseurl');
const statuses = require('statuses');
const { FileCache } = require('./file-cache');
const { FileStats, lastModifiedOf } = require('./file-stats');
const { openFileForStream, sendFileStream } = require('./send-file-stream');
const { chooseEncoding, isCompressible, compressVariants } = require('./encoding');
const { statError } = require('./stat-error');

const { extname, join, normalize, resolve, sep } = path;
const BYTES_RANGE_REGEXP = /^ *bytes=/;
const MAX_MAXAGE = 60 * 60 * 24 * 365 * 1000; // 1 year, as send
const UP_PATH_REGEXP = /(?:^|[\\/])\.\.(?:[\\/]|$)/;
// Memoised URL path -> file resolutions; cleared whenever the cache generation moves. Bounded so
// a flood of distinct spellings of existing files cannot grow it without limit.
const MAX_ROUTES = 8192;
// Memoised URL paths that fall through to next() (missing file, a directory without index or
// redirect, ...) when every load behind the answer was `settled` (the FileCache moves its
// generation before that answer could change). Cleared when the generation moves; bounded in
// count and in characters, as attackers choose these paths.
const MAX_FALLTHROUGHS = 8192;
const MAX_FALLTHROUGH_CHARS = 1 << 20;
const MAX_FALLTHROUGH_LENGTH = 1024;
// respond() outcomes besides a { start, end } span
const DONE = 0;
const FULL = 1;

function serveStatic(root, options) {
  if (!root) throw new TypeError('root path required');
  if (typeof root !== 'string') throw new TypeError('root path must be a string');

  // Read options through a prototype link, as serve-static does (inherited options count).
  const opts = Object.create(options || null);
  const fallthrough = opts.fallthrough !== false;
  const redirect = opts.redirect !== false;
  const setHeaders = opts.setHeaders;
  if (setHeaders && typeof setHeaders !== 'function') {
    throw new TypeError('option setHeaders must be function');
  }
  opts.maxage = opts.maxage || opts.maxAge || 0;
  const config = sendConfig(opts, resolve(root));
  const cache = opts.cache instanceof FileCache ? opts.cache : new FileCache(cacheOptions(opts, config.root));
  const routes = new Map();
  let routesGeneration = cache.generation();
  const fallthroughs = new Set();
  let fallthroughChars = 0;
  let fallthroughsGeneration = routesGeneration;

  function middleware(req, res, next) {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      if (fallthrough) return callNext(req, res, next);
      res.statusCode = 405;
      res.setHeader('Allow', 'GET, HEAD');
      res.setHeader('Content-Length', '0');
      res.end();
      return;
    }
    // send validates some options per request; so do we, at the same moment.
    if (config.error) throw config.error;

    // Memo keys are pathnames as parseurl produces them; one never contains '?', '#' or raw
    // whitespace, so a raw URL equal to a key parses to that key: look it up before parsing.
    const rawUrl = req.url;
    let hit = rawUrl !== '/' ? routes.get(rawUrl) : undefined;
    let pathname = rawUrl;
    if (hit === undefined) {
      if (fallthroughs.size !== 0 && rawUrl !== '/' && fallthroughs.has(rawUrl) && fallthroughValid()) {
        return callNext(req, res, next);
      }
      pathname = parseUrl(req).pathname;
      // make sure the redirect happens at the mount point
      if (pathname === '/' && parseUrl.original(req).pathname.substr(-1) !== '/') pathname = '';
      hit = routes.get(pathname);
      if (hit === undefined && fallthroughs.size !== 0 && fallthroughs.has(pathname) && fallthroughValid()) {
        return callNext(req, res, next);
      }
    }
    if (hit !== undefined) {
      const generation = cache.touch(hit.file.id);
      if (generation === routesGeneration) {
        sendFile(req, res, next, hit, pathname);
        return;
      }
      routes.clear();
      routesGeneration = generation;
    }
    new Transfer(req, res, next, pathname).start();
  }

  // Whether the memoised fall-throughs still hold (the cache generation has not moved).
  function fallthroughValid() {
    if (cache.generation() === fallthroughsGeneration) return true;
    fallthroughs.clear();
    fallthroughChars = 0;
    return false;
  }

  function rememberFallthrough(pathname, generation) {
    if (pathname.length > MAX_FALLTHROUGH_LENGTH || cache.generation() !== generation) return;
    if (fallthroughsGeneration !== generation || fallthroughs.size >= MAX_FALLTHROUGHS ||
        fallthroughChars + pathname.length > MAX_FALLTHROUGH_CHARS) {
      fallthroughs.clear();
      fallthroughChars = 0;
      fallthroughsGeneration = generation;
    }
    if (!fallthroughs.has(pathname)) {
      fallthroughs.add(pathname);
      fallthroughChars += pathname.length;
    }
  }

  // One request on the slow path: resolves the URL path like SendStream.pipe.
  class Transfer {
    constructor(req, res, next, pathname) {
      this.req = req;
      this.res = res;
      this.next = next;
      this.path = pathname;
      this.forwardError = !fallthrough;
      this.generation = cache.generation();
      // every load so far answered `settled` (see rememberFallthrough)
      this.settled = true;
    }

    error(status, err) {
      if (!this.forwardError && status < 500) {
        // serve-static calls next() without the error: no need to build it
        if (this.settled) rememberFallthrough(this.path, this.generation);
        return callNext(this.req, this.res, this.next);
      }
      const httpError = !err
        ? createError(status)
        : err instanceof Error
          ? createError(status, err, { expose: false })
          : createError(status, err);
      if (this.forwardError || !(httpError.statusCode < 500)) callNext(this.req, this.res, this.next, httpError);
      else callNext(this.req, this.res, this.next);
    }

    hasTrailingSlash() {
      return this.path[this.path.length - 1] === '/';
    }

    start() {
      let p = decode(this.path);
      if (p === -1) return this.error(400);
      if (p.indexOf('\0') !== -1) return this.error(400);
      if (p) p = normalize('.' + sep + p);
      if (UP_PATH_REGEXP.test(p)) return this.error(403);
      const parts = p.split(sep);
      p = normalize(join(config.root, p));
      if (containsDotFile(parts)) {
        if (config.dotfiles === 'deny') return this.error(403);
        if (config.dotfiles !== 'allow') return this.error(404);
      }
      if (config.index.length && this.hasTrailingSlash()) return this.sendIndex(p);
      return this.sendFile(p);
    }

    onStatError(err) {
      switch (err.code) {
        case 'ENAMETOOLONG':
        case 'ENOENT':
        case 'ENOTDIR':
          return this.error(404, err);
        default:
          return this.error(500, err);
      }
    }

    // memory first, then the libuv pool; notes whether the answer may be memoised
    load(filePath, callback) {
      load(filePath, (result) => {
        if (result.settled !== true) this.settled = false;
        callback(result);
      });
    }

    sendFile(p) {
      let i = 0;
      const pathEndsWithSep = p[p.length - 1] === sep;
      const tryExtension = (err) => {
        if (config.extensions.length <= i) return err ? this.onStatError(err) : this.error(404);
        const candidate = p + '.' + config.extensions[i++];
        this.load(candidate, (result) => {
          if (result.status === 'error' || result.status === 'outsideRoot') return tryExtension(statError(result, candidate));
          if (result.status === 'directory') return tryExtension();
          this.found(candidate, result);
        });
      };
      this.load(p, (result) => {
        if (result.status === 'error' || result.status === 'outsideRoot') {
          const err = statError(result, p);
          if (err.code === 'ENOENT' && !extname(p) && !pathEndsWithSep) return tryExtension(err);
          return this.onStatError(err);
        }
        if (result.status === 'directory') return this.redirect();
        if (pathEndsWithSep) return this.error(404);
        this.found(p, result);
      });
    }

    sendIndex(p) {
      let i = -1;
      const nextIndex = (err) => {
        if (++i >= config.index.length) return err ? this.onStatError(err) : this.error(404);
        const candidate = join(p, config.index[i]);
        this.load(candidate, (result) => {
          if (result.status === 'error' || result.status === 'outsideRoot') return nextIndex(statError(result, candidate));
          if (result.status === 'directory') return nextIndex();
          this.found(candidate, result);
        });
      };
      nextIndex();
    }

    // serve-static's directory listener (redirect: true) or its 404 (redirect: false).
    redirect() {
      if (!redirect || this.hasTrailingSlash()) return this.error(404);
      const originalUrl = parseUrl.original(this.req);
      originalUrl.path = null;
      originalUrl.pathname = collapseLeadingSlashes(originalUrl.pathname + '/');
      const loc = encodeUrl(url.format(originalUrl));
      const doc = createHtmlDocument('Redirecting', 'Redirecting to ' + escapeHtml(loc));
      const res = this.res;
      res.statusCode = 301;
      res.setHeader('Content-Type', 'text/html; charset=UTF-8');
      res.setHeader('Content-Length', Buffer.byteLength(doc));
      res.setHeader('Content-Security-Policy', "default-src 'none'");
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Location', loc);
      res.end(doc);
    }

    found(filePath, result) {
      // once a file is determined, errors are always forwarded
      this.forwardError = true;
      if (result.body !== undefined) {
        const record = makeRecord(filePath, result, config);
        if (cache.generation() === this.generation && result.cached) {
          if (routesGeneration !== this.generation) {
            routes.clear();
            routesGeneration = this.generation;
          }
          if (routes.size >= MAX_ROUTES) routes.clear();
          routes.set(this.path, record);
        }
        sendFile(this.req, this.res, this.next, record, this.path);
      } else {
        streamFile(this.req, this.res, this.next, filePath);
      }
    }
  }

  // memory first (no system call, no thread hop), then a load on the libuv pool
  function load(filePath, callback) {
    const hit = cache.lookup(filePath);
    if (hit.status === 'hit') return callback(hit);
    cache.load(filePath, callback, config.root); // misses under our root can be settled, shared cache or not
  }

  // SendStream.send for a cached file
  function sendFile(req, res, next, record) {
    if (res.headersSent) {
      return forwardError(req, res, next, createError(500, new Error("Can't set headers after they are sent."), { expose: false }));
    }
    let variant = record;
    if (config.compress && record.compressible) {
      variant = chooseVariant(req, record);
      appendVary(res);
    }
    setFileHeaders(res, record.path, record, variant.etag);
    if (variant !== record) res.setHeader('Content-Encoding', variant.encoding);
    const body = variant.body;
    const span = respond(req, res, next, body.length);
    if (span === FULL) res.end(body);
    else if (span !== DONE) res.end(body.subarray(span.start, span.end + 1));
  }

  // send's streaming path for files over maxFileSize (and FIFOs and the like). The file is opened
  // first and the headers come from that descriptor's fstat, so the body sent is always the
  // length announced (lib/static/send-file-stream.js): a rename-replace keeps sending the old
  // version whole, a file that shrinks mid-stream ends the connection at once.
  function streamFile(req, res, next, filePath) {
    if (res.headersSent) {
      return forwardError(req, res, next, createError(500, new Error("Can't set headers after they are sent."), { expose: false }));
    }
    openFileForStream(filePath, (err, fd, stat) => {
      if (err) return forwardError(req, res, next, streamError(err));
      if (stat.isDirectory()) {
        // replaced by a directory since it was found: as if it had vanished
        fs.close(fd, () => {});
        return forwardError(req, res, next, createError(404));
      }
      if (res.headersSent) {
        fs.close(fd, () => {});
        return forwardError(req, res, next, createError(500, new Error("Can't set headers after they are sent."), { expose: false }));
      }
      const record = {
        path: filePath,
        stat,
        type: contentTypeOf(filePath),
        lastModified: stat.mtime.toUTCString(),
      };
      setFileHeaders(res, filePath, record, statTag(stat));
      const span = respond(req, res, next, stat.size);
      if (span === DONE || stat.size === 0) {
        fs.close(fd, () => {});
        if (span !== DONE) res.end();
        return;
      }
      sendFileStream(fd, stat, span === FULL ? { start: 0, end: stat.size - 1 } : span, res);
    });
  }

  // SendStream.setHeader + SendStream.type
  function setFileHeaders(res, filePath, record, etag) {
    if (setHeaders) setHeaders(res, filePath, record.stat || (record.stat = statsOf(record.result.stat)));
    if (config.acceptRanges && !res.getHeader('Accept-Ranges')) res.setHeader('Accept-Ranges', 'bytes');
    if (config.cacheControl && !res.getHeader('Cache-Control')) res.setHeader('Cache-Control', config.cacheControlValue);
    if (config.lastModified && !res.getHeader('Last-Modified')) res.setHeader('Last-Modified', record.lastModified);
    if (config.etag && !res.getHeader('ETag')) res.setHeader('ETag', etag);
    if (!res.getHeader('Content-Type')) res.setHeader('Content-Type', record.type);
  }

  // Conditional GET, ranges, Content-Length, HEAD: the rest of SendStream.send. Returns DONE
  // (answered: 304, 412, 416 or HEAD), FULL (send the whole body) or the { start, end } to send.
  function respond(req, res, next, length) {
    const headers = req.headers;
    if (headers['if-match'] || headers['if-unmodified-since'] || headers['if-none-match'] || headers['if-modified-since']) {
      if (isPreconditionFailure(req, res)) {
        forwardError(req, res, next, createError(412));
        return DONE;
      }
      const status = res.statusCode;
      if (((status >= 200 && status < 300) || status === 304) &&
          fresh(headers, { etag: res.getHeader('ETag'), 'last-modified': res.getHeader('Last-Modified') })) {
        res.removeHeader('Content-Encoding');
        res.removeHeader('Content-Language');
        res.removeHeader('Content-Length');
        res.removeHeader('Content-Range');
        res.removeHeader('Content-Type');
        res.statusCode = 304;
        res.end();
        return DONE;
      }
    }
    let offset = 0;
    let len = length;
    let ranges = headers.range;
    let span = FULL;
    if (ranges !== undefined && config.acceptRanges && BYTES_RANGE_REGEXP.test(ranges)) {
      ranges = parseRange(len, ranges, { combine: true });
      if (!isRangeFresh(req, res)) ranges = -2;
      if (ranges === -1) {
        res.setHeader('Content-Range', 'bytes */' + len);
        forwardError(req, res, next, createError(416, { headers: { 'Content-Range': res.getHeader('Content-Range') } }));
        return DONE;
      }
      if (ranges !== -2 && ranges.length === 1) {
        res.statusCode = 206;
        res.setHeader('Content-Range', 'bytes ' + ranges[0].start + '-' + ranges[0].end + '/' + len);
        offset = ranges[0].start;
        len = ranges[0].end - ranges[0].start + 1;
      }
    }
    res.setHeader('Content-Length', len);
    if (req.method === 'HEAD') {
      res.end();
      return DONE;
    }
    if (span === FULL && offset === 0 && len === length) return FULL;
    return { start: offset, end: Math.max(offset, offset + len - 1) };
  }

  function chooseVariant(req, record) {
    const variants = cache.variantsOf(record.file.id);
    if (variants === undefined) {
      compressVariants(cache, record.file);
      return record;
    }
    const encoding = chooseEncoding(req.headers['accept-encoding'], variants);
    return encoding ? variants[encoding] : record;
  }

  // An error once the file is known: always forwarded (serve-static's `file` listener).
  function forwardError(req, res, next, err) {
    callNext(req, res, next, err);
  }

  middleware.cache = cache;
  // the cache's counters, plus the sizes of this middleware's memos
  middleware.stats = () => Object.assign(cache.stats(), { memoRoutes: routes.size, memoFallthroughs: fallthroughs.size });
  middleware.close = () => cache.close();
  if (opts.preload) {
    // With compress, the variants are made during preload too (one file at a time).
    const onFile = config.compress
      ? (result, filePath) => (isCompressible(contentTypeOf(filePath)) ? compressVariants(cache, result) : undefined)
      : undefined;
    cache.preload(config.root, { dotfiles: config.dotfiles === 'allow', onFile });
  }
  return middleware;
}

// Without a `next` (plain node:http), answer as send does when nobody listens for errors.
function callNext(req, res, next, err) {
  if (typeof next === 'function') return next(err);
  const status = err ? err.statusCode || 500 : 404;
  const doc = createHtmlDocument('Error', escapeHtml(statuses.message[status] || String(status)));
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  if (err && err.headers) for (const key of Object.keys(err.headers)) res.setHeader(key, err.headers[key]);
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=UTF-8');
  res.setHeader('Content-Length', Buffer.byteLength(doc));
  res.setHeader('Content-Security-Policy', "default-src 'none'");
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(doc);
}

// send's option handling. Errors send throws per request are kept to be thrown then.
function sendConfig(opts, root) {
  const config = { root };
  try {
    config.acceptRanges = opts.acceptRanges !== undefined ? Boolean(opts.acceptRanges) : true;
    config.cacheControl = opts.cacheControl !== undefined ? Boolean(opts.cacheControl) : true;
    config.etag = opts.etag !== undefined ? Boolean(opts.etag) : true;
    config.dotfiles = opts.dotfiles !== undefined ? opts.dotfiles : 'ignore';
    if (config.dotfiles !== 'ignore' && config.dotfiles !== 'allow' && config.dotfiles !== 'deny') {
      throw new TypeError('dotfiles option must be "allow", "deny", or "ignore"');
    }
    config.extensions = opts.extensions !== undefined ? normalizeList(opts.extensions, 'extensions option') : [];
    config.immutable = opts.immutable !== undefined ? Boolean(opts.immutable) : false;
    config.index = opts.index !== undefined ? normalizeList(opts.index, 'index option') : ['index.html'];
    config.lastModified = opts.lastModified !== undefined ? Boolean(opts.lastModified) : true;
    let maxage = opts.maxAge || opts.maxage;
    maxage = typeof maxage === 'string' ? ms(maxage) : Number(maxage);
    maxage = !isNaN(maxage) ? Math.min(Math.max(0, maxage), MAX_MAXAGE) : 0;
    config.cacheControlValue = 'public, max-age=' + Math.floor(maxage / 1000) + (config.immutable ? ', immutable' : '');
  } catch (err) {
    config.error = err;
  }
  config.compress = Boolean(opts.compress);
  return config;
}

// FileCache validates maxBytes/maxFileSize itself (TypeError/RangeError naming options.<name>).
function cacheOptions(opts, root) {
  const out = { root, maxBytes: opts.maxBytes, maxFileSize: opts.maxFileSize };
  if (opts.allowSymlinksOutsideRoot !== undefined) out.allowOutsideRoot = Boolean(opts.allowSymlinksOutsideRoot);
  if (opts.watch !== undefined) out.watch = Boolean(opts.watch);
  return out;
}

// What a cached file needs per response, computed once per file version and URL path.
function makeRecord(filePath, result, config) {
  const type = contentTypeOf(filePath);
  return {
    path: filePath,
    file: result,
    body: result.body,
    etag: result.etag,
    result,
    stat: undefined, // built on demand for setHeaders
    type,
    compressible: config.compress && isCompressible(type),
    lastModified: lastModifiedOf(result.stat), // rounded as fs.Stats rounds it
  };
}

function contentTypeOf(filePath) {
  return mime.contentType(extname(filePath)) || 'application/octet-stream';
}

function appendVary(res) {
  const vary = res.getHeader('Vary');
  if (!vary) res.setHeader('Vary', 'Accept-Encoding');
  else if (!/(?:^|,)\s*(?:accept-encoding|\*)\s*(?:,|$)/i.test(String(vary))) res.setHeader('Vary', vary + ', Accept-Encoding');
}

// send's stat-based tag (etag@1.8.1 for fs.Stats), for files streamed from disk
function statTag(stat) {
  return 'W/"' + stat.size.toString(16) + '-' + stat.mtime.getTime().toString(16) + '"';
}

function isPreconditionFailure(req, res) {
  const match = req.headers['if-match'];
  if (match) {
    const etag = res.getHeader('ETag');
    return !etag || (match !== '*' && parseTokenList(match).every((m) => m !== etag && m !== 'W/' + etag && 'W/' + m !== etag));
  }
  const unmodifiedSince = parseHttpDate(req.headers['if-unmodified-since']);
  if (!isNaN(unmodifiedSince)) {
    const lastModified = parseHttpDate(res.getHeader('Last-Modified'));
    return isNaN(lastModified) || lastModified > unmodifiedSince;
  }
  return false;
}

function isRangeFresh(req, res) {
  const ifRange = req.headers['if-range'];
  if (!ifRange) return true;
  if (ifRange.indexOf('"') !== -1) {
    const etag = res.getHeader('ETag');
    return Boolean(etag && ifRange.indexOf(etag) !== -1);
  }
  return parseHttpDate(res.getHeader('Last-Modified')) <= parseHttpDate(ifRange);
}

// send's mapping of a failed open of a file it had found
function streamError(err) {
  switch (err.code) {
    case 'ENAMETOOLONG':
    case 'ENOENT':
    case 'ENOTDIR':
      return createError(404, err, { expose: false });
    default:
      return createError(500, err, { expose: false });
  }
}

// fs.Stats-shaped object for setHeaders(res, path, stat)
function statsOf(s) {
  return new FileStats(s);
}

function collapseLeadingSlashes(str) {
  let i = 0;
  while (i < str.length && str.charCodeAt(i) === 0x2f) i++;
  return i > 1 ? '/' + str.substr(i) : str;
}

function containsDotFile(parts) {
  for (const part of parts) if (part.length > 1 && part[0] === '.') return true;
  return false;
}

function createHtmlDocument(title, body) {
  return '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>' + title +
    '</title>\n</head>\n<body>\n<pre>' + body + '</pre>\n</body>\n</html>\n';
}

function decode(p) {
  try {
    return decodeURIComponent(p);
  } catch {
    return -1;
  }
}

function normalizeList(val, name) {
  const list = [].concat(val || []);
  for (const item of list) {
    if (typeof item !== 'string') throw new TypeError(name + ' must be array of strings or false');
  }
  return list;
}

function parseHttpDate(date) {
  const timestamp = date && Date.parse(date);
  return typeof timestamp === 'number' ? timestamp : NaN;
}

function parseTokenList(str) {
  let end = 0;
  let start = 0;
  const list = [];
  for (let i = 0, len = str.length; i < len; i++) {
    switch (str.charCodeAt(i)) {
      case 0x20:
        if (start === end) start = end = i + 1;
        break;
      case 0x2c:
        if (start !== end) list.push(str.substring(start, end));
        start = end = i + 1;
        break;
      default:
        end = i + 1;
        break;
    }
  }
  if (start !== end) list.push(str.substring(start, end));
  return list;
}

module.exports = serveStatic;
module.exports.serveStatic = serveStatic;
module.exports.default = serveStatic;
module.exports.FileCache = FileCache;
