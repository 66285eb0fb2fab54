'use strict';
// send 1.2's option handling, shared by serveStatic and fastifyStatic (@fastify/send reads the same
// options). Errors send throws per request are kept in `error`, to be thrown then.
const ms = require('ms');

const MAX_MAXAGE = 60 * 60 * 24 * 365 * 1000; // 1 year, as send

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

function normalizeList(val, name) {
  const list = [].concat(val || []);
  for (const item of list) {
    if (typeof item !== 'string') throw new TypeError(name + ' must be array of strings or false');
  }
  return list;
}

module.exports = { sendConfig, cacheOptions };
