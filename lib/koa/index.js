'use strict';
// ssr-native/koa: Koa 2 and 3 middleware. etag() and conditional() replace koa-etag 5 and
// koa-conditional-get 3; serve() replaces koa-static 5 and send() koa-send 5, both over the
// native FileCache; compress() replaces koa-compress 5.2 over the compression content cache;
// cache() is the shared response cache (ssr-native/cache) for Koa.
const { etag, conditional } = require('./etag');
const { serve } = require('./serve');
const { send } = require('./send');
const { compress } = require('./compress');
const { cache } = require('./response-cache');
const { criticalCss } = require('./critical-css');

module.exports = { etag, conditional, serve, send, compress, cache, criticalCss };
