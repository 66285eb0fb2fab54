'use strict';
// @fastify/send 4's part of @fastify/static over the shared engine (lib/files/engine.js): the path
// resolution (decode, NUL, '..', dotfiles, index files, extensions, directories) with every stat
// answered by the native FileCache, and the response (headers, conditional GET, ranges) built as
// @fastify/send builds it, with the file's bytes sent from memory instead of a read stream.
// resolve() returns what @fastify/send returns, minus the stream:
//   { type: 'file', path, result }  (result: the cache's hit/load; no body past maxFileSize)
//   { type: 'directory', path }     (a directory named without its trailing slash)
//   { type: 'error', error }        (an http-errors error: 400, 403, 404 or 500; error.cause = fs error)
const path = require('path');
const createError = require('http-errors');
const { statError, statStatus } = require('../files/stat-error');
const { UP_PATH_REGEXP, decodePath, containsDotFile } = require('../files/paths');
const { SettledLoads } = require('../files/settled-loads');

const { extname, join, normalize, resolve, sep } = path;
const DOTFILES = { allow: 0, ignore: 1, deny: 2 };

function httpError(status, err) {
  if (!err) return createError(status);
  return err instanceof Error ? createError(status, err, { expose: false }) : createError(status, err);
}

function errorOf(status, err) {
  return { type: 'error', error: httpError(status, err), code: err && err.code };
}

function statErrorOf(err) {
  const status = statStatus(err.code);
  return errorOf(status, err);
}

/** SettledLoads whose load() is a promise: @fastify/send's steps await each load. */
class Lookup extends SettledLoads {
  load(filePath) {
    return this.get(filePath);
  }
}

function failed(result) {
  return result.status === 'error' || result.status === 'outsideRoot';
}

/** @fastify/send's send(request, encodedPath, options) as far as choosing the file. */
async function resolveFile(lookup, encodedPath, config) {
  let p = decodePath(encodedPath);
  if (p === null || p.indexOf('\0') !== -1) return errorOf(400);
  let parts;
  if (config.root !== null) {
    if (p) p = normalize('.' + sep + p);
    if (UP_PATH_REGEXP.test(p)) return errorOf(403);
    parts = p.split(sep);
    p = normalize(join(config.root, p));
  } else {
    if (UP_PATH_REGEXP.test(p)) return errorOf(403);
    parts = normalize(p).split(sep);
    p = resolve(p);
  }
  if (config.dotfiles !== DOTFILES.allow && containsDotFile(parts))
    return errorOf(config.dotfiles === DOTFILES.deny ? 403 : 404);
  if (config.index.length && encodedPath[encodedPath.length - 1] === '/') {
    let err;
    for (const name of config.index) {
      const candidate = join(p, name);
      const result = await lookup.load(candidate);
      if (failed(result)) {
        err = statError(result, candidate);
        continue;
      }
      if (result.status === 'directory') continue;
      return { type: 'file', path: candidate, result };
    }
    return err ? statErrorOf(err) : errorOf(404);
  }
  const result = await lookup.load(p);
  if (failed(result)) {
    const err = statError(result, p);
    if (err.code !== 'ENOENT' || extname(p) || p[p.length - 1] === sep) return statErrorOf(err);
    let last = err;
    for (const extension of config.extensions) {
      const candidate = p + '.' + extension;
      const found = await lookup.load(candidate);
      if (failed(found)) {
        last = statError(found, candidate);
        continue;
      }
      if (found.status === 'directory') {
        last = null;
        continue;
      }
      return { type: 'file', path: candidate, result: found };
    }
    return last ? statErrorOf(last) : errorOf(404);
  }
  if (result.status === 'directory') {
    return encodedPath[encodedPath.length - 1] === '/' ? errorOf(403) : { type: 'directory', path: p };
  }
  return { type: 'file', path: p, result };
}

module.exports = { Lookup, resolveFile, DOTFILES };
