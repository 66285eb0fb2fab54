'use strict';
// fastifyStatic's option handling and small helpers: @fastify/static's root checks (with its
// errors), the per-call @fastify/send config, the route-memo key, Vary, and the file list of
// `wildcard: false`.
const fs = require('fs');
const path = require('path');
const { fileURLToPath } = require('url');
const { sendConfig } = require('../files/send-config');
const { routeKey } = require('../files/route-memo');
const { fastifyStaticVary } = require('../http/vary');
const { DOTFILES } = require('./send');
const { FST_STATIC_INVALID_OPTION, FST_STATIC_INVALID_OPTION_VALUE } = require('./errors');

/** The route-memo key of a raw URL: its path and Accept-Encoding (which may pick a sibling). */
function memoKey(url, headers) {
  const query = url.indexOf('?');
  return routeKey(query === -1 ? url : url.slice(0, query), headers['accept-encoding']);
}

function configOf(options) {
  const config = sendConfig(options, typeof options.root === 'string' ? path.resolve(options.root) : null);
  if (config.error === undefined) {
    config.dotfiles = DOTFILES[config.dotfiles];
    config.contentType = options.contentType !== undefined ? Boolean(options.contentType) : true;
    if (options.onFile !== undefined && typeof options.onFile !== 'function')
      config.error = new TypeError('onFile option must be a function');
  }
  return config;
}

function addVaryAcceptEncoding(reply) {
  const vary = fastifyStaticVary(reply.getHeader('vary'));
  if (vary !== undefined) reply.header('vary', vary);
}

function listFiles(root, dot) {
  const out = [];
  const walk = (dir, rel) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      // glob (the peer's lister) skips a directory below the root it cannot read (EACCES) rather
      // than fail the registration
      if (rel === '') throw err;
      return;
    }
    for (const entry of entries) {
      if (!dot && entry.name[0] === '.') continue;
      const full = path.join(dir, entry.name);
      let stat;
      try {
        stat = fs.statSync(full);
      } catch {
        continue;
      }
      if (stat.isDirectory()) walk(full, rel + entry.name + '/');
      else out.push(rel + entry.name);
    }
  };
  walk(root, '');
  return out;
}

function normalizeRoot(root) {
  const one = (r) => (r instanceof URL && r.protocol === 'file:' ? fileURLToPath(r) : r);
  return root === undefined ? root : Array.isArray(root) ? root.map(one) : one(root);
}

function checkRoot(fastify, root, suppressWarning) {
  if (root === undefined) throw new FST_STATIC_INVALID_OPTION('root', 'is required');
  if (Array.isArray(root)) {
    if (!root.length) throw new FST_STATIC_INVALID_OPTION('root', 'array requires one or more paths');
    if (new Set(root).size !== root.length)
      throw new FST_STATIC_INVALID_OPTION('root', 'array contains duplicate paths');
    for (const r of root) checkPath(fastify, r, suppressWarning);
    return;
  }
  if (typeof root === 'string') return checkPath(fastify, root, suppressWarning);
  throw new FST_STATIC_INVALID_OPTION_VALUE('root', 'must be a string or array of strings');
}

function checkPath(fastify, root, suppressWarning) {
  if (typeof root !== 'string') throw new FST_STATIC_INVALID_OPTION_VALUE('root', 'must be a string');
  if (!path.isAbsolute(root)) throw new FST_STATIC_INVALID_OPTION('root', 'must be an absolute path');
  let stat;
  try {
    stat = fs.statSync(root);
  } catch (e) {
    if (e.code === 'ENOENT') return void (!suppressWarning && fastify.log.warn(`"root" path "${root}" must exist`));
    throw e;
  }
  if (!stat.isDirectory()) throw new FST_STATIC_INVALID_OPTION('root', 'must be a directory');
}

module.exports = { memoKey, configOf, addVaryAcceptEncoding, listFiles, normalizeRoot, checkRoot };
