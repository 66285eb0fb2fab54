'use strict';
// What Express 4/5's lib/utils.js gets for `require('etag')` under ssr-native/register: the
// etag package's signature, etag(entity, { weak }), answered by ssr-native's CRC-32 ETag. Express
// calls it only for its own 'weak'/true and 'strong' settings (utils.wetag / utils.etag), so an
// app's own etag function or `false` is untouched.
module.exports = require('../etag').etag;
