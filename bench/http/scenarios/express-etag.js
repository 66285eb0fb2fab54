'use strict';
// What does each ETag function cost Express 5 on a 75 KB server-rendered page?
const path = require('path');

const script = path.join(__dirname, '..', 'servers', 'express-etag.js');
const variant = (name, mode, extra = {}) => ({ name, script, env: { ETAG_MODE: mode }, ...extra });

module.exports = {
  name: 'express-etag',
  order: 10,
  headline: '75 KB page, GET /',
  question:
    "Express 5, 75 KB page: requests/s with Express's SHA-1 ETag, no ETag, a zlib.crc32 ETag, ssr-native's and a constant-string etag function (an ETag's cost to Express without computing it). express-etag-cpu gives the CPU ratios with their spread.",
  cases: [
    {
      name: '75 KB page, GET /',
      request: { path: '/' },
      reference: 'etag off',
      variants: [
        variant('express default (SHA-1)', 'default', { baseline: true }),
        variant('etag off', 'off'),
        variant('zlib.crc32 in JS', 'zlib'),
        variant('ssr-native etag', 'ssr-native'),
        variant('constant etag fn', 'constant'),
      ],
    },
  ],
};
