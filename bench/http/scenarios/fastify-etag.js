'use strict';
// Fastify 5, 75 KB page: @fastify/etag 6.2 (SHA-1) vs ssr-native fastifyEtag (CRC-32) vs none, and
// an onSend hook doing nothing (what Fastify charges for the hook itself).
const path = require('path');

const script = path.join(__dirname, '..', 'servers', 'fastify-hono.js');
const variant = (name, impl, extra = {}) => ({
  name,
  script,
  env: { FH_FRAMEWORK: 'fastify', FH_MODE: 'etag', FH_IMPL: impl },
  ...extra,
});

module.exports = {
  name: 'fastify-etag',
  order: 36,
  question:
    'Fastify 5, 75 KB page: requests/s with @fastify/etag 6.2 (SHA-1), ssr-native fastifyEtag (CRC-32), no ETag plugin and an empty onSend hook.',
  cases: [
    {
      name: '75 KB page, GET /',
      request: { path: '/' },
      reference: 'no ETag plugin',
      variants: [
        variant('@fastify/etag 6.2.0', 'peer', { baseline: true }),
        variant('ssr-native fastifyEtag', 'ssr-native'),
        variant('no ETag plugin', 'none'),
        variant('empty onSend hook', 'empty-hook'),
      ],
    },
  ],
};
