'use strict';
// ssr-native: native drop-ins for the hot spots of Node SSR servers.
const { etag, crc32 } = require('./etag');
const contentType = require('./content-type');
const serveStatic = require('./express/serve-static');
const { FileCache } = require('./files/file-cache');

module.exports = { etag, crc32, contentType, serveStatic, FileCache };
