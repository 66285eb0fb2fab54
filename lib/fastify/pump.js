'use strict';
// @fastify/static's pumpSendToReply over the shared engine: one root at a time, precompressed
// siblings first, allowedPath and onFile, then the file found answered with @fastify/send's plan
// answer (lib/files/answer.js, 'fastify-send') from memory, or streamed from the descriptor that
// was fstat'ed.
// A URL whose answer depended on nothing but itself (and Accept-Encoding) is remembered.
const fs = require('fs');
const path = require('path');
const { fileRangeStream } = require('../files/file-stream');
const { statsOf, statTag, streamStatus, charsetContentTypeOf: contentTypeOf } = require('../files/engine');
const { errorOf, WHOLE, NONE } = require('../files/answer');
const { respond } = require('../files/respond');
const { Lookup, resolveFile } = require('./send');
const { sendAsset } = require('./asset-delta');
const { configOf, addVaryAcceptEncoding } = require('./static-options');
const { negotiateEncoding, ENCODING_EXTENSIONS } = require('./precompressed');
const paths = require('./static-paths');
const { FST_STATIC_FORBIDDEN_PATH } = require('./errors');

/**
 * The pump of one plugin registration. `mount`: { opts, sendOptions, baseConfig, engines (root ->
 * StaticEngine), fallbackEngine, routes (the RouteMemo), setHeaders }.
 */
function pumpOf({ opts, sendOptions, baseConfig, engines, fallbackEngine, routes, setHeaders, assets = null }) {
  const allowedPath = opts.allowedPath;
  // files/respond.js's steps for the mount's options: @fastify/send reads nothing off the reply,
  // so setHeaders and Vary come after its headers (finishHeaders)
  // A config other than the mount's is the one configOf() made for this very call (sendFile or
  // download with options; a route passes none), so it never recurs: a cache keyed by it (a
  // WeakMap) would never hit. Each answer takes its steps once instead.
  const baseHow = { options: baseConfig };
  const howOf = (config) => (config === baseConfig ? baseHow : { options: config });

  /**
   * Answers `request` with the file `what.pathname` names. `what`: { pathname, rootPath (a root
   * or a list of roots), rootOffset (the root of the list tried now), options (a sendFile /
   * download call's own @fastify/send options), checkedEncodings (precompressed encodings found
   * missing), key (the route memo's key of a URL that may be remembered) }.
   */
  async function pump(request, reply, what) {
    const { rootPath, rootOffset = 0, options: pumpOptions, key } = what;
    let { pathname, checkedEncodings } = what;
    const pathnameOrig = pathname;
    const normalizedPathname = paths.normalizeRequestPathname(pathname);
    const options = pumpOptions === undefined ? sendOptions : Object.assign({}, sendOptions, pumpOptions);
    const config = pumpOptions === undefined ? baseConfig : configOf(options);
    let root;
    if (rootPath) root = Array.isArray(rootPath) ? rootPath[rootOffset] : rootPath;
    else if (!path.isAbsolute(pathname)) return reply.callNotFound();
    if (paths.hasInnerDotDot(pathname)) return reply.send(new FST_STATIC_FORBIDDEN_PATH());
    const windowsPath = path.win32.isAbsolute(pathname) && !pathname.startsWith('/');
    if (!windowsPath && paths.isNonCanonical(pathname)) return reply.send(new FST_STATIC_FORBIDDEN_PATH());
    const resolvedRoot = root ? path.resolve(root) : null;
    const engine = (resolvedRoot && engines.get(resolvedRoot)) || fallbackEngine;
    const lookup = new Lookup(engine);
    let encoding;
    let pathnameForSend = pathname;
    if (opts.preCompressed) {
      checkedEncodings ??= new Set();
      encoding = negotiateEncoding(request.headers, checkedEncodings);
      if (encoding) {
        if (pathname.endsWith('/')) {
          const index = await findIndexFile(lookup, resolvedRoot, pathname, options.index);
          if (!index) return reply.callNotFound();
          pathname = index;
          pathnameForSend = pathnameForSend + pathname + ENCODING_EXTENSIONS[encoding];
        } else {
          pathnameForSend = pathname + ENCODING_EXTENSIONS[encoding];
        }
      }
    }
    if (allowedPath && !allowedPath(normalizedPathname, root, request)) return reply.callNotFound();
    // @fastify/send validates its options when it is called: a denial before that hides a bad one
    if (config.error) throw config.error;
    const generation = engine.generation();
    const found = await resolveFile(lookup, encodeURI(pathnameForSend), { ...config, root: resolvedRoot });
    if (found.type === 'file') {
      if (allowedPath || options.onFile) {
        let logical = found.path;
        const ext = ENCODING_EXTENSIONS[encoding];
        if (ext && logical.endsWith(ext)) logical = logical.slice(0, -ext.length);
        const finalPath = paths.finalPathname(logical, root, normalizedPathname.startsWith('/'));
        if (
          allowedPath &&
          (finalPath === undefined || (finalPath !== normalizedPathname && !allowedPath(finalPath, root, request)))
        ) {
          return reply.callNotFound();
        }
        if (options.onFile) await options.onFile(found.path, statsOfResult(found.result));
      }
      const originalPathname = encoding ? pathname : undefined;
      return sendFound(request, reply, found, { config, originalPathname, encoding, key, generation, lookup, engine });
    }
    if (found.type === 'directory') {
      if (opts.redirect === true) return reply.redirect(paths.redirectUrl(request.raw.url), 301);
      if (!pathname.endsWith('/') && (await findIndexFile(lookup, resolvedRoot, pathname, options.index))) {
        return pump(request, reply, { pathname: pathname + '/', rootPath, options: pumpOptions, checkedEncodings });
      }
      return reply.callNotFound();
    }
    if (found.code === 'ENOENT') {
      if (
        opts.preCompressed &&
        encoding &&
        opts.redirect !== true &&
        (await findIndexFile(lookup, resolvedRoot, pathname, options.index))
      ) {
        return pump(request, reply, { pathname: pathname + '/', rootPath, options: pumpOptions, checkedEncodings });
      }
      if (encoding) {
        checkedEncodings.add(encoding);
        return pump(request, reply, {
          pathname: pathnameOrig,
          rootPath,
          rootOffset,
          options: pumpOptions,
          checkedEncodings,
          key: lookup.settled ? key : undefined,
        });
      }
      if (Array.isArray(rootPath) && rootOffset < rootPath.length - 1) {
        return pump(request, reply, {
          pathname,
          rootPath,
          rootOffset: rootOffset + 1,
          options: pumpOptions,
          key: lookup.settled ? key : undefined,
        });
      }
      return reply.callNotFound();
    }
    if (found.error.status === 404) return reply.callNotFound();
    return reply.send(found.error);
  }

  /**
   * The file resolveFile() found, answered from memory (and remembered under `key` when every
   * load was settled and the options are the mount's) or streamed. `how`: { config,
   * originalPathname (the path before a precompressed sibling's extension), encoding, key,
   * generation, lookup, engine }. Called once per request that misses the route memo.
   */
  function sendFound(request, reply, found, how) {
    const { config, originalPathname, encoding, key, generation, lookup, engine } = how;
    const { result } = found;
    if (result.body === undefined) return sendStream(request, reply, found.path, config, originalPathname, encoding);
    const type = contentTypeOf(originalPathname !== undefined ? originalPathname : found.path);
    const record = engine.record(found.path, result, type, encoding, false);
    record.vary = opts.preCompressed === true;
    if (key !== undefined && result.cached && lookup.settled && config === baseConfig)
      routes.set(key, 0, record, generation);
    return sendRecord(request, reply, record, config);
  }

  // the file held in memory: @fastify/send's headers and decision, the bytes as a Buffer
  function sendRecord(request, reply, record, config, plain = false) {
    const steps = howOf(config);
    if (assets !== null && !plain) {
      // `dictionary`: a hashed file offered, a dcz delta (lib/fastify/asset-delta.js)
      const finish = (a) => finishHeaders(reply, a, record.path, statsOf(record), record);
      const plainly = () => sendRecord(request, reply, record, config, true);
      const pending = sendAsset(request, reply, record, { assets, steps, finish, plain: plainly });
      if (pending !== undefined) return pending;
    }
    // a precompressed sibling is answered as @fastify/send answers its own path (its type, which
    // finishHeaders then replaces with the original path's)
    const file = record.encoding === undefined ? record : siblingFile(record);
    const a = respond('fastify-send', request, undefined, record, steps, file);
    if (a.status === 412 || a.status === 416) return reply.send(errorOf(a));
    finishHeaders(reply, a, record.path, statsOf(record), record);
    // HEAD gets the bytes too (node writes no body for HEAD): Fastify's HEAD route then counts
    // the Content-Length @fastify/send announced, as it does not for a stream
    return reply.send(a.body);
  }

  function finishHeaders(reply, a, filePath, stats, record) {
    reply.code(reply.statusCode !== 200 ? reply.statusCode : a.status);
    reply.headers(a.headers);
    if (setHeaders) setHeaders(reply, filePath, stats);
    if (record.vary) addVaryAcceptEncoding(reply);
    if (record.encoding) {
      reply.header('content-type', record.type);
      reply.header('content-encoding', record.encoding);
    }
  }

  // past maxFileSize (or not a regular file): from the descriptor whose fstat gave the headers
  function sendStream(request, reply, filePath, config, originalPathname, encoding) {
    return new Promise((resolvePromise) => {
      fallbackEngine.openStream(filePath, (err, fd, stat) => {
        if (err) {
          // vanished (or a directory now): send's 404, which @fastify/static turns into callNotFound
          if (streamStatus(err) === 404) return resolvePromise(reply.callNotFound());
          return resolvePromise(reply.send(err));
        }
        const lastModified = stat.mtime.toUTCString();
        const type = contentTypeOf(filePath);
        const file = { path: filePath, stats: stat, size: stat.size, etag: statTag(stat), lastModified, type };
        // no record: a file streamed from disk is all respond() is given
        const a = respond('fastify-send', request, undefined, null, howOf(config), file);
        const head = request.raw.method === 'HEAD';
        if (a.span === NONE || head || stat.size === 0) fs.close(fd, () => {});
        if (a.status === 412 || a.status === 416) return resolvePromise(reply.send(errorOf(a)));
        const record = {
          encoding,
          type: originalPathname !== undefined ? contentTypeOf(originalPathname) : undefined,
          vary: opts.preCompressed === true,
        };
        finishHeaders(reply, a, filePath, stat, record);
        if (a.span === NONE || head || stat.size === 0) return resolvePromise(reply.send());
        const span = a.span === WHOLE ? { start: 0, end: stat.size - 1 } : a.span;
        resolvePromise(reply.send(fileRangeStream(fd, { start: span.start, end: span.end, res: reply.raw })));
      });
    });
  }

  async function findIndexFile(lookup, root, pathname, indexFiles = ['index.html']) {
    if (!Array.isArray(indexFiles)) return false;
    for (const name of indexFiles) {
      const result = await lookup.load(path.join(root || '', pathname, name));
      if (result.status !== 'error' && result.status !== 'outsideRoot' && result.status !== 'directory') return name;
    }
    return undefined;
  }

  return { pump, sendRecord };
}

// a precompressed sibling's record as @fastify/send sees the file: typed by its own path
function siblingFile(record) {
  const { body, size, etag, lastModified } = record;
  return { body, size, etag, lastModified, type: contentTypeOf(record.path) };
}

function statsOfResult(result) {
  return result.stat ? statsOf({ file: result }) : undefined;
}

module.exports = { pumpOf };
