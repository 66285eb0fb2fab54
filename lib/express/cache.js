'use strict';
// ssr-native/cache: a shared HTTP cache inside the server (RFC 9111 and RFC 5861 semantics,
// request coalescing, hit-for-pass, purges by URL, prefix and tag). responseCache() is the
// node:http / Express middleware (./response-cache.js) over the cache engine; the Koa one is
// cache() in ssr-native/koa.
const { responseCache } = require('./response-cache');
const { CacheEngine } = require('../cache/engine');
const { sharedMemoryStore } = require('../cache/shared-memory-store');

module.exports = { responseCache, CacheEngine, sharedMemoryStore };
