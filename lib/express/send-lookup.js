'use strict';
// One request on serveStatic's slow path: send 1.2's URL-to-file resolution (SendStream.pipe):
// decoding, NUL and traversal checks, dotfiles, index files, extensions, the directory redirect,
// and which failures fall through to next(). A file found goes to mount.found(); everything about
// answering with it is the engine's (lib/files/engine.js).
const url = require('url');
const path = require('path');
const encodeUrl = require('encodeurl');
const escapeHtml = require('escape-html');
const createError = require('http-errors');
const parseUrl = require('parseurl');
const { statError, statStatus } = require('../files/stat-error');
const { createHtmlDocument, writeHtml, callNext } = require('./send-html');
const { UP_PATH_REGEXP, decodePath, containsDotFile } = require('../files/paths');
const { SettledLoads } = require('../files/settled-loads');

const { extname, join, normalize, sep } = path;

class SendLookup {
  /** `mount`: { config, engine, fallthrough, redirect, found(transfer, filePath, result) } */
  constructor(mount, req, res, next, pathname) {
    this.mount = mount;
    this.config = mount.config;
    this.req = req;
    this.res = res;
    this.next = next;
    this.path = pathname;
    this.forwardError = !mount.fallthrough;
    this.generation = mount.engine.generation();
    // whether every load so far is `settled` (a miss may then be memoised)
    this.loads = new SettledLoads(mount.engine);
  }

  error(status, err) {
    if (!this.forwardError && status < 500) {
      // serve-static calls next() without the error: no need to build it
      if (this.loads.settled) this.mount.engine.misses.add(this.path, this.generation);
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
    const config = this.config;
    let p = decodePath(this.path);
    if (p === null) return this.error(400);
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
    return this.error(statStatus(err.code), err);
  }

  // memory first, then the libuv pool; notes whether the answer may be memoised
  load(filePath, callback) {
    this.loads.load(filePath, callback);
  }

  sendFile(p) {
    const extensions = this.config.extensions;
    let i = 0;
    const pathEndsWithSep = p[p.length - 1] === sep;
    const tryExtension = (err) => {
      if (extensions.length <= i) return err ? this.onStatError(err) : this.error(404);
      const candidate = p + '.' + extensions[i++];
      this.load(candidate, (result) => {
        if (result.status === 'error' || result.status === 'outsideRoot')
          return tryExtension(statError(result, candidate));
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
    const index = this.config.index;
    let i = -1;
    const nextIndex = (err) => {
      if (++i >= index.length) return err ? this.onStatError(err) : this.error(404);
      const candidate = join(p, index[i]);
      this.load(candidate, (result) => {
        if (result.status === 'error' || result.status === 'outsideRoot')
          return nextIndex(statError(result, candidate));
        if (result.status === 'directory') return nextIndex();
        this.found(candidate, result);
      });
    };
    nextIndex();
  }

  // serve-static's directory listener (redirect: true) or its 404 (redirect: false).
  redirect() {
    if (!this.mount.redirect || this.hasTrailingSlash()) return this.error(404);
    const originalUrl = parseUrl.original(this.req);
    originalUrl.path = null;
    originalUrl.pathname = collapseLeadingSlashes(originalUrl.pathname + '/');
    const loc = encodeUrl(url.format(originalUrl));
    const doc = createHtmlDocument('Redirecting', 'Redirecting to ' + escapeHtml(loc));
    writeHtml(this.res, 301, doc);
    this.res.setHeader('Location', loc);
    this.res.end(doc);
  }

  found(filePath, result) {
    // once a file is determined, errors are always forwarded
    this.forwardError = true;
    this.mount.found(this, filePath, result);
  }
}

function collapseLeadingSlashes(str) {
  let i = 0;
  while (i < str.length && str.charCodeAt(i) === 0x2f) i++;
  return i > 1 ? '/' + str.substr(i) : str;
}

module.exports = { SendLookup };
