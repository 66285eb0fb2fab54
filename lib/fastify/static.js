'use strict';
// fastifyStatic: a drop-in for @fastify/static 10.1 on Fastify 4 and 5. The same options, routes,
// decorators (reply.sendFile, reply.download), refusals and errors, with every file answered by the
// shared static engine from native memory (lib/static-engine over the C++ FileCache): no stat, no
// open, no read stream per request, and a remembered URL answered without any lookup at all.
// Differences (docs/fastify.md): the ETag is the content's CRC-32; Content-Type comes from
// mime-types 3 (current mime-db); `list` (directory listings) is refused.
const fs = require('fs');
const path = require('path');
const contentDisposition = require('./content-disposition');
const { FileCache } = require('../static/file-cache');
const { fileRangeStream } = require('../static/send-file-stream');
const { StaticEngine, statsOf, statTag, charsetContentTypeOf: contentTypeOf } = require('../static-engine');
const errors = require('./errors');
const { Lookup, resolveFile } = require('./send');
const { plan } = require('../static-engine/plan');
const { memoKey, configOf, addVaryAcceptEncoding, listFiles, normalizeRoot, checkRoot } = require('./static-options');
const { negotiateEncoding, ENCODING_EXTENSIONS } = require('./precompressed');
const paths = require('./static-paths');
const { asPlugin } = require('./plugin-meta');

const { FST_STATIC_INVALID_OPTION, FST_STATIC_INVALID_OPTION_VALUE, FST_STATIC_FORBIDDEN_PATH } = errors;

async function fastifyStatic(fastify, opts) {
  if (opts.serve !== false || opts.root !== undefined) {
    opts.root = normalizeRoot(opts.root);
    checkRoot(fastify, opts.root, opts.suppressWarning === true);
  }
  const setHeaders = opts.setHeaders;
  if (setHeaders !== undefined && typeof setHeaders !== 'function')
    throw new FST_STATIC_INVALID_OPTION_VALUE('setHeaders', 'must be a function');
  if (opts.list !== undefined && opts.list !== false) {
    throw new FST_STATIC_INVALID_OPTION(
      'list',
      'is not supported by ssr-native/fastify (directory listings): use @fastify/static for them',
    );
  }
  // globIgnore hides files from wildcard: false routes: silently serving them would expose them
  if (opts.globIgnore !== undefined && opts.wildcard === false) {
    throw new FST_STATIC_INVALID_OPTION(
      'globIgnore',
      'is not supported by ssr-native/fastify: use @fastify/static, or allowedPath',
    );
  }
  if (opts.wildcard !== undefined && typeof opts.wildcard !== 'boolean' && opts.wildcard)
    throw new FST_STATIC_INVALID_OPTION_VALUE('wildcard', 'must be a boolean');
  opts.dotfiles ??= 'allow';
  const sendOptions = {
    root: opts.root,
    acceptRanges: opts.acceptRanges,
    contentType: opts.contentType,
    cacheControl: opts.cacheControl,
    dotfiles: opts.dotfiles,
    etag: opts.etag,
    extensions: opts.extensions,
    immutable: opts.immutable,
    index: opts.index,
    lastModified: opts.lastModified,
    maxAge: opts.maxAge,
    onFile: opts.onFile,
  };
  const roots = opts.root === undefined ? [] : [].concat(opts.root).map((r) => path.resolve(r));
  const cache =
    opts.cache instanceof FileCache
      ? opts.cache
      : new FileCache({
          root: roots.length === 1 ? roots[0] : undefined,
          maxBytes: opts.maxBytes,
          maxFileSize: opts.maxFileSize,
        });
  const engines = new Map(roots.map((root) => [root, new StaticEngine(cache, { top: root })]));
  const fallbackEngine = new StaticEngine(cache);
  const routes = (roots.length ? engines.get(roots[0]) : fallbackEngine).routes;
  const baseConfig = configOf(sendOptions);
  const allowedPath = opts.allowedPath;
  // a URL's answer may be remembered only when nothing but the URL (and Accept-Encoding) decides it
  const rememberable = allowedPath === undefined && opts.onFile === undefined;
  let prefix = (opts.prefix ??= '/');
  if (!opts.prefixAvoidTrailingSlash && prefix[prefix.length - 1] !== '/') prefix += '/';
  const routeOptions = {
    constraints: opts.constraints,
    schema: { hide: opts.schemaHide ?? true },
    logLevel: opts.logLevel,
    errorHandler(error, request, reply) {
      if (error?.code === 'ERR_STREAM_PREMATURE_CLOSE') return void reply.request.raw.destroy();
      return fastify.errorHandler(error, request, reply);
    },
  };

  if (opts.decorateReply !== false) {
    fastify.decorateReply('sendFile', function sendFile(filePath, rootPath, options) {
      const o = typeof rootPath === 'object' ? rootPath : options;
      const root = typeof rootPath === 'string' ? rootPath : o?.root;
      pump(this.request, this, filePath, root || sendOptions.root, 0, o).catch((error) => this.send(error));
      return this;
    });
    fastify.decorateReply('download', function download(filePath, fileName, options = {}) {
      const { root, ...o } = typeof fileName === 'object' ? fileName : options;
      fileName = typeof fileName === 'string' ? fileName : filePath;
      this.header('content-disposition', contentDisposition(path.basename(fileName)));
      pump(this.request, this, filePath, root || sendOptions.root, 0, o).catch((error) => this.send(error));
      return this;
    });
  }

  if (opts.serve !== false) {
    if (opts.wildcard === undefined || opts.wildcard === true) {
      let matchPrefix;
      fastify.route({
        ...routeOptions,
        method: ['HEAD', 'GET'],
        path: prefix + '*',
        handler(req, reply) {
          const url = req.raw.url;
          const key = rememberable && req.headers !== undefined ? memoKey(url, req.headers) : undefined;
          if (key !== undefined) {
            const record = routes.get(key);
            if (record !== undefined) return sendRecord(req, reply, record, baseConfig);
          }
          matchPrefix ??= paths.prefixMatcher(req.routeOptions.url);
          const pathname = paths.pathnameForSend(url, matchPrefix);
          if (pathname === null) return reply.send(new FST_STATIC_FORBIDDEN_PATH());
          if (pathname === undefined) return reply.callNotFound();
          // @fastify/static checks each segment's spelling against readdir(); on a case-sensitive
          // file system only a name stat() rejects (a NUL, too long) fails that check (403)
          if (paths.unspellable(pathname, sendOptions.root)) return reply.send(new FST_STATIC_FORBIDDEN_PATH());
          return pump(req, reply, pathname, sendOptions.root, 0, undefined, undefined, key);
        },
      });
      if (opts.redirect === true && prefix !== opts.prefix) {
        fastify.get(opts.prefix, routeOptions, (req, reply) => reply.redirect(paths.redirectUrl(req.raw.url), 301));
      }
    } else {
      registerFileRoutes();
    }
  }

  // wildcard: false: one GET/HEAD route per file found now (and per directory with an index)
  function registerFileRoutes() {
    const indexes = new Set(opts.index === undefined ? ['index.html'] : [].concat(opts.index));
    const indexDirs = new Map();
    const seen = new Set();
    const add = (url, file, rootPath) =>
      fastify.route({
        ...routeOptions,
        method: ['HEAD', 'GET'],
        url,
        config: { file, rootPath },
        handler: (req, reply) => pump(req, reply, file, rootPath),
      });
    for (let rootPath of roots) {
      rootPath = rootPath.split(path.win32.sep).join('/');
      if (!rootPath.endsWith('/')) rootPath += '/';
      for (const file of listFiles(rootPath, opts.serveDotFiles === true)) {
        const route = prefix + file;
        if (seen.has(route)) continue;
        seen.add(route);
        add(route, '/' + file, rootPath);
        const dir = path.posix.dirname(route);
        if (indexes.has(path.posix.basename(route)) && !indexDirs.has(dir)) indexDirs.set(dir, rootPath);
      }
    }
    for (const [dirname, rootPath] of indexDirs) {
      const pathname = dirname + (dirname.endsWith('/') ? '' : '/');
      const file = '/' + pathname.replace(prefix, '');
      add(pathname, file, rootPath);
      if (opts.redirect === true) add(pathname.replace(/\/$/u, ''), file.replace(/\/$/u, ''), rootPath);
    }
  }

  // @fastify/static's pumpSendToReply: one root at a time, precompressed siblings first
  async function pump(request, reply, pathname, rootPath, rootOffset = 0, pumpOptions, checkedEncodings, key) {
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
    if (config.error) throw config.error;
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
      return sendFound(
        request,
        reply,
        found,
        config,
        encoding ? pathname : undefined,
        encoding,
        key,
        generation,
        lookup,
        engine,
      );
    }
    if (found.type === 'directory') {
      if (opts.redirect === true) return reply.redirect(paths.redirectUrl(request.raw.url), 301);
      if (!pathname.endsWith('/') && (await findIndexFile(lookup, resolvedRoot, pathname, options.index))) {
        return pump(request, reply, pathname + '/', rootPath, undefined, pumpOptions, checkedEncodings);
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
        return pump(request, reply, pathname + '/', rootPath, undefined, pumpOptions, checkedEncodings);
      }
      if (encoding) {
        checkedEncodings.add(encoding);
        return pump(
          request,
          reply,
          pathnameOrig,
          rootPath,
          rootOffset,
          pumpOptions,
          checkedEncodings,
          lookup.settled ? key : undefined,
        );
      }
      if (Array.isArray(rootPath) && rootOffset < rootPath.length - 1) {
        return pump(
          request,
          reply,
          pathname,
          rootPath,
          rootOffset + 1,
          pumpOptions,
          undefined,
          lookup.settled ? key : undefined,
        );
      }
      return reply.callNotFound();
    }
    if (found.error.status === 404) return reply.callNotFound();
    return reply.send(found.error);
  }

  function sendFound(request, reply, found, config, originalPathname, encoding, key, generation, lookup, engine) {
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
  function sendRecord(request, reply, record, config) {
    const p = plan(
      request.headers,
      request.raw.method,
      config,
      record.encoding ? contentTypeOf(record.path) : record.type,
      record.body.length,
      record.lastModified,
      record.etag,
    );
    if (p.error) return reply.send(p.error);
    finishHeaders(reply, p, record.path, statsOf(record), record);
    // HEAD gets the bytes too (node writes no body for HEAD): Fastify's HEAD route then counts
    // the Content-Length @fastify/send announced, as it does not for a stream
    const span = p.span === null && p.status !== 304 ? p.range : p.span;
    const body =
      p.status === 304
        ? undefined
        : span === undefined || span === null
          ? record.body
          : record.body.subarray(span.start, span.end + 1);
    return reply.send(body);
  }

  function finishHeaders(reply, p, filePath, stats, record) {
    reply.code(reply.statusCode !== 200 ? reply.statusCode : p.status);
    reply.headers(p.headers);
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
          if (err.directory || err.code === 'ENOENT' || err.code === 'ENOTDIR' || err.code === 'ENAMETOOLONG')
            return resolvePromise(reply.callNotFound());
          return resolvePromise(reply.send(err));
        }
        const p = plan(
          request.headers,
          request.raw.method,
          config,
          contentTypeOf(filePath),
          stat.size,
          stat.mtime.toUTCString(),
          statTag(stat),
        );
        if (p.error || p.span === null || stat.size === 0) fs.close(fd, () => {});
        if (p.error) return resolvePromise(reply.send(p.error));
        const record = {
          encoding,
          type: originalPathname !== undefined ? contentTypeOf(originalPathname) : undefined,
          vary: opts.preCompressed === true,
        };
        finishHeaders(reply, p, filePath, stat, record);
        if (p.span === null || stat.size === 0) return resolvePromise(reply.send());
        const span = p.span || { start: 0, end: stat.size - 1 };
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

  fastify.addHook('onClose', (instance, done) => {
    if (!(opts.cache instanceof FileCache)) cache.close();
    done();
  });
}

function statsOfResult(result) {
  return result.stat ? statsOf({ file: result }) : undefined;
}

module.exports = asPlugin(fastifyStatic, '@fastify/static', 'fastifyStatic');
module.exports.errors = errors;
