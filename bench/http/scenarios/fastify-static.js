'use strict';
// Fastify 5: @fastify/static 10.1 vs ssr-native/fastify's fastifyStatic, 1 KB / 64 KB / 1 MB.
const path = require('path');

const script = path.join(__dirname, '..', 'servers', 'fastify-hono.js');
const variant = (name, impl, extra = {}) => ({
  name,
  script,
  env: { FH_FRAMEWORK: 'fastify', FH_MODE: 'static', FH_IMPL: impl },
  ...extra,
});
// 64 KB and 1 MB (streamed from disk past maxFileSize) run in --full only, keeping --quick short
const sizes = [
  ['1 KB', '/1kb.js'],
  ['64 KB', '/64kb.js', { fullOnly: true }],
  ['1 MB', '/1mb.js', { fullOnly: true }],
];

module.exports = {
  name: 'fastify-static',
  order: 35,
  headline: '1 KB file, GET /1kb.js', // the default run's case (bench/http/README.md: headline cases)
  question:
    'Fastify 5: requests/s of @fastify/static 10.1 vs ssr-native fastifyStatic (and a bare in-memory Fastify handler) per file size.',
  cases: sizes.map(([label, p, extra]) => ({
    ...extra,
    name: `${label} file, GET ${p}`,
    request: { path: p },
    reference: 'bare in-memory Fastify handler',
    variants: [
      variant('@fastify/static 10.1.11', 'peer', { baseline: true }),
      variant('ssr-native fastifyStatic', 'ssr-native'),
      variant('bare in-memory Fastify handler', 'memory'),
    ],
  })),
};
