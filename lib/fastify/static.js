'use strict';
// fastifyStatic: a drop-in for @fastify/static 10.1 on Fastify 4 and 5. The same options, routes,
// decorators (reply.sendFile, reply.download), refusals and errors, with every file answered by the
// shared static engine from native memory (lib/files/engine.js over the C++ FileCache): no stat, no
// open, no read stream per request, and a remembered URL answered without any lookup at all.
// Differences (docs/fastify.md): the ETag is the content's CRC-32; Content-Type comes from
// mime-types 3 (current mime-db); `list` (directory listings) is refused.
const { peerOptions } = require('../options');
const path = require('path');
const contentDisposition = require('./content-disposition');
const { FileCache } = require('../files/file-cache');
const { StaticEngine } = require('../files/engine');
const { AssetDictionaries } = require('../compression/asset-dictionaries');
const errors = require('./errors');
const { pumpOf } = require('./pump');
const { memoKey, configOf, listFiles, normalizeRoot, checkRoot } = require('./static-options');
const paths = require('./static-paths');
const { asPlugin } = require('./plugin-meta');

const { FST_STATIC_INVALID_OPTION, FST_STATIC_INVALID_OPTION_VALUE, FST_STATIC_FORBIDDEN_PATH } = errors;

// @fastify/static 8-10's options (with @fastify/send's and Fastify's own register options), then
// ssr-native's; the plugin ignores other names, so they draw one warning (lib/options.js)
const FASTIFY_STATIC_OPTIONS = [
  ...['root', 'prefix', 'prefixAvoidTrailingSlash', 'serve', 'decorateReply', 'schemaHide', 'setHeaders'],
  ...['redirect', 'wildcard', 'globIgnore', 'list', 'allowedPath', 'index', 'preCompressed', 'constraints'],
  ...['logLevel', 'acceptRanges', 'contentType', 'cacheControl', 'dotfiles', 'serveDotFiles', 'etag'],
  ...['extensions', 'immutable', 'lastModified', 'maxAge', 'maxage', 'onFile', 'suppressWarning', 'start', 'end'],
  ...['logSerializers', 'exposeHeadRoutes', 'cache', 'dictionary', 'maxBytes', 'maxFileSize', 'watch'],
];

async function fastifyStatic(fastify, opts) {
  peerOptions(opts, FASTIFY_STATIC_OPTIONS, 'fastifyStatic options');
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
  // `dictionary`: hashed files offered as dictionaries, dcz deltas (lib/fastify/asset-delta.js)
  const assets = AssetDictionaries.from(opts.dictionary, 'fastifyStatic');
  const mount = { opts, sendOptions, baseConfig, engines, fallbackEngine, routes, setHeaders, assets };
  const { pump, sendRecord } = pumpOf(mount);
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
      pump(this.request, this, { pathname: filePath, rootPath: root || sendOptions.root, options: o }).catch((error) =>
        this.send(error),
      );
      return this;
    });
    fastify.decorateReply('download', function download(filePath, fileName, options = {}) {
      const { root, ...o } = typeof fileName === 'object' ? fileName : options;
      fileName = typeof fileName === 'string' ? fileName : filePath;
      this.header('content-disposition', contentDisposition(path.basename(fileName)));
      pump(this.request, this, { pathname: filePath, rootPath: root || sendOptions.root, options: o }).catch((error) =>
        this.send(error),
      );
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
          return pump(req, reply, { pathname, rootPath: sendOptions.root, key });
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
        handler: (req, reply) => pump(req, reply, { pathname: file, rootPath }),
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

  fastify.addHook('onClose', (instance, done) => {
    if (!(opts.cache instanceof FileCache)) cache.close();
    done();
  });
}

module.exports = asPlugin(fastifyStatic, '@fastify/static', 'fastifyStatic');
module.exports.errors = errors;
