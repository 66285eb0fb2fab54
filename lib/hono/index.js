'use strict';
// ssr-native/hono: serveStatic (@hono/node-server/serve-static 2.1) and etag (hono/etag) with the
// same options, from native memory and with CRC-32 tags.
const { serveStatic } = require('./serve-static');
const { etag, RETAINED_304_HEADERS } = require('./etag');

module.exports = { serveStatic, etag, RETAINED_304_HEADERS };
