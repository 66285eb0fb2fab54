'use strict';
// ssr-native/hono: serveStatic (@hono/node-server/serve-static 2.1), etag (hono/etag) and
// compress (hono/compress) with the same options, from native memory, with CRC-32 tags and a
// content cache for compressed bodies.
const { serveStatic } = require('./serve-static');
const { etag, RETAINED_304_HEADERS } = require('./etag');
const { compress } = require('./compress');
const { criticalCss } = require('./critical-css');

module.exports = { serveStatic, etag, compress, criticalCss, RETAINED_304_HEADERS };
