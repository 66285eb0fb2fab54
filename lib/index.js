'use strict';
// ssr-native: native drop-ins for the hot spots of Node SSR servers.
const { etag, crc32 } = require('./etag');

module.exports = { etag, crc32 };
