'use strict';
// Hono 4 on @hono/node-server 2.1, 75 KB page: hono/etag (SHA-1 through WebCrypto) vs
// ssr-native/hono's etag (CRC-32) vs no etag middleware, and an async middleware doing nothing
// (what Hono and node-server charge for having one).
const path = require('path');

const script = path.join(__dirname, '..', 'servers', 'fastify-hono.js');
const variant = (name, mode, impl, extra = {}) => ({
  name,
  script,
  env: { FH_FRAMEWORK: 'hono', FH_MODE: mode, FH_IMPL: impl },
  ...extra,
});

module.exports = {
  name: 'hono-etag',
  order: 38,
  question:
    'Hono on @hono/node-server, 75 KB page: requests/s with hono/etag, ssr-native etag, no etag middleware and an empty middleware.',
  cases: [
    {
      name: '75 KB page, GET /',
      request: { path: '/' },
      reference: 'no etag middleware',
      variants: [
        variant('hono/etag 4.13.19', 'etag', 'peer', { baseline: true }),
        variant('ssr-native etag', 'etag', 'ssr-native'),
        variant('no etag middleware', 'etag', 'none'),
        variant('empty middleware', 'etag', 'empty-hook'),
      ],
    },
  ],
};
