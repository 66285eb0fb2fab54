'use strict';
// Hono 4 on @hono/node-server 2.1: its serveStatic vs ssr-native/hono's (hono-etag: the ETags).
const path = require('path');

const script = path.join(__dirname, '..', 'servers', 'fastify-hono.js');
const variant = (name, mode, impl, extra = {}) => ({
  name,
  script,
  env: { FH_FRAMEWORK: 'hono', FH_MODE: mode, FH_IMPL: impl },
  ...extra,
});
const sizes = [
  ['1 KB', '/1kb.js'],
  ['64 KB', '/64kb.js', { fullOnly: true }],
  ['1 MB', '/1mb.js', { fullOnly: true }],
];

module.exports = {
  name: 'hono-static',
  order: 37,
  headline: '1 KB file, GET /1kb.js', // the default run's case (bench/http/README.md: headline cases)
  question:
    'Hono on @hono/node-server: requests/s of its serveStatic vs ssr-native serveStatic (and a bare in-memory handler) per file size.',
  cases: sizes.map(([label, p, extra]) => ({
    ...extra,
    name: `${label} file, GET ${p}`,
    request: { path: p },
    reference: 'bare in-memory Hono handler',
    variants: [
      variant('@hono/node-server 2.1.9 serveStatic', 'static', 'peer', { baseline: true }),
      variant('ssr-native serveStatic', 'static', 'ssr-native'),
      variant('bare in-memory Hono handler', 'static', 'memory'),
    ],
  })),
};
